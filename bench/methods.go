package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// methodCorpora are the corpora the methods are compared on: short texts
// first, then long ones. The short ones have their ground truth on word
// 3-shingles (the corpora README's choice for fortunes-ru; fortunes-en is
// given the same, its documents being as short), the long ones on word
// 5-shingles, as in the ground-truth section.
var methodCorpora = []struct {
	corpusSpec
	Short bool
}{
	{corpusSpec{"fortunes-en", "words", 3}, true},
	{corpusSpec{"fortunes-ru", "words", 3}, true},
	{corpusSpec{brownSentences, "words", 3}, true},
	{corpusSpec{"spdx-licenses", "words", 5}, false},
	{corpusSpec{"manpages-en", "words", 5}, false},
	{corpusSpec{"spamassassin-body", "words", 5}, false},
}

// methodSpec is one way of building and querying an index.
type methodSpec struct {
	Name     string
	Settings index.Settings
	// Sims are the QueryOptions.MinSimilarity of the Pairs runs, one row
	// each, 0 meaning the default (nil options: the index's own rule); nil
	// means one run with nil options.
	Sims []float64
	// Verify runs Pairs with QueryOptions.Verify: exact similarities from
	// the stored shingle sets (Settings.StoreShingles).
	Verify bool
}

// methodSpecs are the methods compared, each with its defaults except
// where named.
var methodSpecs = []methodSpec{
	{Name: "simhash + MinHash (default)", Settings: index.Settings{}, Sims: []float64{0, 0.8}},
	{Name: "simhash + MinHash, no short-text layer", Settings: index.Settings{ShortUnits: index.NoShortLayer}, Sims: []float64{0}},
	{Name: "simhash + MinHash, 2 of 14 bands", Settings: index.Settings{MinBands: 2}, Sims: []float64{0.6, 0.8}},
	{Name: "simhash + MinHash, verified", Settings: index.Settings{StoreShingles: true}, Sims: []float64{0, 0.8}, Verify: true},
	{Name: noMinHashMethod, Settings: index.Settings{NoMinHash: true}},
	{Name: "nshash", Settings: index.Settings{Text: index.TextSettings{Method: index.MethodNshash}}},
	{Name: "short", Settings: index.Settings{Text: index.TextSettings{Method: index.MethodShort}}},
	{Name: "mfonda", Settings: index.Settings{Text: index.TextSettings{Method: index.MethodMfonda}}},
}

// noMinHashMethod names the simhash index without the MinHash layer, whose
// pairs are checked against brute force.
const noMinHashMethod = "simhash, no MinHash"

// maxMethodPairs caps the pairs one Pairs run may report
// (QueryOptions.Limit): a method that finds most of a corpus similar (mfonda
// on Cyrillic text, where every document has the fingerprint of an empty
// text) would otherwise list n²/2 pairs for minutes. A run stopped at the
// cap is not scored.
var maxMethodPairs = 10_000_000

// methodRun is one Pairs run of one method on one corpus.
type methodRun struct {
	Method      string
	Param       string
	Load        time.Duration // index.Load into a new index, Open to the end of Load
	BytesPerDoc float64       // index bytes (pages in use) per document
	PairsTime   time.Duration
	Stopped     bool // Pairs stopped at maxMethodPairs: Res is not a score
	EmptyFP     int  // documents whose fingerprint is that of an empty text
	Res         methodResult
	// T is the run's similarity threshold (0: none, the fingerprint or
	// the method's rule), and UnderT the reported pairs whose exact
	// Jaccard similarity is below it.
	T      float64
	UnderT int
}

// methodsCorpus is the comparison on one corpus.
type methodsCorpus struct {
	Spec     corpusSpec
	Short    bool
	Total    int // documents read (after the sample cap)
	Docs     int // documents indexed: those with at least one shingle
	Bytes    int64
	Pairs    int // true pairs, J >= truthFloor
	PerBin   []int
	Sampled  bool   // the corpus was cut to its first documents
	Check    string // index.Pairs of the default against brute force
	Runs     []methodRun
	JoinTime time.Duration
}

