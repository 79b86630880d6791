package index_test

// The helpers shared by the tests of package index_test: indexes in
// temporary directories, corpora of fingerprints and of texts, sources for
// Load, brute-force answers.

import (
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
)

// Indexes.

// newIndex creates an index in a temporary directory whose Add and Delete
// commit to the file at once (LogOptions.Direct): the tests of the file's
// queries; those of the log open theirs with it.
func newIndex(t testing.TB, s *index.Settings) *index.Index {
	t.Helper()
	return openIndex(t, filepath.Join(t.TempDir(), "test.simidx"), &index.Options{Settings: s, NoSync: true, Log: directLog})
}

// openIndex opens the index at path with o, failing t if it cannot, and
// closes it when the test ends.
func openIndex(t testing.TB, path string, o *index.Options) *index.Index {
	t.Helper()
	x, err := index.Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// nearPair returns a new index of two documents one bit apart, "a" and
// "b", added as fingerprints.
func nearPair(t *testing.T) *index.Index {
	t.Helper()
	x := newIndex(t, nil)
	if err := x.AddFingerprint("a", 1); err != nil {
		t.Fatal(err)
	}
	if err := x.AddFingerprint("b", 3); err != nil {
		t.Fatal(err)
	}
	return x
}

// populated returns the path of a closed index holding 2000 fingerprints.
func populated(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "x.simidx")
	x, err := index.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &corpus{}
	for i := range 2000 {
		c.add(childFP(i))
	}
	var docs []index.Doc
	for d := range c.docs() {
		docs = append(docs, d)
	}
	if err := x.Add(docs...); err != nil {
		t.Fatal(err)
	}
	x.Close()
	return path
}

// Fingerprints.

// childFP is the fingerprint of document i in the tests that need
// fingerprints known beforehand: the crash test's child process gives it
// to document i.
func childFP(i int) uint64 { return uint64(i)*0x9E3779B97F4A7C15 ^ 0xDEADBEEF }

// flip returns fp with d distinct random bits flipped.
func flip(rng *rand.Rand, fp uint64, d int) uint64 {
	out := fp
	for bits.OnesCount64(out^fp) < d {
		out ^= 1 << rng.IntN(64)
	}
	return out
}

// corpus is a set of fingerprints with IDs.
type corpus struct {
	ids []string
	fps []uint64
}

func (c *corpus) add(fp uint64) {
	c.ids = append(c.ids, fmt.Sprintf("d%06d", len(c.ids)))
	c.fps = append(c.fps, fp)
}

func (c *corpus) docs() iter.Seq2[index.Doc, error] {
	return func(yield func(index.Doc, error) bool) {
		for i := range c.ids {
			if !yield(index.Doc{ID: c.ids[i], Fingerprint: c.fps[i], Precomputed: true}, nil) {
				return
			}
		}
	}
}

// brute returns the matches of fp within d by exhaustive scan.
func (c *corpus) brute(fp uint64, d int) []index.Match {
	var ms []index.Match
	for i, g := range c.fps {
		if dist := bits.OnesCount64(g ^ fp); dist <= d {
			ms = append(ms, index.Match{ID: c.ids[i], Distance: dist})
		}
	}
	slices.SortFunc(ms, func(a, b index.Match) int {
		if a.Distance != b.Distance {
			return a.Distance - b.Distance
		}
		if a.ID < b.ID {
			return -1
		}
		return 1
	})
	return ms
}

// Texts.

// words is a vocabulary for generated text.
var words = strings.Fields(`market council river station winter minister harbour village
	railway election committee agreement festival hospital teacher museum bridge factory
	weather airport summer company budget police students farmers storm report region
	highway concert library program network energy company prices housing tourism
	fishermen orchestra parliament engineers volunteers mountain coastline gallery`)

// sentence returns a random sentence of n words.
func sentence(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[rng.IntN(len(words))]
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ") + "."
}

// licenseTexts returns the licence texts of testdata/licenses, each under
// its file name, in the order of the names.
func licenseTexts(t testing.TB) []index.Doc {
	t.Helper()
	files, err := filepath.Glob("../testdata/licenses/*.txt")
	if err != nil || len(files) < 20 {
		t.Fatalf("licences: %d files, %v", len(files), err)
	}
	var docs []index.Doc
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, index.Doc{ID: filepath.Base(f), Text: b})
	}
	return docs
}

