package index_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// TestBandFilter checks that an index with Options.BandFilter answers
// every query as the same index without it, through bulk loads, adds that
// grow the filter many times over, replaces and deletes; and the same
// with 20,000 fingerprints added first and the index reopened, so that
// the filter is built small (sized by its keys) and then grows.
func TestBandFilter(t *testing.T) {
	t.Parallel()
	for _, fps := range []int{0, 20_000} {
		t.Run(fmt.Sprint(fps, "-fingerprints"), func(t *testing.T) { testBandFilter(t, fps) })
	}
}

func testBandFilter(t *testing.T, fps int) {
	docs := licenseTexts(t)
	dir := t.TempDir()
	open := func(name string, filter bool) *index.Index {
		return openIndex(t, filepath.Join(dir, name), &index.Options{NoSync: true, BandFilter: filter, Log: directLog,
			Settings: &index.Settings{ExpectedDocs: 10_000, MinBands: 1}})
	}
	plain, filtered := open("plain.simidx", false), open("filtered.simidx", true)
	rng := rand.New(rand.NewPCG(7, 8))
	if fps > 0 {
		ds := make([]index.Doc, fps)
		for i := range ds {
			ds[i] = index.Doc{ID: fmt.Sprint("fp", i), Fingerprint: rng.Uint64(), Precomputed: true}
		}
		for _, x := range []*index.Index{plain, filtered} {
			if err := x.Add(ds...); err != nil {
				t.Fatal(err)
			}
		}
		if err := filtered.Close(); err != nil {
			t.Fatal(err)
		}
		filtered = open("filtered.simidx", true)
	}
	edit := func(text []byte) []byte {
		ws := strings.Fields(string(text))
		for range 1 + len(ws)/10 {
			ws[rng.IntN(len(ws))] = fmt.Sprint("w", rng.IntN(1000))
		}
		return []byte(strings.Join(ws, " "))
	}
	check := func(when string) {
		t.Helper()
		for i, d := range docs {
			q := d.Text
			if i%2 == 1 {
				q = edit(q)
			}
			for _, o := range []*index.QueryOptions{nil, {MinSimilarity: 0.3}} {
				want, err1 := plain.Query(q, o)
				got, err2 := filtered.Query(q, o)
				if err1 != nil || err2 != nil || !slices.Equal(got, want) {
					t.Fatalf("%s: query %s (%+v): filtered %v, %v; plain %v, %v", when, d.ID, o, got, err2, want, err1)
				}
			}
		}
	}
	// A bulk load of half the licences.
	for _, x := range []*index.Index{plain, filtered} {
		if _, err := x.Load(context.Background(), seqDocs(docs[:len(docs)/2]), nil); err != nil {
			t.Fatal(err)
		}
	}
	check("after a bulk load")
	// Adds, one by one: edited copies, so that bands are shared; the
	// filter starts at room for 1024 postings and grows.
	for i := range 300 {
		d := docs[rng.IntN(len(docs))]
		doc := index.Doc{ID: fmt.Sprint("copy", i), Text: edit(d.Text)}
		if i%50 == 0 {
			doc.ID = docs[i%len(docs)].ID // a replace
		}
		for _, x := range []*index.Index{plain, filtered} {
			if err := x.Add(doc); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after adds")
	for _, x := range []*index.Index{plain, filtered} {
		if _, err := x.Delete(docs[0].ID, "copy7", "copy8"); err != nil {
			t.Fatal(err)
		}
	}
	check("after deletes")
	// An incremental load into the non-empty index.
	for _, x := range []*index.Index{plain, filtered} {
		if _, err := x.Load(context.Background(), seqDocs(docs[len(docs)/2:]), nil); err != nil {
			t.Fatal(err)
		}
	}
	check("after an incremental load")
}

// TestBandFilterConcurrent queries, on several goroutines, edited copies
// of documents another goroutine is adding one by one, through their
// bands alone (MaxDistance 0): a document whose Add returned must be
// found whenever its bands say so, whatever the filter's state.
func TestBandFilterConcurrent(t *testing.T) {
	t.Parallel()
	x, err := index.Open(filepath.Join(t.TempDir(), "c.simidx"), &index.Options{NoSync: true, BandFilter: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	fpr, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	rng := rand.New(rand.NewPCG(9, 10))
	texts, queries := make([][]byte, n), make([][]byte, n)
	opts := &index.QueryOptions{MaxDistance: index.ZeroDistance, MinSimilarity: 0.5}
	var expect []bool
	for i := range n {
		ws := make([]string, 80)
		for j := range ws {
			ws[j] = fmt.Sprint("w", rng.IntN(100000))
		}
		texts[i] = []byte(strings.Join(ws, " "))
		ws[40] = "changed"
		queries[i] = []byte(strings.Join(ws, " "))
		fa, sa, ba := fpr.Analyze(texts[i])
		sa, ba = slices.Clone(sa), slices.Clone(ba)
		fb, sb, bb := fpr.Analyze(queries[i])
		shared := sharedBands(ba, bb) > 0
		expect = append(expect, fa == fb || (shared && shingle.Estimate(sa, sb) >= 0.5))
	}
	if c := len(slices.DeleteFunc(slices.Clone(expect), func(e bool) bool { return !e })); c < n/2 {
		t.Fatalf("only %d of %d copies share a band: the test would test little", c, n)
	}
	var done atomic.Int64 // documents whose Add returned
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 3 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 11))
			for done.Load() < n {
				d := int(done.Load())
				if d == 0 {
					continue
				}
				j := r.IntN(d)
				ms, err := x.Query(queries[j], opts)
				if err != nil {
					errs <- err
					return
				}
				found := slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == fmt.Sprint(j) })
				if expect[j] && !found {
					errs <- fmt.Errorf("document %d, added, not found through its bands: %v", j, ms)
					return
				}
			}
		})
	}
	for i := range n {
		if err := x.Add(index.Doc{ID: fmt.Sprint(i), Text: texts[i]}); err != nil {
			t.Fatal(err)
		}
		done.Store(int64(i + 1))
	}
	waitErrs(t, &wg, errs)
}