// runMethods builds an index of every method on one corpus and scores the
// pairs it reports against the ground truth. maxDocs > 0 keeps only the
// first maxDocs documents.
func runMethods(spec corpusSpec, short bool, path string, maxDocs int, logw io.Writer) (*methodsCorpus, error) {
	c, err := loadTruth(spec, path, maxDocs)
	if err != nil {
		return nil, err
	}
	res := &methodsCorpus{Spec: spec, Short: short, Total: len(c.Texts) + c.Empty, Docs: len(c.Texts), Pairs: len(c.Truth), JoinTime: c.JoinTime}
	res.Sampled = maxDocs > 0 && res.Total == maxDocs
	for _, t := range c.Texts {
		res.Bytes += int64(len(t))
	}
	_, res.PerBin = eval.RecallByBin(c.Truth, nil, truthBins)
	dir, err := os.MkdirTemp("", "simidx-methods-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	for i, m := range methodSpecs {
		runs, err := runMethod(m, filepath.Join(dir, fmt.Sprintf("m%d.db", i)), c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		for _, r := range runs {
			fmt.Fprintf(logw, "bench:   %s %s %s: %d pairs (stopped at the cap: %v), F1 (J>=0.8) %.3f, load %s, Pairs %s\n",
				spec.Name, r.Method, r.Param, r.Res.Reported, r.Stopped, r.Res.Hi.F1(), dur(r.Load), dur(r.PairsTime))
		}
		res.Runs = append(res.Runs, runs...)
	}
	// The pairs of simhash without MinHash against brute force over the
	// same fingerprints: index.Pairs must report exactly the pairs within k.
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		return nil, err
	}
	fps := make([]uint64, len(c.Texts))
	for i, t := range c.Texts {
		fps[i] = f.Sum64(t)
	}
	brute := pairsWithin(fps, indexK)
	res.Check = fmt.Sprintf("index.Pairs without MinHash = brute force over the fingerprints (%d pairs within %d bits)", len(brute), indexK)
	for _, r := range res.Runs {
		if r.Method == noMinHashMethod && r.Res.Reported != len(brute) {
			res.Check = fmt.Sprintf("**index.Pairs without MinHash reports %d pairs, brute force over the fingerprints %d**", r.Res.Reported, len(brute))
		}
	}
	return res, nil
}

// runMethod loads the corpus into a new index at path with m's settings,
// then runs Pairs once per similarity threshold.
func runMethod(m methodSpec, path string, c *corpusTruth) ([]methodRun, error) {
	s := m.Settings
	var src iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
		for i, t := range c.Texts {
			if !yield(index.Doc{ID: strconv.Itoa(i), Text: t}, nil) {
				return
			}
		}
	}
	f, err := index.NewFingerprinter(&s)
	if err != nil {
		return nil, err
	}
	emptyFP, emptyN := f.Sum64(nil), 0
	for _, t := range c.Texts {
		if f.Sum64(t) == emptyFP {
			emptyN++
		}
	}
	t0 := time.Now()
	x, err := index.Open(path, &index.Options{Settings: &s})
	if err != nil {
		return nil, err
	}
	defer x.Close()
	if _, err := x.Load(context.Background(), src, nil); err != nil {
		return nil, err
	}
	load := time.Since(t0)
	st, err := x.Stats()
	if err != nil {
		return nil, err
	}
	sims := m.Sims
	if sims == nil {
		sims = []float64{0}
	}
	var out []methodRun
	for _, sim := range sims {
		opts := &index.QueryOptions{MinSimilarity: sim, Limit: maxMethodPairs + 1, Verify: m.Verify}
		param := fmt.Sprintf("k=%d", indexK)
		switch {
		case m.Settings.Text.Method.IsSet():
			param = "its rule"
		case sim > 0:
			param = fmt.Sprintf("t=%.1f", sim)
		case m.Sims != nil:
			param = fmt.Sprintf("t=%.1f (default)", index.DefaultMinSimilarity)
		}
		sc := newPairScorer(c.Truth)
		d, err := indexPairs(x, opts, sc.add)
		if err != nil {
			return nil, err
		}
		run := methodRun{Method: m.Name, Param: param, Load: load, BytesPerDoc: st.BytesPerDoc, PairsTime: d,
			Stopped: sc.n > maxMethodPairs, EmptyFP: emptyN, Res: sc.result(m.Name, param)}
		if m.Sims != nil {
			run.T = sim
			if sim == 0 {
				run.T = index.DefaultMinSimilarity
			}
			run.UnderT = sc.below // below the truth's floor, so below T
			for p := range sc.found {
				if c.Truth[p] < run.T-1e-12 {
					run.UnderT++
				}
			}
		}
		out = append(out, run)
	}
	return out, nil
}

