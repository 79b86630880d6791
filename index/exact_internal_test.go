package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestExactModel checks the exact lookup (appendExact: the exact bucket,
// and the band level from the exact watermark on) against a scan of every
// record, through random adds, replaces by the same or another text,
// deletes, merges a slice per commit and reopens, on indexes with MinHash
// (exact keys in the level) and without (in the bucket at once). Texts come
// from a small pool, so that most hashes have several documents. After
// every step, every hash of the pool must give exactly the documents whose
// record has it, and Check must pass. The exact bucket is grouped (schema
// 11) with the default group width, with one group for every hash
// (expected 1) and with four.
func TestExactModel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		noMinhash bool
		recent    int
		expected  int
	}{
		{"minhash, merge a slice per commit", false, 5, 0},
		{"minhash, merge at once", false, -1, 0},
		{"minhash, no merge", false, 1 << 20, 0},
		{"no minhash", true, 5, 0},
		{"no minhash, one exact group", true, 5, 1},
		{"minhash, four exact groups", false, 5, 128},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(13, uint64(c.recent)))
			path := filepath.Join(t.TempDir(), "exact.simidx")
			opts := &Options{Log: directLogInternal, NoSync: true, RecentBands: c.recent, BandFilter: true, Settings: &Settings{NoMinHash: c.noMinhash, ExpectedDocs: c.expected}}
			x, err := Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { x.Close() }()
			if c.expected > 0 && x.exact.g != hashGroupBits(c.expected) {
				t.Fatalf("exact group width %d", x.exact.g)
			}
			pool := make([][]byte, 12)
			for i := range pool {
				pool[i] = fmt.Appendf(nil, "text number %d of the pool, with words enough for shingles: alpha beta gamma delta", i)
			}
			a := x.getAnalyzer()
			hashes := make([]uint64, len(pool))
			for i, p := range pool {
				hashes[i] = a.analyze(p).exact
			}
			x.pool.Put(a)
			check := func(step int) {
				t.Helper()
				err := x.view(func(tx *bolt.Tx) error {
					want := make(map[uint64][]uint32)
					for n, v := range docRange(tx, 0, ^uint32(0)) {
						if h, ok := bandOf(v, x.lay, exactBand); ok {
							want[h] = append(want[h], n)
						}
					}
					docs := tx.Bucket(bucketDocs).Cursor()
					for _, h := range hashes {
						if got := x.appendExact(nil, tx, docs, h); !slices.Equal(got, want[h]) {
							t.Fatalf("step %d: exact hash %016x: %v, want %v", step, h, got, want[h])
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := x.Check(); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
			}
			for step := range 300 {
				id := fmt.Sprint("d", rng.IntN(40))
				switch r := rng.IntN(10); {
				case r < 7:
					if err := x.Add(Doc{ID: id, Text: pool[rng.IntN(len(pool))]}); err != nil {
						t.Fatal(err)
					}
				case r < 9:
					if _, err := x.Delete(id); err != nil {
						t.Fatal(err)
					}
				default:
					if err := x.Close(); err != nil {
						t.Fatal(err)
					}
					if x, err = Open(path, opts); err != nil {
						t.Fatal(err)
					}
				}
				check(step)
			}
		})
	}
}

// TestCheckExactLevel checks that Check finds a text document from the
// exact watermark on whose exact key is neither in the bucket nor in the
// in-memory levels.
func TestCheckExactLevel(t *testing.T) {
	x, err := Open(filepath.Join(t.TempDir(), "check.simidx"), &Options{Log: directLogInternal, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(Doc{ID: "a", Text: []byte("a text whose exact key is in the level only")}); err != nil {
		t.Fatal(err)
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	r := x.lcur.Load()
	r.mu.Lock()
	for k := range r.one {
		if k.b == exactBand {
			delete(r.one, k)
		}
	}
	r.mu.Unlock()
	if err := x.Check(); err == nil {
		t.Fatal("Check passes with the exact key gone from the level")
	}
}

// TestPairsExactLevel checks that Pairs does not take the exact keys of
// the in-memory levels for band keys: two texts made to share an exact
// hash (a collision of the 64-bit hash, forced here) but no band or
// fingerprint used to reach the band pairs as band 255.
func TestPairsExactLevel(t *testing.T) {
	x, err := Open(filepath.Join(t.TempDir(), "pairs.simidx"), &Options{Log: directLogInternal, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	pa, err := x.Probe([]byte("the first text, about the weather in the mountains this week"))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := x.Probe([]byte("a second text on another subject: prices of old books in the city"))
	if err != nil {
		t.Fatal(err)
	}
	pb.p.exact = pa.p.exact
	if err := x.addProbed(probedDoc{ID: "a", probe: pa}, probedDoc{ID: "b", probe: pb}); err != nil {
		t.Fatal(err)
	}
	err = x.Pairs(context.Background(), &QueryOptions{MaxDistance: ZeroDistance, MinSimilarity: 0.01}, func(Pair) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
}

// TestExactConcurrent looks up the exact copies of committed texts while a
// writer adds more and the levels merge every few commits, a slice per
// commit: a text whose Add returned must be found, whichever level or the
// bucket holds its exact key as the merges move it.
func TestExactConcurrent(t *testing.T) {
	t.Parallel()
	x, err := Open(filepath.Join(t.TempDir(), "c.simidx"), &Options{Log: directLogInternal, NoSync: true, RecentBands: 4, BandFilter: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	const n = 300
	texts := make([][]byte, n)
	hashes := make([]uint64, n)
	a := x.getAnalyzer()
	for i := range texts {
		texts[i] = fmt.Appendf(nil, "document %d of the concurrent test, with a few more words", i)
		hashes[i] = a.analyze(texts[i]).exact
	}
	x.pool.Put(a)
	// Every fourth add runs with no query in flight (gate), so that the
	// merges, which start and retire levels only when no reader holds the
	// index, get their turn however busy the machine; the other adds and
	// the merge slices run among the queries.
	var gate sync.RWMutex
	var added atomic.Int64 // texts[:added] are committed
	stop := make(chan struct{})
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 15))
			for {
				select {
				case <-stop:
					return
				default:
				}
				k := int(added.Load())
				if k == 0 {
					continue
				}
				i := rng.IntN(k)
				var got []uint32
				gate.RLock()
				err := x.view(func(tx *bolt.Tx) error {
					got = x.appendExact(nil, tx, tx.Bucket(bucketDocs).Cursor(), hashes[i])
					return nil
				})
				gate.RUnlock()
				if err != nil || len(got) != 1 {
					errs <- fmt.Errorf("text %d, committed: exact lookup %v, %v", i, got, err)
					return
				}
			}
		}()
	}
	for i := range texts {
		if i%4 == 3 {
			gate.Lock()
		}
		err := x.Add(Doc{ID: fmt.Sprint("d", i), Text: texts[i]})
		if i%4 == 3 {
			gate.Unlock()
		}
		if err != nil {
			t.Fatal(err)
		}
		added.Store(int64(i + 1))
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	// The merges did run.
	err = x.view(func(tx *bolt.Tx) error {
		if m := x.readMeta(tx); m.bandsFrom < n/2 {
			t.Errorf("band watermark %d after %d adds in levels of 4: the merges did not run", m.bandsFrom, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