// TestExactFilter checks the filter's exact hashes. With MethodShort the
// texts, which have no word of four letters, have empty sets, so a stored
// text is found only through its exact hash; nshash and simhash find the
// same texts through their sentence postings and tables as well, and are
// checked for answers equal to the plain index's. The filtered index must
// answer as the plain one, and find every stored text, through adds that
// grow the filter, replaces, deletes, a reopen and an incremental load;
// and a query that runs while another goroutine adds must find every text
// whose Add returned.
func TestExactFilter(t *testing.T) {
	t.Parallel()
	for _, method := range []index.Method{index.MethodShort, index.MethodNshash, index.MethodSimhash} {
		t.Run(string(method), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			open := func(name string, filter bool) *index.Index {
				x, err := index.Open(filepath.Join(dir, name), &index.Options{NoSync: true, BandFilter: filter,
					Settings: &index.Settings{ExpectedDocs: 10_000, Text: index.TextSettings{Method: method}}})
				if err != nil {
					t.Fatal(err)
				}
				return x
			}
			plain, filtered := open("plain.simidx", false), open("filtered.simidx", true)
			defer func() { plain.Close(); filtered.Close() }()
			text := func(i int) []byte { return fmt.Appendf(nil, "ab %d cd %d", i%7, i) }
			for _, x := range []*index.Index{plain, filtered} {
				for i := range 1500 { // the filter starts at room for 1024 keys
					if err := x.Add(index.Doc{ID: fmt.Sprint("d", i), Text: text(i)}); err != nil {
						t.Fatal(err)
					}
				}
				if err := x.Add(index.Doc{ID: "d3", Text: text(2000)}); err != nil { // a replace
					t.Fatal(err)
				}
				if _, err := x.Delete("d4"); err != nil {
					t.Fatal(err)
				}
			}
			check := func(when string, n int) {
				t.Helper()
				for i := range n {
					want, err1 := plain.Query(text(i), nil)
					got, err2 := filtered.Query(text(i), nil)
					if err1 != nil || err2 != nil || !slices.Equal(got, want) {
						t.Fatalf("%s: query %q: filtered %v, %v; plain %v, %v", when, text(i), got, err2, want, err1)
					}
					// (With simhash a near text may match the two
					// removed ones.)
					if found, want := len(got) > 0, i != 3 && i != 4; found != want && (want || method != index.MethodSimhash) {
						t.Fatalf("%s: query %q: %v", when, text(i), got)
					}
				}
			}
			check("after adds", 1500)
			if err := filtered.Close(); err != nil {
				t.Fatal(err)
			}
			filtered = open("filtered.simidx", true)
			check("after a reopen", 1500)
			more := func(yield func(index.Doc, error) bool) {
				for i := 1500; i < 3000; i++ {
					if !yield(index.Doc{ID: fmt.Sprint("d", i), Text: text(i)}, nil) {
						return
					}
				}
			}
			for _, x := range []*index.Index{plain, filtered} {
				if _, err := x.Load(context.Background(), more, nil); err != nil {
					t.Fatal(err)
				}
			}
			check("after an incremental load", 3000)

			// Queries while another goroutine adds.
			var done atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, 3)
			for g := range 2 {
				wg.Go(func() {
					for k := 0; done.Load() < 500; k++ {
						n := done.Load()
						if n == 0 {
							continue
						}
						i := 10_000 + (k*7+g)%int(n)
						ms, err := filtered.Query(text(i), nil)
						if err != nil || len(ms) == 0 {
							errs <- fmt.Errorf("query %q of an added text: %v, %v", text(i), ms, err)
							return
						}
					}
				})
			}
			for i := range 500 {
				if err := filtered.Add(index.Doc{ID: fmt.Sprint("c", i), Text: text(10_000 + i)}); err != nil {
					t.Fatal(err)
				}
				done.Store(int64(i + 1))
			}
			waitErrs(t, &wg, errs)
		})
	}
}