// pairScorer scores reported pairs as they come, holding only those in the
// truth: a method may report millions of false pairs.
type pairScorer struct {
	truth    map[eval.Pair]float64
	found    map[eval.Pair]bool // reported pairs of the truth
	n, below int                // pairs reported; of them, not in the truth
}

func newPairScorer(truth map[eval.Pair]float64) *pairScorer {
	return &pairScorer{truth: truth, found: map[eval.Pair]bool{}}
}

// add counts one reported pair; each pair must be added once.
func (s *pairScorer) add(p eval.Pair) {
	s.n++
	if _, ok := s.truth[p]; ok {
		s.found[p] = true
	} else {
		s.below++
	}
}

// result is what score gives for every pair added: the pairs below the
// floor are false positives in every score.
func (s *pairScorer) result(method, param string) methodResult {
	r := score(method, param, s.truth, s.found)
	r.Reported, r.Below = s.n, s.below
	r.Hi.FP += s.below
	r.HiStrict.FP += s.below
	r.All.FP += s.below
	return r
}

// indexPairs calls fn with every pair index.Pairs reports, as positions
// (the IDs runMethod gives), and returns the time Pairs took.
func indexPairs(x *index.Index, opts *index.QueryOptions, fn func(eval.Pair)) (time.Duration, error) {
	t0 := time.Now()
	err := x.Pairs(context.Background(), opts, func(p index.Pair) error {
		a, err := strconv.Atoi(p.A)
		if err != nil {
			return err
		}
		b, err := strconv.Atoi(p.B)
		if err != nil {
			return err
		}
		fn(eval.MakePair(a, b))
		return nil
	})
	return time.Since(t0), err
}

// methodsMain is the methods subcommand.
func methodsMain(args []string) error {
	fs := flag.NewFlagSet("methods", flag.ExitOnError)
	corpora := fs.String("corpora", "", "directory of the JSONL corpora (required)")
	maxDocs := fs.Int("max-docs", 0, "use only the first N documents of each corpus (0: all)")
	fs.Parse(args)
	if *corpora == "" {
		return fmt.Errorf("methods: --corpora is required")
	}
	var res []*methodsCorpus
	for _, mc := range methodCorpora {
		p, err := corpusPath(*corpora, mc.Name)
		if err != nil {
			return err
		}
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s not found, skipped\n", p)
			continue
		}
		r, err := runMethods(mc.corpusSpec, mc.Short, p, *maxDocs, os.Stderr)
		if err != nil {
			return fmt.Errorf("methods %s: %w", mc.Name, err)
		}
		res = append(res, r)
	}
	fmt.Printf("machine: %s\n\n", machine())
	writeMethods(os.Stdout, res)
	return nil
}

