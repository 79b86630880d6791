package index

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestBandFilterFalsePositives checks that the filter has every key added
// and that its false-positive rate at capacity is near its design, 1%.
func TestBandFilterFalsePositives(t *testing.T) {
	const n = 100_000
	f := newBandFilter(n)
	rng := rand.New(rand.NewPCG(1, 2))
	type key struct {
		i int
		h uint64
	}
	keys := make([]key, n)
	for j := range keys {
		keys[j] = key{rng.IntN(14), rng.Uint64()}
		f.add(keys[j].i, keys[j].h)
	}
	for _, k := range keys {
		if !f.has(k.i, k.h) {
			t.Fatalf("key %v added, not found", k)
		}
	}
	if f.full() {
		t.Error("full at capacity")
	}
	fp := 0
	const probes = 200_000
	for range probes {
		if f.has(rng.IntN(14), rng.Uint64()) {
			fp++
		}
	}
	rate := float64(fp) / probes
	t.Logf("false positives at capacity: %.3f%%", 100*rate)
	if rate > 0.02 {
		t.Errorf("false-positive rate %.3f, want about 0.01", rate)
	}
	// The band number is part of the key.
	same := 0
	for _, k := range keys[:10_000] {
		if f.has((k.i+1)%14, k.h) {
			same++
		}
	}
	if same > 200 {
		t.Errorf("%d of 10000 keys found under another band", same)
	}
}

// TestBandFilterGrows checks that the filter is rebuilt larger as adds
// fill it, keeping every band posting, and not as upserts rewrite the
// same texts.
func TestBandFilterGrows(t *testing.T) {
	x, err := Open(t.TempDir()+"/grow.simidx", &Options{Log: directLogInternal, NoSync: true, BandFilter: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	first := x.filter.Load()
	if first == nil || first.limit != filterMinKeys {
		t.Fatalf("filter of an empty index: %+v", first)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	texts := make([][]byte, 200)
	for i := range texts {
		for range 60 {
			texts[i] = append(texts[i], fmt.Sprintf("w%d ", rng.IntN(5000))...)
		}
		if err := x.Add(Doc{ID: fmt.Sprint(i), Text: texts[i]}); err != nil {
			t.Fatal(err)
		}
	}
	f := x.filter.Load()
	if f == first || f.limit < 2*filterMinKeys || f.full() {
		t.Fatalf("after 2800 band postings: limit %d, keys %d", f.limit, f.keys.Load())
	}
	err = x.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketBands).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if !f.has(int(k[0]), binary.BigEndian.Uint64(k[1:])) {
				t.Fatalf("band posting %x not in the filter", k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Upserts of the same texts add no new keys: the filter does not grow.
	limit := f.limit
	for range 5 {
		for i, text := range texts {
			if err := x.Add(Doc{ID: fmt.Sprint(i), Text: text}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if g := x.filter.Load(); g.limit != limit {
		t.Errorf("1000 upserts of stored texts grew the filter from room for %d keys to %d", limit, g.limit)
	}
}

// TestBandFilterSizedByKeys checks that the filter of an index of many
// fingerprints and a few texts is sized by the texts' keys, not by the
// documents, and that it still holds every key after a reopen, those of
// the buckets (merged at once) and those of the levels.
func TestBandFilterSizedByKeys(t *testing.T) {
	path := t.TempDir() + "/fps.simidx"
	x, err := Open(path, &Options{Log: directLogInternal, NoSync: true, BandFilter: true, RecentBands: -1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	docs := make([]Doc, 20_000)
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprint("fp", i), Fingerprint: rng.Uint64(), Precomputed: true}
	}
	for i := range 100 {
		var text []byte
		for range 60 {
			text = append(text, fmt.Sprintf("w%d ", rng.IntN(5000))...)
		}
		docs = append(docs, Doc{ID: fmt.Sprint("text", i), Text: text})
	}
	if err := x.Add(docs...); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if x, err = Open(path, &Options{Log: directLogInternal, BandFilter: true}); err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	f := x.filter.Load()
	// 100 texts (of 60 words: short texts, with the bands of the
	// short-text layer too) have at most 100*filterKeysPerDoc keys; sized
	// by documents the filter would have room for 1.5*35*20,100. (The
	// count of keys that set a new bit depends on the order of the adds,
	// which follows a map's.)
	if most := int64(100 * x.filterKeysPerDoc()); f.keys.Load() > most || f.limit > 3*most/2 {
		keys := f.keys.Load()
		t.Errorf("filter of 20,000 fingerprints and 100 texts: room for %d keys, %d keys", f.limit, keys)
	}
	err = x.db.View(func(tx *bolt.Tx) error {
		bands, exacts := 0, 0
		bad := func(key []byte, what string) { t.Fatalf("key %x: %s", key, what) }
		err := x.eachBandPosting(tx.Bucket(bucketBands), bad, func(b int, h uint64, _ []byte) error {
			bands++
			if !f.has(b, h) {
				t.Fatalf("band %d hash %016x not in the filter", b, h)
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = x.eachExact(tx.Bucket(bucketExact), nil, func(h uint64, _ uint32) error {
			exacts++
			if !f.has(exactBand, h) {
				t.Fatalf("exact hash %016x not in the filter", h)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if bands < 100*x.settings.Bands || exacts != 100 {
			t.Fatalf("%d band hashes and %d exact hashes in the buckets, want at least %d and 100", bands, exacts, 100*x.settings.Bands)
		}
		for _, r := range x.levels() {
			for _, k := range r.keys() {
				if !f.has(int(k.b), k.h) {
					t.Fatalf("recent key %+v not in the filter", k)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBandFilterOfSnapshot checks that a query uses the band filter that
// was current when its transaction began, not one stored after: a filter
// rebuilt from a newer snapshot may lack keys the query's snapshot has
// (after a replace or a delete), and would make it skip their documents.
// The rebuild is simulated by storing an empty filter just after the
// query's transaction began.
func TestBandFilterOfSnapshot(t *testing.T) {
	x, err := Open(t.TempDir()+"/snap.simidx", &Options{Log: directLogInternal, NoSync: true, BandFilter: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	var words []string
	for range 200 {
		words = append(words, fmt.Sprintf("w%d", rng.IntN(100_000)))
	}
	text := []byte(fmt.Sprint(words))
	words[50], words[150] = "changed", "edited"
	edited := []byte(fmt.Sprint(words))
	// Near by MinHash, not at distance 0: the tables do not find it.
	opts := &QueryOptions{MaxDistance: ZeroDistance, MinSimilarity: 0.5}
	if err := x.Add(Doc{ID: "a", Text: text}); err != nil {
		t.Fatal(err)
	}
	ms, err := x.Query(edited, opts)
	if err != nil || len(ms) != 1 || ms[0].Distance == 0 {
		t.Fatalf("edited copy: %+v, %v; want one match by MinHash alone", ms, err)
	}

	viewBegunHook = func() { x.filter.Store(newBandFilter(0)) }
	ms, err = x.Query(edited, opts)
	viewBegunHook = nil
	if err != nil || len(ms) != 1 {
		t.Fatalf("filter replaced as the query began: %+v, %v; want the match", ms, err)
	}
	// The empty filter, now current, hides the bands: the test's query
	// found the match because it did not use it.
	if ms, err = x.Query(edited, opts); err != nil || len(ms) != 0 {
		t.Fatalf("with an empty filter: %+v, %v; want no match", ms, err)
	}
}
