package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// pairWorkerCases are the workers Pairs is run on in the tests of its
// workers: in the caller's goroutine alone (as with GOMAXPROCS=1), on
// several, and on several with buffers so small that the workers wait
// for the caller's goroutine at every chunk.
var pairWorkerCases = []struct {
	name    string
	workers int
	small   bool
}{{"1", 1, false}, {"4", 4, false}, {"4-small", 4, true}}

// pairsOf returns the pairs of x with opts in the order Pairs reports
// them, failing t if fn is ever called while another call runs.
func pairsOf(t *testing.T, x *index.Index, opts *index.QueryOptions) []index.Pair {
	t.Helper()
	var ps []index.Pair
	var in atomic.Int32
	err := x.Pairs(context.Background(), opts, func(p index.Pair) error {
		if in.Add(1) != 1 {
			t.Error("fn called while another call runs")
		}
		ps = append(ps, p)
		in.Add(-1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// clustersOf returns the clusters of x with opts, their IDs.
func clustersOf(t *testing.T, x *index.Index, opts index.QueryOptions) [][]string {
	t.Helper()
	var cs [][]string
	err := x.Clusters(context.Background(), &opts, func(c index.Cluster) error {
		cs = append(cs, append([]string{c.Representative}, c.IDs...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// checkPairWorkers runs Pairs on x with opts on every case of
// pairWorkerCases: each reports the pairs of want (A/B to distance), each
// once, in the same order as the caller's goroutine alone; the first
// pairs under a Limit, and the clusters of both linkages, are the same
// too. It returns the number of pairs.
func checkPairWorkers(t *testing.T, x *index.Index, opts index.QueryOptions, want map[[2]string]int) int {
	t.Helper()
	var first []index.Pair
	var firstC [2][][]string
	for _, c := range pairWorkerCases {
		started, running := index.SetPairWorkers(x, c.workers, c.small)
		got := pairsOf(t, x, &opts)
		seen := map[[2]string]bool{}
		for _, p := range got {
			key := [2]string{p.A, p.B}
			if seen[key] {
				t.Fatalf("%s workers: pair %v reported twice", c.name, key)
			}
			seen[key] = true
			if d, ok := want[key]; !ok || d != p.Distance {
				t.Fatalf("%s workers: pair %+v, brute force %d, %v", c.name, p, d, ok)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s workers: %d pairs, brute force %d", c.name, len(got), len(want))
		}
		if c.workers == 1 {
			// The same scan again: the same order (the levels are maps).
			if again := pairsOf(t, x, &opts); !slices.Equal(again, got) {
				t.Fatalf("%s workers: the pairs in another order the second time", c.name)
			}
		}
		if first == nil {
			first = got
		} else if !slices.Equal(got, first) {
			t.Fatalf("%s workers: the pairs in another order than on one", c.name)
		}
		lim := opts
		lim.Limit = min(7, len(got))
		if l := pairsOf(t, x, &lim); !slices.Equal(l, first[:lim.Limit]) {
			t.Fatalf("%s workers: Limit %d gives %v, want %v", c.name, lim.Limit, l, first[:lim.Limit])
		}
		for i, link := range []index.Linkage{index.SingleLinkage, index.CenterLinkage} {
			o := opts
			o.Linkage = link
			cs := clustersOf(t, x, o)
			if c.workers == 1 {
				firstC[i] = cs
			} else if !slices.EqualFunc(cs, firstC[i], slices.Equal) {
				t.Fatalf("%s workers: %v clusters differ from one worker's", c.name, link)
			}
		}
		if c.workers > 1 && started() == 0 {
			t.Fatalf("%s workers: no worker started", c.name)
		}
		if n := running(); n != 0 {
			t.Fatalf("%s workers: %d workers still running after Pairs returned", c.name, n)
		}
	}
	return len(first)
}

// TestPairsWorkersFingerprints checks the pairs of the tables on several
// workers against brute force and against the caller's goroutine alone,
// on fingerprints with planted neighbours.
func TestPairsWorkersFingerprints(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	c := &corpus{}
	for len(c.fps) < 4000 {
		fp := rng.Uint64()
		c.add(fp)
		if rng.IntN(3) == 0 {
			for range 1 + rng.IntN(4) {
				c.add(flip(rng, fp, rng.IntN(6)))
			}
		}
	}
	const k = 4
	want := map[[2]string]int{}
	for i := range c.fps {
		for j := i + 1; j < len(c.fps); j++ {
			if d := bits.OnesCount64(c.fps[i] ^ c.fps[j]); d <= k {
				want[[2]string{c.ids[i], c.ids[j]}] = d
			}
		}
	}
	// The design's key bits, and keys of 1 and 2 bits (fewer keys than
	// the parts a table is cut into in these tests) and of the smallest
	// prefix; half the fingerprints loaded in bulk, half added with the
	// levels never merged (groups of the levels alone).
	d := index.DesignFor(k, 4000)
	pmin, _ := d.PrefixBits(k)
	for _, kb := range []int{d.KeyBits, 1, 2, pmin} {
		t.Run(fmt.Sprint("keybits=", kb), func(t *testing.T) {
			t.Parallel()
			d := index.Design{Blocks: d.Blocks, KeyBits: kb}
			s := &index.Settings{MaxDistance: k, ExpectedDocs: 4000, Design: d, NoMinHash: true}
			x := openIndex(t, filepath.Join(t.TempDir(), "t.simidx"), &index.Options{Settings: s, NoSync: true, Log: directLog, RecentBands: 1 << 30})
			var docs []index.Doc
			for d := range c.docs() {
				docs = append(docs, d)
			}
			if _, err := x.Load(context.Background(), seqDocs(docs[:len(docs)/2]), nil); err != nil {
				t.Fatal(err)
			}
			if err := x.Add(docs[len(docs)/2:]...); err != nil {
				t.Fatal(err)
			}
			if n := checkPairWorkers(t, x, index.QueryOptions{}, want); n < 500 {
				t.Fatalf("only %d pairs: plant more", n)
			}
		})
	}
}

// textPairs returns the pairs of docs by the rule of the MinHash layer,
// written out: within k bits or sharing a band, and a similarity of at
// least minSim; texts without words match nothing.
func textPairs(t *testing.T, docs []index.Doc, s *index.Settings, k int, minSim float64) map[[2]string]int {
	t.Helper()
	f, err := index.NewFingerprinter(s)
	if err != nil {
		t.Fatal(err)
	}
	so := index.DefaultSettings().Text.Shingle
	tok, err := shingle.NewTokenizer(&so)
	if err != nil {
		t.Fatal(err)
	}
	type an struct {
		fp                uint64
		sig, bands, short []uint64
		empty             bool
	}
	ans := make([]an, len(docs))
	for i, d := range docs {
		fp, sig, bands := f.Analyze(d.Text)
		ans[i] = an{fp, slices.Clone(sig), slices.Clone(bands), slices.Clone(f.Short(d.Text)), len(tok.AppendUnits(nil, d.Text)) == 0}
	}
	want := map[[2]string]int{}
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			a, b := &ans[i], &ans[j]
			if a.empty || b.empty {
				continue
			}
			d := bits.OnesCount64(a.fp ^ b.fp)
			if (d <= k || sharedBands(a.bands, b.bands) > 0) && layerSimilarity(a.sig, a.short, b.sig, b.short) >= minSim {
				want[[2]string{min(docs[i].ID, docs[j].ID), max(docs[i].ID, docs[j].ID)}] = d
			}
		}
	}
	return want
}

// TestPairsWorkersTexts checks the pairs of the tables and the MinHash
// bands on several workers against brute force and against the caller's
// goroutine alone, on real texts with planted edits: loaded in bulk (the
// bands bucket), and added online with the levels never merged, after a
// bulk load of some (postings of the bucket joined with the levels', and
// keys of the levels alone).
func TestPairsWorkersTexts(t *testing.T) {
	t.Parallel()
	docs := verifyCorpus(t)
	s := &index.Settings{ExpectedDocs: 1000}
	k := index.DefaultMaxDistance
	// Loaded in bulk; a third loaded and the rest added with the levels
	// never merged; all added with the levels never merged (every band key
	// of the levels alone); a third loaded and the rest added, merged at
	// every commit (the levels empty).
	for _, online := range []string{"", "after a load", "added", "merged"} {
		t.Run(fmt.Sprint("online=", online), func(t *testing.T) {
			t.Parallel()
			var x *index.Index
			if online != "" {
				recent, loaded := 1<<30, len(docs)/3
				switch online {
				case "added":
					loaded = 0
				case "merged":
					recent = -1
				}
				x = openIndex(t, filepath.Join(t.TempDir(), "t.simidx"), &index.Options{Settings: s, NoSync: true, Log: directLog, RecentBands: recent})
				if _, err := x.Load(context.Background(), seqDocs(docs[:loaded]), nil); err != nil {
					t.Fatal(err)
				}
				for i := loaded; i < len(docs); i += 50 {
					if err := x.Add(docs[i:min(i+50, len(docs))]...); err != nil {
						t.Fatal(err)
					}
				}
				if st, err := x.Stats(); err != nil || (st.RecentBands == 0) != (online == "merged") {
					t.Fatalf("%d documents in the band level: %+v, %v", st.RecentBands, st, err)
				}
			} else {
				x = newIndex(t, s)
				if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
					t.Fatal(err)
				}
			}
			for _, minSim := range []float64{index.DefaultMinSimilarity, 0.3} {
				want := textPairs(t, docs, s, k, minSim)
				n := checkPairWorkers(t, x, index.QueryOptions{MinSimilarity: minSim}, want)
				if n < 200 {
					t.Fatalf("only %d pairs at %v: plant more", n, minSim)
				}
			}
		})
	}
}

// TestPairsWorkersStop stops Pairs on several workers by an error of fn,
// at its first, middle and last pair, and by cancelling its context from
// fn, at the first and the middle pair: Pairs returns that error, fn is
// not called after it returned the error, and every worker has ended
// when Pairs returns.
func TestPairsWorkersStop(t *testing.T) {
	t.Parallel()
	docs := verifyCorpus(t)
	x := newIndex(t, &index.Settings{ExpectedDocs: 1000})
	if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
		t.Fatal(err)
	}
	total := len(pairsOf(t, x, nil))
	if total < 100 {
		t.Fatalf("only %d pairs", total)
	}
	errFn := errors.New("fn's own error")
	for _, small := range []bool{false, true} {
		for _, at := range []int{1, total / 2, total - 1} {
			for _, cancel := range []bool{false, true} {
				if cancel && at == total-1 {
					continue // the scan may be over: nothing left to stop
				}
				t.Run(fmt.Sprintf("small=%v/at=%d/cancel=%v", small, at, cancel), func(t *testing.T) {
					started, running := index.SetPairWorkers(x, 4, small)
					ctx, stop := context.WithCancel(context.Background())
					defer stop()
					calls := 0
					err := x.Pairs(ctx, nil, func(index.Pair) error {
						calls++
						if cancel {
							if calls == at {
								stop()
							}
							return nil
						}
						if calls > at {
							t.Error("fn called after it returned an error")
						}
						if calls == at {
							return errFn
						}
						return nil
					})
					switch {
					case cancel && !errors.Is(err, context.Canceled):
						t.Fatalf("Pairs returned %v, want %v", err, context.Canceled)
					case !cancel && err != errFn:
						t.Fatalf("Pairs returned %v, want fn's error", err)
					case cancel && calls >= total:
						t.Fatalf("all %d pairs reported after the cancel", calls)
					}
					if started() == 0 {
						t.Fatal("no worker started")
					}
					if n := running(); n != 0 {
						t.Fatalf("%d workers still running after Pairs returned", n)
					}
				})
			}
		}
	}
	// The index is as it was: every pair again, and a write.
	if n := len(pairsOf(t, x, nil)); n != total {
		t.Fatalf("%d pairs after the stops, want %d", n, total)
	}
	if err := x.Add(index.Doc{ID: "after", Text: []byte("a text added after the stops")}); err != nil {
		t.Fatal(err)
	}
}

// TestPairsWorkersDamagedRecord flips a bit of the record of a document
// that shares a band with another beyond k bits: the worker that reads
// the record for the band part fails with ErrCorrupt, and so does Pairs,
// with every worker ended.
func TestPairsWorkersDamagedRecord(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "d.simidx")
	x := openIndex(t, path, &index.Options{Settings: &index.Settings{ExpectedDocs: 1000}, NoSync: true, Log: directLog})
	if _, err := x.Load(context.Background(), seqDocs(verifyCorpus(t)), nil); err != nil {
		t.Fatal(err)
	}
	// An edited copy beyond k bits, whose record Pairs reads.
	victim := ""
	for _, p := range pairsOf(t, x, nil) {
		if p.Distance > index.DefaultMaxDistance && strings.Contains(p.B, "~") {
			victim = p.B
			break
		}
	}
	if victim == "" {
		t.Fatal("no pair beyond k bits")
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	damageRecord(t, path, victim)
	x = openIndex(t, path, &index.Options{ReadOnly: true})
	for _, small := range []bool{false, true} {
		started, running := index.SetPairWorkers(x, 4, small)
		err := x.Pairs(context.Background(), nil, func(index.Pair) error { return nil })
		if !errors.Is(err, index.ErrCorrupt) {
			t.Fatalf("small %v: Pairs over a damaged record: %v, want ErrCorrupt", small, err)
		}
		if started() == 0 || running() != 0 {
			t.Fatalf("small %v: %d workers started, %d running", small, started(), running())
		}
	}
}
