package index_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/shingle"
)

// TestVerifyBruteForce checks Verify against an exhaustive computation:
// every pair and match reported carries the exact Jaccard similarity of
// the two shingle sets, computed here independently (internal/eval's
// exact join over sets made with package shingle), and it reports exactly
// the candidates (within k bits, sharing a MinHash band, or exact copies)
// whose exact similarity reaches the threshold, for the bulk and the
// incremental write paths, before and after deletes and replaces.
func TestVerifyBruteForce(t *testing.T) {
	t.Parallel()
	docs := verifyCorpus(t)
	s := &index.Settings{StoreShingles: true, ExpectedDocs: 1000}
	f, err := index.NewFingerprinter(s)
	if err != nil {
		t.Fatal(err)
	}
	// The sets, independently of the index: units, shingles, a set.
	so := index.DefaultSettings().Text.Shingle
	tok, err := shingle.NewTokenizer(&so)
	if err != nil {
		t.Fatal(err)
	}
	o := tok.Options()
	type doc struct {
		fp    uint64
		bands []uint64
		set   []uint64
		short []uint64 // the short set of a short text, exact already
	}
	ds := make([]doc, len(docs))
	sets := make([][]uint64, len(docs))
	for i, d := range docs {
		units := tok.AppendUnits(nil, d.Text)
		sets[i] = shingle.Set(o.SampleHashes(shingle.AppendShingles(nil, units, o.Size, o.Step())))
		if len(units) == 0 {
			sets[i] = nil
		}
		fp, _, bands := f.Analyze(d.Text)
		ds[i] = doc{fp: fp, bands: append([]uint64(nil), bands...), set: sets[i]}
		ds[i].short = append([]uint64(nil), f.Short(d.Text)...)
	}
	const threshold = 0.6
	exact := map[[2]int]float64{}
	if err := eval.Join(sets, 0.01, func(i, j int, jac float64) { exact[[2]int{i, j}] = jac }); err != nil {
		t.Fatal(err)
	}
	st := index.DefaultSettings()
	want := func(i, j int) (float64, bool) {
		if ds[i].set == nil || ds[j].set == nil {
			return 0, false
		}
		jac := exact[[2]int{min(i, j), max(i, j)}]
		if len(ds[i].short) > 0 && len(ds[j].short) > 0 {
			// Two short texts: the similarity of their short sets.
			jac = shingle.Jaccard(ds[i].short, ds[j].short)
		}
		cand := bits.OnesCount64(ds[i].fp^ds[j].fp) <= st.MaxDistance || shingle.SharedBands(ds[i].bands, ds[j].bands) > 0 || jac == 1
		return jac, cand && jac >= threshold
	}
	pos := map[string]int{}
	for i, d := range docs {
		pos[d.ID] = i
	}

	check := func(t *testing.T, x *index.Index, live map[string]bool) {
		t.Helper()
		opts := &index.QueryOptions{Verify: true}
		got := map[[2]int]float64{}
		err := x.Pairs(context.Background(), opts, func(p index.Pair) error {
			got[[2]int{min(pos[p.A], pos[p.B]), max(pos[p.A], pos[p.B])}] = p.Similarity
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		n, missed := 0, 0
		for i := range docs {
			for j := i + 1; j < len(docs); j++ {
				if !live[docs[i].ID] || !live[docs[j].ID] {
					continue
				}
				jac, ok := want(i, j)
				sim, reported := got[[2]int{i, j}]
				switch {
				case ok && !reported:
					missed++
					t.Errorf("pair %s %s (exact %.4f) not reported", docs[i].ID, docs[j].ID, jac)
				case !ok && reported:
					t.Errorf("pair %s %s reported at %.4f, exact %.4f", docs[i].ID, docs[j].ID, sim, jac)
				case ok && math.Abs(sim-jac) > 1e-12:
					t.Errorf("pair %s %s: similarity %v, exact %v", docs[i].ID, docs[j].ID, sim, jac)
				}
				if ok {
					n++
				}
			}
		}
		if n < 100 {
			t.Fatalf("only %d pairs at or above %v: plant more", n, threshold)
		}
		// The queries, by ID and by text, agree with the pairs.
		for i, d := range docs {
			if !live[d.ID] || i%5 != 0 {
				continue
			}
			ms, err := x.Query(d.Text, opts)
			if err != nil {
				t.Fatal(err)
			}
			byID, err := x.QueryID(d.ID, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range [][]index.Match{ms, byID} {
				found := map[string]bool{}
				for _, m := range res {
					j := pos[m.ID]
					if j == i {
						continue
					}
					found[m.ID] = true
					jac, ok := want(i, j)
					if !ok || math.Abs(m.Similarity-jac) > 1e-12 {
						t.Errorf("query %s: match %s at %v, exact %v (expected %v)", d.ID, m.ID, m.Similarity, jac, ok)
					}
				}
				for j, e := range docs {
					if _, ok := want(i, j); ok && j != i && live[e.ID] && !found[e.ID] {
						t.Errorf("query %s: %s missing", d.ID, e.ID)
					}
				}
			}
		}
		if err := x.Check(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d pairs with exact similarity >= %v among the candidates, %d missed", n, threshold, missed)
	}
	all := map[string]bool{}
	for _, d := range docs {
		all[d.ID] = true
	}
	t.Run("bulk", func(t *testing.T) {
		x := newIndex(t, s)
		if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
			t.Fatal(err)
		}
		check(t, x, all)
		// Deletes and replaces keep the sets in step (Check).
		live := map[string]bool{}
		for id := range all {
			live[id] = true
		}
		for i := 0; i < len(docs); i += 7 {
			if _, err := x.Delete(docs[i].ID); err != nil {
				t.Fatal(err)
			}
			delete(live, docs[i].ID)
		}
		if err := x.Add(docs[1], docs[2]); err != nil { // replaced by themselves
			t.Fatal(err)
		}
		if err := x.AddFingerprint(docs[3].ID, ds[3].fp); err != nil { // text gone
			t.Fatal(err)
		}
		delete(live, docs[3].ID)
		check(t, x, live)
	})
	t.Run("incremental", func(t *testing.T) {
		x := newIndex(t, s)
		if err := x.Add(docs[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := x.Load(context.Background(), seqDocs(docs[1:]), &index.LoadOptions{BatchSize: 37}); err != nil {
			t.Fatal(err)
		}
		check(t, x, all)
	})
}

// TestVerifySettings checks which indexes and queries Verify is for.
func TestVerifySettings(t *testing.T) {
	t.Parallel()
	plain := newIndex(t, nil)
	if _, err := plain.Query([]byte("a text"), &index.QueryOptions{Verify: true}); !errors.Is(err, index.ErrSettings) {
		t.Fatalf("Verify without stored sets: %v", err)
	}
	nshash := newIndex(t, &index.Settings{StoreShingles: true, Text: index.TextSettings{Method: index.MethodNshash}})
	if _, err := nshash.Query([]byte("a text"), &index.QueryOptions{Verify: true}); !errors.Is(err, index.ErrSettings) {
		t.Fatalf("Verify with nshash: %v", err)
	}
	// Without MinHash, Verify allows a threshold: on the candidates of
	// the tables.
	x := newIndex(t, &index.Settings{StoreShingles: true, NoMinHash: true})
	a, err := os.ReadFile(filepath.Join("..", "testdata", "licenses", "MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(strings.ToUpper(string(a)) + "!")
	c := []byte(strings.Replace(string(a), "Permission", "Leave", 1))
	if err := x.Add(index.Doc{ID: "a", Text: a}, index.Doc{ID: "c", Text: c}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Query(b, &index.QueryOptions{MinSimilarity: 0.9}); !errors.Is(err, index.ErrSettings) {
		t.Fatalf("a threshold without MinHash or Verify: %v", err)
	}
	ms, err := x.Query(b, &index.QueryOptions{MinSimilarity: 0.95, Verify: true})
	if err != nil || len(ms) != 1 || ms[0].ID != "a" || ms[0].Similarity != 1 || !ms[0].Exact {
		t.Fatalf("verified query: %+v, %v", ms, err)
	}
	// One word changed in 160: five shingles of some 160 differ.
	ms, err = x.QueryID("a", &index.QueryOptions{MinSimilarity: 0.9, Verify: true})
	if err != nil || len(ms) != 1 || ms[0].ID != "c" || !(ms[0].Similarity > 0.9 && ms[0].Similarity < 1) || ms[0].Exact {
		t.Fatalf("verified query by ID: %+v, %v", ms, err)
	}
}

// TestSetMinSimilarity checks that a threshold on an index of a set method
// applies to the method's own similarity (shared sentences over the
// smaller set, for nshash), in queries and pairs.
func TestSetMinSimilarity(t *testing.T) {
	t.Parallel()
	x := newIndex(t, &index.Settings{Text: index.TextSettings{Method: index.MethodNshash, Sentences: 4}})
	s := []string{
		"The first sentence is about the weather in the north.",
		"A second sentence talks about the price of bread today.",
		"Then a third one describes the old bridge over the river.",
		"Finally the fourth sentence mentions a cat on the roof.",
		"Something else entirely is written in this other sentence.",
		"Another unrelated line about trains arriving late again.",
		"A last different sentence about mountains and their snow.",
	}
	a := strings.Join(s[:4], " ")
	b := strings.Join([]string{s[0], s[4], s[5], s[6]}, " ") // 1 of 4 shared
	c := strings.Join([]string{s[0], s[1], s[2], s[6]}, " ") // 3 of 4 shared
	if err := x.Add(index.Doc{ID: "b", Text: []byte(b)}, index.Doc{ID: "c", Text: []byte(c)}); err != nil {
		t.Fatal(err)
	}
	ms, err := x.Query([]byte(a), nil)
	if err != nil || len(ms) != 2 || ms[0].ID != "c" || ms[0].Similarity != 0.75 || ms[1].Similarity != 0.25 {
		t.Fatalf("query without a threshold: %+v, %v", ms, err)
	}
	ms, err = x.Query([]byte(a), &index.QueryOptions{MinSimilarity: 0.5})
	if err != nil || len(ms) != 1 || ms[0].ID != "c" {
		t.Fatalf("query with a threshold: %+v, %v", ms, err)
	}
	if err := x.Add(index.Doc{ID: "a", Text: []byte(a)}); err != nil {
		t.Fatal(err)
	}
	var got []string
	err = x.Pairs(context.Background(), &index.QueryOptions{MinSimilarity: 0.6}, func(p index.Pair) error {
		got = append(got, fmt.Sprintf("%s-%s %.2f", p.A, p.B, p.Similarity))
		return nil
	})
	if err != nil || fmt.Sprint(got) != "[a-c 0.75]" {
		t.Fatalf("pairs with a threshold: %v, %v", got, err)
	}
}