// methodTable writes a table of a row per run (those keep selects, all if
// nil) and a column per corpus, headed by head, each cell made by cell.
func methodTable(w io.Writer, res []*methodsCorpus, head func(*methodsCorpus) string, keep func(methodRun) bool, cell func(*methodsCorpus, methodRun) string) {
	fmt.Fprint(w, "| method | param |")
	for _, c := range res {
		fmt.Fprintf(w, " %s |", head(c))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|---|")
	for range res {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for i, run := range res[0].Runs {
		if keep != nil && !keep(run) {
			continue
		}
		fmt.Fprintf(w, "| %s | %s |", run.Method, run.Param)
		for _, c := range res {
			fmt.Fprintf(w, " %s |", cell(c, c.Runs[i]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// writeMethods writes the comparison: F1 by corpus and method, then a table
// per corpus.
func writeMethods(w io.Writer, res []*methodsCorpus) {
	if len(res) == 0 {
		return
	}
	fmt.Fprintln(w, "F1 for pairs with J >= 0.8 (the grey zone 0.5-0.8 neither rewarded nor punished), by corpus and method, with (precision / recall) beside it. Kind: *short* texts (fortunes) or *long* ones. Where a corpus has no pair with J >= 0.8 the cell gives the pairs reported, those with J < 0.5, and the recall of the pairs with J >= 0.5.")
	fmt.Fprintln(w)
	methodTable(w, res, func(c *methodsCorpus) string {
		kind := "long"
		if c.Short {
			kind = "short"
		}
		return fmt.Sprintf("%s (%s)", c.Spec.Name, kind)
	}, nil, func(c *methodsCorpus, r methodRun) string { return hiCell(r) })
	fmt.Fprintln(w, "Pairs reported below their own threshold: of the pairs a run with a similarity threshold t reports, those whose exact Jaccard similarity (the ground truth) is below t, and their share. The MinHash estimate puts pairs near t on either side of it; `Verify` (`--verify`) compares the exact similarity instead.")
	fmt.Fprintln(w)
	methodTable(w, res, func(c *methodsCorpus) string { return c.Spec.Name },
		func(r methodRun) bool { return r.T > 0 },
		func(c *methodsCorpus, r methodRun) string {
			return fmt.Sprintf("%d of %d (%s)", r.UnderT, r.Res.Reported, ratio(r.UnderT, r.Res.Reported))
		})
	fmt.Fprintln(w, "Speed, by corpus and method: documents loaded per second (`index.Load` into a new index, from `Open` to the end of the load), index bytes per document, and the time of `Pairs`.")
	fmt.Fprintln(w)
	methodTable(w, res, func(c *methodsCorpus) string { return c.Spec.Name + ": docs/s, bytes/doc, Pairs" }, nil,
		func(c *methodsCorpus, r methodRun) string {
			return fmt.Sprintf("%.0f, %.0f, %s", float64(c.Docs)/r.Load.Seconds(), r.BytesPerDoc, dur(r.PairsTime))
		})
	for _, c := range res {
		fmt.Fprintf(w, "#### %s (methods)\n\n", c.Spec.Name)
		sample := ""
		if c.Sampled {
			sample = fmt.Sprintf(" (the first %d documents of the corpus)", c.Total)
		}
		fmt.Fprintf(w, "%d documents indexed%s, %d without shingles left out, %.1f MB of text; %d pairs with %s Jaccard >= %.1f (join %.2fs). %s.",
			c.Docs, sample, c.Total-c.Docs, float64(c.Bytes)/1e6, c.Pairs, c.Spec, truthFloor, c.JoinTime.Seconds(), c.Check)
		seen := map[string]bool{}
		for _, r := range c.Runs {
			if r.EmptyFP > 0 && !seen[r.Method] {
				seen[r.Method] = true
				fmt.Fprintf(w, " With %s, %d documents (%.0f%%) have the fingerprint of an empty text.", r.Method, r.EmptyFP, 100*float64(r.EmptyFP)/float64(c.Docs))
			}
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w)
		fmt.Fprint(w, "| method | param | reported | J<0.5 reported |")
		for i, b := range truthBins {
			fmt.Fprintf(w, " recall %s (%d) |", b, c.PerBin[i])
		}
		fmt.Fprintln(w, " P (J>=0.8) | R (J>=0.8) | F1 (J>=0.8) | F1 strict (J>=0.8) | P (J>=0.5) | R (J>=0.5) | load | docs/s | bytes/doc | Pairs time |")
		fmt.Fprint(w, "|---|---|---|---|")
		for range truthBins {
			fmt.Fprint(w, "---|")
		}
		fmt.Fprintln(w, "---|---|---|---|---|---|---|---|---|---|")
		for _, r := range c.Runs {
			m := r.Res
			speed := fmt.Sprintf(" %s | %.0f | %.0f | %s |", dur(r.Load), float64(c.Docs)/r.Load.Seconds(), r.BytesPerDoc, dur(r.PairsTime))
			if r.Stopped {
				fmt.Fprintf(w, "| %s | %s | over %d (Pairs stopped) | - |%s not scored | - | - | - | - | - |%s\n",
					r.Method, r.Param, maxMethodPairs, strings.Repeat(" - |", len(truthBins)), speed)
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %d | %d |", r.Method, r.Param, m.Reported, m.Below)
			for i := range truthBins {
				fmt.Fprintf(w, " %s |", ratio(m.Found[i], m.Total[i]))
			}
			fmt.Fprintf(w, " %s | %s | %s | %s | %s | %s |%s\n", f3(m.Hi.Precision(), m.Hi.TP+m.Hi.FP), f3(m.Hi.Recall(), m.Hi.TP+m.Hi.FN),
				f3(m.Hi.F1(), m.Hi.TP+m.Hi.FN), f3(m.HiStrict.F1(), m.HiStrict.TP+m.HiStrict.FN),
				f3(m.All.Precision(), m.All.TP+m.All.FP), f3(m.All.Recall(), m.All.TP+m.All.FN), speed)
		}
		fmt.Fprintln(w)
	}
}

// hiCell is "F1 (P / R)" at J >= 0.8, or why there is none.
func hiCell(r methodRun) string {
	m := r.Res
	switch {
	case r.Stopped:
		return fmt.Sprintf("not scored: over %d pairs", maxMethodPairs)
	case m.Hi.TP+m.Hi.FN == 0:
		return fmt.Sprintf("n/a: %d reported, %d J<0.5, R (J>=0.5) %s", m.Reported, m.Below, f3(m.All.Recall(), m.All.TP+m.All.FN))
	}
	return fmt.Sprintf("**%.3f** (%s / %.3f)", m.Hi.F1(), f3(m.Hi.Precision(), m.Hi.TP+m.Hi.FP), m.Hi.Recall())
}

// f3 formats a score with three decimals, or "-" when its denominator n is
// zero.
func f3(v float64, n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// methodsIntro describes the methods section of benchmarks.md.
func methodsIntro() string {
	var names []string
	for _, m := range methodSpecs {
		names = append(names, m.Name)
	}
	return fmt.Sprintf("Every method of the index (%s) on the same corpora, short and long: for each corpus and method a new index is built with `index.Load` (`index.Settings` with the method's defaults; k = %d), its pairs listed with `index.Pairs` (nil options: the index's own rule, which on the default index is t=%.1f; the other MinHash rows with `QueryOptions{MinSimilarity: t}`; with MinHash a pair is a candidate when it shares a band, or 2 of the 14 bands with `MinBands: 2`, or is within k bits, and is reported when its estimated Jaccard reaches t), and scored against the ground truth of the corpus, as in [the ground truth section](#ground-truth-on-real-corpora) (subcommand `methods`). `dom` is left out: it fingerprints HTML tag structure, not text. The MinHash layer's estimates are over its default word 5-shingles, also on the fortunes, whose truth is on 3-shingles.",
		strings.Join(names, ", "), indexK, index.DefaultMinSimilarity)
}
