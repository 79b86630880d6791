package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestPairSchedUnitFails runs units on the workers of a real index, a
// unit failing or panicking while an earlier one, which the caller's
// goroutine waits for, runs until it sees the scan stopped: the failure
// stops it, the scan returns the failing unit's error (a panic as
// ErrCorrupt, see recoverCorrupt) rather than the earlier unit's, the
// pairs of the units before come first, in order, and every worker has
// ended; the index then answers as before.
func TestPairSchedUnitFails(t *testing.T) {
	t.Parallel()
	x, err := Open(filepath.Join(t.TempDir(), "s.simidx"), &Options{Log: directLogInternal, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.AddFingerprint("a", 1); err != nil {
		t.Fatal(err)
	}
	if err := x.AddFingerprint("b", 3); err != nil {
		t.Fatal(err)
	}
	errUnit := errors.New("the unit's own error")
	for _, panics := range []bool{false, true} {
		st := &pairStats{}
		x.pairTune = pairTuning{workers: 3, chunk: 2, budget: 1, stats: st}
		var got []uint32
		err := x.viewFiltered(func(tx *bolt.Tx, _ *bandFilter) error {
			s := x.newPairSched(context.Background(), tx, func(a, b uint32, _ int, _ float64) error {
				got = append(got, a)
				return nil
			})
			defer s.close()
			if s.seq != nil {
				t.Fatal("no workers")
			}
			for i := range uint32(3) { // units that end
				if err := s.do(func(_ *pairWorker, emit pairFunc) error {
					for j := range uint32(5) {
						if err := emit(10*i+j, 0, 0, 0); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					return err
				}
			}
			// A unit that runs until the scan stops, and one that fails.
			if err := s.do(func(*pairWorker, pairFunc) error {
				<-s.ctx.Done()
				return s.ctx.Err()
			}); err != nil {
				return err
			}
			if err := s.do(func(*pairWorker, pairFunc) error {
				if panics {
					panic("the unit's own panic")
				}
				return errUnit
			}); err != nil {
				return err
			}
			return s.finish()
		})
		if panics {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "the unit's own panic") {
				t.Fatalf("a unit's panic: %v", err)
			}
		} else if err != errUnit {
			t.Fatalf("a unit's error: %v", err)
		}
		want := []uint32{0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24}
		if len(got) > len(want) || !slices.Equal(got, want[:len(got)]) {
			t.Fatalf("panics %v: pairs %v, want a prefix of %v", panics, got, want)
		}
		if st.started.Load() != 3 || st.running.Load() != 0 {
			t.Fatalf("panics %v: %d workers started, %d running", panics, st.started.Load(), st.running.Load())
		}
	}
	x.pairTune = pairTuning{workers: 3}
	n := 0
	if err := x.Pairs(context.Background(), nil, func(Pair) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("Pairs after the failures: %d pairs, %v", n, err)
	}
}

// TestBandCache checks that a bandCache gives back the band hashes put,
// kept in the bytes of the bits the index keeps (5 at the default
// ExpectedDocs, 6 at a larger one and with 16-bit signatures), that it
// keeps a document's once, none of a document beyond its numbers or of a
// wrong count, and nothing once its bytes are spent; and that an index
// whose records are not compact, or have no short-set bands, has none.
func TestBandCache(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s Settings
		w int
	}{
		{Settings{}, 5},
		{Settings{ExpectedDocs: 1 << 30}, 6},
		{Settings{sig16: true}, 6},
	} {
		bh := smallBandHasherOf(t, &c.s)
		lay := layout{bands: bh.bands + bh.shortBands, bh: bh}
		cache := newBandCache(100, lay)
		if cache.w != c.w {
			t.Fatalf("keep %016x: %d bytes a band, want %d", bh.keep, cache.w, c.w)
		}
		rng := rand.New(rand.NewPCG(uint64(c.w), 1))
		bands := func() []uint64 {
			b := make([]uint64, lay.bands)
			for i := range b {
				b[i] = rng.Uint64() & bh.keep
			}
			return b
		}
		want := map[uint32][]uint64{}
		for n := range uint32(100) {
			if n%3 == 0 {
				want[n] = bands()
				cache.put(n, want[n])
				cache.put(n, bands()) // kept once
			}
		}
		cache.put(100, bands())             // beyond its numbers
		cache.put(1, bands()[:lay.bands-1]) // not all of them
		for n := range uint32(101) {
			got, ok := cache.appendBands([]uint64{7}, n)
			if ok != cache.has(n) || ok != (want[n] != nil) {
				t.Fatalf("w=%d: document %d: held %v, has %v, want %v", c.w, n, ok, cache.has(n), want[n] != nil)
			}
			if ok && !slices.Equal(got, append([]uint64{7}, want[n]...)) {
				t.Fatalf("w=%d: document %d: %x, want %x", c.w, n, got[1:], want[n])
			}
		}
		// Full: nothing more is kept, and the count stays put.
		cache.left.Store(int64(lay.bands*c.w) - 1)
		cache.put(2, bands())
		if cache.has(2) || cache.left.Load() != int64(lay.bands*c.w)-1 {
			t.Fatalf("w=%d: a full cache kept a document's bands (%d bytes left)", c.w, cache.left.Load())
		}
	}
	if newBandCache(10, layout{}) != nil {
		t.Fatal("a cache of an index without bands")
	}
	wide := smallBandHasherOf(t, &Settings{wide: true})
	if newBandCache(10, layout{bands: wide.bands + wide.shortBands, bh: wide, wide: true}) != nil {
		t.Fatal("a cache of a wide index, whose records are not compact")
	}
	noShort := smallBandHasherOf(t, &Settings{ShortUnits: NoShortLayer})
	if noShort.shortBands != 0 || newBandCache(10, layout{bands: noShort.bands, bh: noShort}) != nil {
		t.Fatalf("a cache of an index without short-set bands (%d)", noShort.shortBands)
	}
}

// TestQueueUnits checks the units Pairs hands out ahead: 16 a worker, as
// long as the chunks of the units' pairs fit the budget, which they do up
// to one chunk a worker.
func TestQueueUnits(t *testing.T) {
	for _, tc := range []struct{ w, budget, chunk, want int }{
		{1, pairBudget, pairChunk, 16},
		{2, pairBudget, pairChunk, 32},
		{32, pairBudget, pairChunk, 512},
		{64, pairBudget, pairChunk, 512},
		{1000, pairBudget, pairChunk, 1000},
		{2, 10, 2, 5},
		{2, 1, 2, 2},
	} {
		q := queueUnits(tc.w, tc.budget, tc.chunk)
		if q != tc.want {
			t.Errorf("queueUnits(%d, %d, %d) = %d, want %d", tc.w, tc.budget, tc.chunk, q, tc.want)
		}
		out := max(tc.budget/(tc.chunk*q), 1) // as newPairSched
		if tc.w <= tc.budget/tc.chunk && q*out*tc.chunk > tc.budget {
			t.Errorf("%d workers: %d units of %d chunks of %d pairs, over the budget of %d", tc.w, q, out, tc.chunk, tc.budget)
		}
	}
}

// TestCacheGroup checks that a record read for Pairs brings the other text
// records of its group into the cache, the same bytes a seek of each
// finds, and none when a key before the group reaches into its documents
// (a damaged index), where a seek of such a document finds another
// record.
func TestCacheGroup(t *testing.T) {
	x, _, _ := openNew(t, Settings{})
	defer x.Close()
	var docs []Doc
	for i := range 60 {
		docs = append(docs, Doc{ID: "d" + strconv.Itoa(i), Text: []byte(fmt.Sprintf("document %d of the group test, with words %d and %d", i, i*7, i*13))})
	}
	if _, err := x.Load(context.Background(), docSeq(docs), nil); err != nil {
		t.Fatal(err)
	}
	// The first group of the docs bucket, and a document after its first.
	var g docGroup
	if err := x.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketDocs).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if isDocGroupKey(k) {
				var what string
				if g, what = openDocGroup(k, v); what != "" {
					return fmt.Errorf("group %x: %s", k, what)
				}
				g.ends, g.data = bytes.Clone(g.ends), bytes.Clone(g.data)
				return nil
			}
		}
		return errors.New("no group of records")
	}); err != nil {
		t.Fatal(err)
	}
	if g.last-g.first < 3 {
		t.Fatalf("a group of %d documents", g.last-g.first+1)
	}
	n, m := g.first+2, g.first+1 // n is read, m is its neighbour
	// read reads n's record for Pairs and says whether m's is then in
	// the cache, the bytes a seek of m finds.
	read := func() bool {
		t.Helper()
		cached := false
		if err := x.db.View(func(tx *bolt.Tx) error {
			w := x.newPairWorker(tx)
			cache := newRecordCache(x.readMeta(tx).next)
			if _, err := x.bandRecord(w, cache, n); err != nil {
				return err
			}
			v, ok := cache.get(m)
			if want := seekRecord(tx.Bucket(bucketDocs).Cursor(), m); ok && !bytes.Equal(v, want) {
				return fmt.Errorf("document %d: cached %x, a seek finds %x", m, v, want)
			}
			cached = ok
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return cached
	}
	if !read() {
		t.Fatalf("document %d, in the group of document %d, not cached", m, n)
	}
	// Document m also under its own key, with the record of the
	// document after the group: a seek of m finds that one.
	if err := x.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDocs)
		return b.Put(docKey(m), bytes.Clone(seekRecord(b.Cursor(), g.last+1)))
	}); err != nil {
		t.Fatal(err)
	}
	if read() {
		t.Fatalf("document %d cached from the group beside its own key", m)
	}
}