// licenseDocs returns the licence texts of testdata/licenses as the
// documents of the set-method tests, without their analyses.
func licenseDocs(t *testing.T) []setDoc {
	t.Helper()
	var docs []setDoc
	for _, d := range licenseTexts(t) {
		docs = append(docs, setDoc{id: d.ID, text: d.Text})
	}
	return docs
}

// textDocs returns the documents of docs, their IDs and texts.
func textDocs(docs []setDoc) []index.Doc {
	out := make([]index.Doc, len(docs))
	for i, d := range docs {
		out[i] = index.Doc{ID: d.id, Text: d.text}
	}
	return out
}

// verifyCorpus returns real texts (the licences of testdata and the
// multilingual sample) with planted edits of every kind at several rates,
// so that exact similarities spread over the whole range.
func verifyCorpus(t *testing.T) []index.Doc {
	t.Helper()
	docs := licenseTexts(t)
	sample, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range sample {
		docs = append(docs, index.Doc{ID: d.ID, Text: []byte(d.Text)})
	}
	rng := rand.New(rand.NewPCG(7, 8))
	base := len(docs)
	for i := range base {
		for j, rate := range []float64{0.02, 0.1, 0.25} {
			e := eval.Edits[(i+j)%len(eval.Edits)]
			text := eval.Apply(rng, string(docs[i].Text), e, rate)
			docs = append(docs, index.Doc{ID: fmt.Sprintf("%s~%s%.2f", docs[i].ID, e, rate), Text: []byte(text)})
		}
	}
	docs = append(docs, index.Doc{ID: "empty", Text: []byte(" -- ")}, index.Doc{ID: "empty-too"})
	return docs
}

// seqDocs yields docs, as a source for Load.
func seqDocs(docs []index.Doc) iter.Seq2[index.Doc, error] {
	return func(yield func(index.Doc, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// Brute force.

// bruteClusters returns the connected components of size >= 2 of the
// brute-force pairs, IDs sorted, in representative order.
func bruteClusters(ids []string, pairs map[[2]string]int) [][]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(s string) string {
		p, ok := parent[s]
		if !ok || p == s {
			return s
		}
		r := find(p)
		parent[s] = r
		return r
	}
	for p := range pairs {
		a, b := find(p[0]), find(p[1])
		if a != b {
			parent[max(a, b)] = min(a, b)
		}
	}
	groups := map[string][]string{}
	for _, id := range ids {
		r := find(id)
		groups[r] = append(groups[r], id)
	}
	var out [][]string
	for _, g := range groups {
		if len(g) >= 2 {
			slices.Sort(g)
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b []string) int {
		if a[0] < b[0] {
			return -1
		}
		return 1
	})
	return out
}

// Concurrency.

// waitErrs waits for the goroutines of wg, which send their errors on
// errs, and fails t with the first.
func waitErrs(t *testing.T, wg *sync.WaitGroup, errs chan error) {
	t.Helper()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// stress reports whether SIMIDX_STRESS is set (as .ci/run sets it): the
// long randomized and damage tests then run at their full size, and
// otherwise at a size that keeps the suite within minutes on a busy
// machine.
func stress() bool { return os.Getenv("SIMIDX_STRESS") != "" }

// layerSimilarity is the similarity of the MinHash layer, written out for
// brute-force answers: two short texts (both with a short set, see
// Settings.ShortUnits) by the Jaccard similarity of their short sets,
// others by the estimate from their signatures.
func layerSimilarity(sigA, shortA, sigB, shortB []uint64) float64 {
	if len(shortA) > 0 && len(shortB) > 0 {
		return shingle.Jaccard(shortA, shortB)
	}
	return shingle.Estimate(sigA, sigB)
}

// sharedBands counts the bands two texts share, written out for
// brute-force answers: a zero band is one a text does not have (a band of
// the short-text layer of a longer text).
func sharedBands(a, b []uint64) int {
	n := 0
	for i := range a {
		if a[i] == b[i] && a[i] != 0 {
			n++
		}
	}
	return n
}
