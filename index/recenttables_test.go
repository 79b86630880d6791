package index_test

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestRecentTablesBruteForce checks the in-memory table level against an
// exhaustive scan: random fingerprints with planted neighbours, added
// online in small commits with replaces and deletes, with the level merged
// after every commit, never, and every few commits, and through a reopen
// (which rebuilds the level from the records), each with and without the
// table mirror (Options.TableMirror). Every QueryFingerprint and every
// pair of Pairs must be what the scan finds, and Check must pass.
func TestRecentTablesBruteForce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		recent int
		mirror bool
	}{{-1, false}, {1 << 30, false}, {7, false}, {-1, true}, {1 << 30, true}, {7, true}} {
		recent := c.recent
		t.Run(fmt.Sprint(recent, "/mirror=", c.mirror), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(recent+10), 5))
			path := filepath.Join(t.TempDir(), "t.simidx")
			opts := &index.Options{Log: directLog, NoSync: true, RecentBands: recent, TableMirror: c.mirror,
				Settings: &index.Settings{NoMinHash: true, ExpectedDocs: 1000}}
			x, err := index.Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { x.Close() }()
			live := map[string]uint64{}
			var fps []uint64
			pairsSeen := 0
			// near returns a fingerprint within 1 to 4 bits of a stored one,
			// or a random one.
			near := func() uint64 {
				if len(fps) == 0 || rng.IntN(3) == 0 {
					return rng.Uint64()
				}
				fp := fps[rng.IntN(len(fps))]
				for range 1 + rng.IntN(4) {
					fp ^= 1 << rng.IntN(64)
				}
				return fp
			}
			check := func(when string) {
				t.Helper()
				if err := x.Check(); err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				type pair struct {
					a, b string
					d    int
				}
				var want []pair
				for a, fa := range live {
					got, err := x.QueryFingerprint(fa, &index.QueryOptions{Limit: 0})
					if err != nil {
						t.Fatal(err)
					}
					var wantMs []index.Match
					for b, fb := range live {
						if d := bits.OnesCount64(fa ^ fb); d <= 3 {
							wantMs = append(wantMs, index.Match{ID: b, Distance: d})
							if a < b {
								want = append(want, pair{a, b, d})
							}
						}
					}
					byID := func(m, n index.Match) int {
						if m.ID < n.ID {
							return -1
						}
						if m.ID > n.ID {
							return 1
						}
						return 0
					}
					slices.SortFunc(got, byID)
					slices.SortFunc(wantMs, byID)
					if !slices.Equal(got, wantMs) {
						t.Fatalf("%s: QueryFingerprint(%016x) of %s = %v, a scan %v", when, fa, a, got, wantMs)
					}
				}
				var got []pair
				err := x.Pairs(context.Background(), nil, func(p index.Pair) error {
					got = append(got, pair{p.A, p.B, p.Distance})
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				cmpPair := func(p, q pair) int {
					switch {
					case p.a != q.a:
						return map[bool]int{true: -1, false: 1}[p.a < q.a]
					case p.b != q.b:
						return map[bool]int{true: -1, false: 1}[p.b < q.b]
					}
					return 0
				}
				slices.SortFunc(got, cmpPair)
				slices.SortFunc(want, cmpPair)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: %d pairs, a scan %d:\ngot  %v\nwant %v", when, len(got), len(want), got, want)
				}
				pairsSeen += len(want)
			}
			id := 0
			for step := range 60 {
				var batch []index.Doc
				for range 1 + rng.IntN(9) {
					d := index.Doc{ID: fmt.Sprint("d", id), Fingerprint: near(), Precomputed: true}
					id++
					if len(live) > 0 && rng.IntN(5) == 0 {
						for other := range live { // a replace
							d.ID = other
							break
						}
					}
					batch = append(batch, d)
				}
				if err := x.Add(batch...); err != nil {
					t.Fatal(err)
				}
				for _, d := range batch {
					live[d.ID] = d.Fingerprint
					fps = append(fps, d.Fingerprint)
				}
				if step%5 == 4 {
					var del []string
					for other := range live {
						if len(del) < 3 {
							del = append(del, other)
						}
					}
					if _, err := x.Delete(del...); err != nil {
						t.Fatal(err)
					}
					for _, d := range del {
						delete(live, d)
					}
				}
				if step%10 == 9 {
					check(fmt.Sprint("step ", step))
				}
				if step == 29 {
					if err := x.Close(); err != nil {
						t.Fatal(err)
					}
					if x, err = index.Open(path, opts); err != nil {
						t.Fatal(err)
					}
					check("after a reopen")
				}
			}
			if pairsSeen == 0 {
				t.Fatal("no pairs: the test planted none")
			}
			st, err := x.Stats()
			if err != nil || st.Docs != len(live) {
				t.Fatalf("stats %+v, %v; %d documents", st, err, len(live))
			}
		})
	}
}

// TestRecentTablesConcurrent queries by fingerprint while a writer adds
// and merges the levels every few commits: a document whose add returned
// before a query began is found by it, whether its entries are in the
// current level, in the level a merge is retiring, or in the bucket.
func TestRecentTablesConcurrent(t *testing.T) {
	t.Parallel()
	for _, mirror := range []bool{false, true} {
		t.Run(fmt.Sprint("mirror=", mirror), func(t *testing.T) {
			t.Parallel()
			recentTablesConcurrent(t, mirror)
		})
	}
}

func recentTablesConcurrent(t *testing.T, mirror bool) {
	x, err := index.Open(filepath.Join(t.TempDir(), "c.simidx"), &index.Options{Log: directLog, NoSync: true, RecentBands: 5, TableMirror: mirror,
		Settings: &index.Settings{NoMinHash: true, ExpectedDocs: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	fps := make([]uint64, 600)
	for i := range fps {
		fps[i] = rng.Uint64()
	}
	// Every fourth add runs with no query in flight (gate), so that the
	// merges, which start and retire levels only when no reader holds the
	// index, get their turn however busy the machine; the other adds and
	// the merge slices run among the queries.
	var gate sync.RWMutex
	var added atomic.Int64
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for k := 0; added.Load() < int64(len(fps)); k++ {
				n := int(added.Load())
				if n == 0 {
					continue
				}
				i := (k*7 + g) % n
				gate.RLock()
				ms, err := x.QueryFingerprint(fps[i], nil)
				gate.RUnlock()
				if err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == fmt.Sprint("f", i) && m.Distance == 0 }) {
					errs <- fmt.Errorf("query of added fingerprint %d: %v, %v", i, ms, err)
					return
				}
			}
		})
	}
	for i, fp := range fps {
		if i%4 == 3 {
			gate.Lock()
		}
		err := x.AddFingerprint(fmt.Sprint("f", i), fp)
		if i%4 == 3 {
			gate.Unlock()
		}
		if err != nil {
			t.Fatal(err)
		}
		added.Store(int64(i + 1))
	}
	waitErrs(t, &wg, errs)
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	if st, err := x.Stats(); err != nil || st.RecentTables >= len(fps)/2 {
		t.Errorf("%d of %d documents still in the table level (%v): the merges did not run", st.RecentTables, len(fps), err)
	}
}
