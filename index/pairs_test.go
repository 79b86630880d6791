package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestPairsExact checks Pairs and Clusters against brute force on 20,000
// fingerprints with planted clusters.
func TestPairsExact(t *testing.T) {
	for _, k := range []int{3, 6} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(7, uint64(k)))
			c := &corpus{}
			for len(c.fps) < 20000 {
				if rng.IntN(4) == 0 { // a cluster: a chain and a star
					fp := rng.Uint64()
					c.add(fp)
					for range rng.IntN(5) + 1 {
						fp = flip(rng, fp, rng.IntN(k+3))
						c.add(fp)
					}
				} else {
					c.add(rng.Uint64())
				}
			}
			want := map[[2]string]int{}
			for i := range c.fps {
				for j := i + 1; j < len(c.fps); j++ {
					if d := bits.OnesCount64(c.fps[i] ^ c.fps[j]); d <= k {
						want[[2]string{c.ids[i], c.ids[j]}] = d
					}
				}
			}
			x := newIndex(t, &index.Settings{MaxDistance: k, ExpectedDocs: 20000})
			if _, err := x.Load(context.Background(), c.docs(), nil); err != nil {
				t.Fatal(err)
			}
			got := map[[2]string]int{}
			err := x.Pairs(context.Background(), nil, func(p index.Pair) error {
				key := [2]string{p.A, p.B}
				if p.A >= p.B {
					t.Fatalf("pair %v not ordered", key)
				}
				if _, dup := got[key]; dup {
					t.Fatalf("pair %v reported twice", key)
				}
				got[key] = p.Distance
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(want) < 1000 {
				t.Fatalf("only %d brute-force pairs; make the test harder", len(want))
			}
			for p, d := range want {
				if g, ok := got[p]; !ok || g != d {
					t.Fatalf("pair %v distance %d: got %d, %v", p, d, g, ok)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d pairs, want %d", len(got), len(want))
			}
			wantC := bruteClusters(c.ids, want)
			var gotC [][]string
			err = x.Clusters(context.Background(), nil, func(cl index.Cluster) error {
				if cl.Number != len(gotC) || cl.Representative != cl.IDs[0] {
					t.Fatalf("cluster %d: %+v", len(gotC), cl)
				}
				gotC = append(gotC, cl.IDs)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(gotC, wantC, slices.Equal) {
				t.Fatalf("%d clusters, want %d", len(gotC), len(wantC))
			}
			// Limit and a smaller distance.
			n := 0
			err = x.Pairs(context.Background(), &index.QueryOptions{MaxDistance: 1, Limit: 5}, func(p index.Pair) error {
				if p.Distance > 1 {
					t.Fatalf("pair at distance %d", p.Distance)
				}
				n++
				return nil
			})
			if err != nil || n != 5 {
				t.Fatalf("limited pairs: %d, %v", n, err)
			}
		})
	}
}

// TestCancelledBeforeStart checks that Pairs, Clusters and Load given a
// context already cancelled return its error and report or add nothing,
// however small the index.
func TestCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	x := nearPair(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := 0
	if err := x.Pairs(ctx, nil, func(index.Pair) error { called++; return nil }); !errors.Is(err, context.Canceled) || called > 0 {
		t.Errorf("Pairs: %v, %d pairs", err, called)
	}
	if err := x.Clusters(ctx, nil, func(index.Cluster) error { called++; return nil }); !errors.Is(err, context.Canceled) || called > 0 {
		t.Errorf("Clusters: %v, %d clusters", err, called)
	}
	src := func(yield func(index.Doc, error) bool) {
		yield(index.Doc{ID: "c", Fingerprint: 7, Precomputed: true}, nil)
	}
	if st, err := x.Load(ctx, src, nil); !errors.Is(err, context.Canceled) || st.Committed > 0 || x.Len() != 2 {
		t.Errorf("Load: %v, %+v, %d documents", err, st, x.Len())
	}
}

// TestScanProgress checks what Pairs and Clusters tell QueryOptions.Progress:
// the parts of the scan, first nothing handed out, then further each time,
// last everything and Done, once; the pairs are those of a scan without it.
func TestScanProgress(t *testing.T) {
	t.Parallel()
	docs := verifyCorpus(t)[:300]

	// A set method's scan has no parts: it is told as it begins and once
	// every pair is found.
	x := newIndex(t, &index.Settings{Text: index.TextSettings{Method: index.MethodShort}})
	if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
		t.Fatal(err)
	}
	var told []index.ScanProgress
	opts := &index.QueryOptions{Progress: func(p index.ScanProgress) { told = append(told, p) }}
	if err := x.Pairs(context.Background(), opts, func(index.Pair) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []index.ScanProgress{{}, {Done: true}}; !slices.Equal(told, want) {
		t.Errorf("a set method's scan: told %+v, want %+v", told, want)
	}
	// With the fingerprint rule too, it has tables, and Done comes after
	// the pairs of the set postings.
	var pairs, atDone int
	told = nil
	opts.MaxDistance = 3
	opts.Progress = func(p index.ScanProgress) {
		told = append(told, p)
		if p.Done {
			atDone = pairs
		}
	}
	if err := x.Pairs(context.Background(), opts, func(index.Pair) error { pairs++; return nil }); err != nil {
		t.Fatal(err)
	}
	if last := told[len(told)-1]; !last.Done || last.Tables == 0 || last.TablesDone != last.Tables || atDone != pairs || pairs == 0 {
		t.Errorf("a set method's scan with tables: last told %+v after %d of %d pairs", last, atDone, pairs)
	}

	for _, minHash := range []bool{true, false} {
		s := &index.Settings{NoMinHash: !minHash}
		x := newIndex(t, s)
		if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
			t.Fatal(err)
		}
		st, err := x.Stats()
		if err != nil {
			t.Fatal(err)
		}
		var got []index.ScanProgress
		opts := &index.QueryOptions{Progress: func(p index.ScanProgress) { got = append(got, p) }}
		check := func(what string) {
			t.Helper()
			if len(got) < 2 {
				t.Fatalf("%s, MinHash %v: told %d times", what, minHash, len(got))
			}
			first, last := got[0], got[len(got)-1]
			want := index.ScanProgress{Tables: st.Tables}
			if minHash {
				want.Bands = st.Bands + st.ShortBands
			}
			if first != want {
				t.Errorf("%s: first %+v, want %+v", what, first, want)
			}
			want.TablesDone, want.BandsDone, want.Done = want.Tables, want.Bands, true
			if last != want {
				t.Errorf("%s: last %+v, want %+v", what, last, want)
			}
			for i := 1; i < len(got); i++ {
				p, q := got[i-1], got[i]
				if q.TablesDone < p.TablesDone || q.BandsDone < p.BandsDone || q == p || (q.BandsDone > 0 && q.TablesDone != q.Tables) || p.Done {
					t.Errorf("%s: %+v after %+v", what, q, p)
				}
			}
			got = nil
		}
		var with, without []index.Pair
		if err := x.Pairs(context.Background(), opts, func(p index.Pair) error { with = append(with, p); return nil }); err != nil {
			t.Fatal(err)
		}
		check("Pairs")
		if err := x.Pairs(context.Background(), nil, func(p index.Pair) error { without = append(without, p); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(with, without) || len(with) == 0 {
			t.Errorf("MinHash %v: %d pairs told, %d not", minHash, len(with), len(without))
		}
		for _, l := range []index.Linkage{index.SingleLinkage, index.CenterLinkage} {
			opts.Linkage = l
			if err := x.Clusters(context.Background(), opts, func(index.Cluster) error { return nil }); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("Clusters, linkage %v", l))
		}
	}
}
