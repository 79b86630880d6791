package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
)

// corpusSpec names a corpus and the shingles its ground truth is measured
// on.
type corpusSpec struct {
	Name string // file name without .jsonl
	Unit string // "words" or "chars"
	Size int    // units per shingle
}

func (c corpusSpec) String() string {
	u := "word"
	if c.Unit == "chars" {
		u = "char"
	}
	return fmt.Sprintf("%s %d-shingles", u, c.Size)
}

func (c corpusSpec) shingler() (*shingle.Shingler, error) {
	o := shingle.Options{Size: c.Size}
	if c.Unit == "chars" {
		o.Unit = shingle.Chars
	}
	return shingle.NewShingler(&o)
}

// truthCorpora are the real corpora with ground truth, with the shingles of
// shared/corpora/README.md.
var truthCorpora = []corpusSpec{
	{"spamassassin-body", "words", 5},
	{"spdx-licenses", "words", 5},
	{"fortunes-ru", "words", 3},
	{"manpages-en", "words", 5},
	{"manpages-ru", "words", 5},
	{"manpages-ja", "chars", 5},
}

// Thresholds of the evaluation.
const (
	truthFloor = 0.5 // the join's floor: every pair at or above is in the truth
	positiveHi = 0.8 // the target class
	maxK       = 8   // simhash distances evaluated: 0..maxK
	indexK     = index.DefaultMaxDistance
)

var (
	truthBins   = eval.Bins(truthFloor, 0.1)
	mhThreshold = []float64{0.5, 0.6, 0.7, 0.8, 0.9}
)

// methodResult is how one detector (a method with one parameter) fares
// against the ground truth.
type methodResult struct {
	Method   string
	Param    string
	Reported int   // pairs reported
	Below    int   // reported pairs with true Jaccard below the floor (false positives in every score)
	Found    []int // true pairs reported, per truthBins
	Total    []int // true pairs, per truthBins
	Hi       eval.Counts
	HiStrict eval.Counts
	All      eval.Counts
}

// score compares reported pairs with the truth (every pair with Jaccard >=
// truthFloor). Hi: positives J >= 0.8, reported pairs in [0.5, 0.8) are
// neither rewarded nor punished, below 0.5 false positives. HiStrict: the
// same positives, every other reported pair a false positive. All:
// positives J >= 0.5.
func score(method, param string, truth map[eval.Pair]float64, reported map[eval.Pair]bool) methodResult {
	r := methodResult{Method: method, Param: param, Reported: len(reported)}
	for p := range reported {
		if _, ok := truth[p]; !ok {
			r.Below++
		}
	}
	r.Found, r.Total = eval.RecallByBin(truth, reported, truthBins)
	r.Hi = eval.Score(truth, reported, positiveHi, truthFloor)
	r.HiStrict = eval.Score(truth, reported, positiveHi, positiveHi)
	r.All = eval.Score(truth, reported, truthFloor, truthFloor)
	return r
}

// truthResult is the ground-truth evaluation of one corpus.
type truthResult struct {
	Spec       corpusSpec
	Path       string
	Docs       int // documents evaluated (with at least one shingle)
	Empty      int // documents without shingles, left out
	Pairs      int // true pairs
	PerBin     []int
	JoinTime   time.Duration
	CrossCheck string // result of the brute-force cross-check on a sample
	Simhash    []methodResult
	MinHash    []methodResult // candidates: a shared band
	MinHashIdx []methodResult // candidates: a shared band or within indexK bits, as the index does
	Candidates int            // pairs sharing a band
	DefaultByK []methodResult // the default rule (a band or within k bits, estimate >= DefaultMinSimilarity) by k
	Variants   []methodResult // MinHash K/bands alternatives (spamassassin-body only)
}

// corpusTruth is a corpus and its ground truth.
type corpusTruth struct {
	Texts    [][]byte   // the documents with at least one shingle, in corpus order
	Sets     [][]uint64 // their shingle sets
	Empty    int        // documents without shingles, left out
	Truth    map[eval.Pair]float64
	JoinTime time.Duration
}

// loadTruth reads a corpus and computes its ground truth: every pair of
// documents whose shingle sets have Jaccard >= truthFloor, by the exact
// join. Pairs are positions in Texts. maxDocs > 0 keeps only the first
// maxDocs documents.
func loadTruth(spec corpusSpec, path string, maxDocs int) (*corpusTruth, error) {
	docs, err := testcorpus.Load(path)
	if err != nil {
		return nil, err
	}
	if maxDocs > 0 && len(docs) > maxDocs {
		docs = docs[:maxDocs]
	}
	sh, err := spec.shingler()
	if err != nil {
		return nil, err
	}
	c := &corpusTruth{Truth: map[eval.Pair]float64{}}
	for _, d := range docs {
		s := shingle.Set(sh.AppendHashes(nil, []byte(d.Text)))
		if len(s) == 0 {
			c.Empty++
			continue
		}
		c.Sets = append(c.Sets, s)
		c.Texts = append(c.Texts, []byte(d.Text))
	}
	t0 := time.Now()
	if err := eval.Join(c.Sets, truthFloor, func(i, j int, s float64) { c.Truth[eval.MakePair(i, j)] = s }); err != nil {
		return nil, err
	}
	c.JoinTime = time.Since(t0)
	return c, nil
}

// runTruth evaluates simhash and MinHash with the default settings on one
// corpus. maxDocs > 0 keeps only the first maxDocs documents.
func runTruth(spec corpusSpec, path string, maxDocs int, variants bool) (*truthResult, error) {
	c, err := loadTruth(spec, path, maxDocs)
	if err != nil {
		return nil, err
	}
	sets, texts, truth := c.Sets, c.Texts, c.Truth
	res := &truthResult{Spec: spec, Path: path, Docs: len(sets), Empty: c.Empty, JoinTime: c.JoinTime}
	res.Pairs = len(truth)
	_, res.PerBin = eval.RecallByBin(truth, nil, truthBins)
	res.CrossCheck, err = crossCheck(sets, truth, 400)
	if err != nil {
		return nil, err
	}

	// Simhash, default settings: every pair within maxK bits, by brute force.
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		return nil, err
	}
	fps := make([]uint64, len(texts))
	for i, t := range texts {
		fps[i] = f.Sum64(t)
	}
	dist := pairsWithin(fps, maxK)
	for k := 0; k <= maxK; k++ {
		rep := map[eval.Pair]bool{}
		for p, d := range dist {
			if d <= k {
				rep[p] = true
			}
		}
		res.Simhash = append(res.Simhash, score("simhash", fmt.Sprintf("k=%d", k), truth, rep))
	}

	// MinHash, default K and bands.
	mh, cand, err := minhashEval(texts, fps, dist, nil, truth)
	if err != nil {
		return nil, err
	}
	res.MinHash, res.MinHashIdx, res.Candidates, res.DefaultByK = mh, cand.idx, cand.n, cand.byK
	if variants {
		for _, v := range []struct{ k, b int }{{84, 14}, {84, 21}, {84, 12}, {128, 16}, {128, 32}} {
			s := &index.Settings{MinHash: true, MinHashK: v.k, Bands: v.b}
			mh, c, err := minhashEval(texts, fps, nil, s, truth)
			if err != nil {
				return nil, err
			}
			for _, m := range mh {
				m.Method = fmt.Sprintf("K=%d, %d bands of %d (%d candidates)", v.k, v.b, v.k/v.b, c.n)
				res.Variants = append(res.Variants, m)
			}
		}
	}
	return res, nil
}

type candInfo struct {
	n   int
	idx []methodResult
	// byK is the default rule at each k from 0 to maxK: candidates from a
	// band or within k bits, reported at estimate >= DefaultMinSimilarity.
	byK []methodResult
}

// minhashEval scores the MinHash layer with settings s (nil: the default
// layer): candidates share a band, accepted when the estimate reaches each
// threshold. With dist, also the index's own rule: candidates from a band or
// within indexK bits.
func minhashEval(texts [][]byte, fps []uint64, dist map[eval.Pair]int, s *index.Settings, truth map[eval.Pair]float64) ([]methodResult, candInfo, error) {
	if s == nil {
		s = &index.Settings{MinHash: true}
	}
	f, err := index.NewFingerprinter(s)
	if err != nil {
		return nil, candInfo{}, err
	}
	sigs := make([][]uint64, len(texts))
	shorts := make([][]uint64, len(texts))
	type bandKey struct {
		band int
		hash uint64
	}
	buckets := map[bandKey][]int32{}
	for i, t := range texts {
		_, _, sig, short, bands := f.AnalyzeText(t)
		sigs[i], shorts[i] = slices.Clone(sig), slices.Clone(short)
		for b, h := range bands {
			if h != 0 { // 0: a band of the short-text layer the text does not have
				buckets[bandKey{b, h}] = append(buckets[bandKey{b, h}], int32(i))
			}
		}
	}
	// similarity is the layer's rule (index.TextSimilarity): two short
	// texts by their short sets, others by the estimate.
	similarity := func(p eval.Pair) float64 {
		sim, _ := index.TextSimilarity(sigs[p.A], shorts[p.A], sigs[p.B], shorts[p.B])
		return sim
	}
	est := map[eval.Pair]float64{}
	for _, ds := range buckets {
		for x := range ds {
			for y := x + 1; y < len(ds); y++ {
				p := eval.MakePair(int(ds[x]), int(ds[y]))
				if _, ok := est[p]; !ok {
					est[p] = similarity(p)
				}
			}
		}
	}
	info := candInfo{n: len(est)}
	var out []methodResult
	for _, t := range mhThreshold {
		rep := map[eval.Pair]bool{}
		for p, e := range est {
			if e >= t-1e-12 {
				rep[p] = true
			}
		}
		out = append(out, score("minhash bands", fmt.Sprintf("t=%.1f", t), truth, rep))
	}
	if dist != nil {
		for k := 0; k <= maxK; k++ {
			rep := map[eval.Pair]bool{}
			for p, e := range est {
				if e >= index.DefaultMinSimilarity-1e-12 {
					rep[p] = true
				}
			}
			for p, d := range dist {
				if d <= k && similarity(p) >= index.DefaultMinSimilarity-1e-12 {
					rep[p] = true
				}
			}
			info.byK = append(info.byK, score(fmt.Sprintf("default rule (bands or k, t=%.1f)", index.DefaultMinSimilarity), fmt.Sprintf("k=%d", k), truth, rep))
		}
		all := maps.Clone(est)
		for p, d := range dist {
			if _, ok := all[p]; !ok && d <= indexK {
				all[p] = similarity(p)
			}
		}
		for _, t := range mhThreshold {
			rep := map[eval.Pair]bool{}
			for p, e := range all {
				if e >= t-1e-12 {
					rep[p] = true
				}
			}
			info.idx = append(info.idx, score(fmt.Sprintf("minhash bands or k<=%d", indexK), fmt.Sprintf("t=%.1f", t), truth, rep))
		}
	}
	return out, info, nil
}

// pairsWithin returns every pair of fingerprints within k bits, with its
// distance, by comparing all pairs.
func pairsWithin(fps []uint64, k int) map[eval.Pair]int {
	out := map[eval.Pair]int{}
	for i, a := range fps {
		for j := i + 1; j < len(fps); j++ {
			if d := bits.OnesCount64(a ^ fps[j]); d <= k {
				out[eval.Pair{A: i, B: j}] = d
			}
		}
	}
	return out
}

// crossCheck compares the join with brute force on a sample of n sets: half
// drawn from the true pairs, half at random.
func crossCheck(sets [][]uint64, truth map[eval.Pair]float64, n int) (string, error) {
	rng := rand.New(rand.NewPCG(7, 7))
	pick := map[int]bool{}
	var tp []eval.Pair
	for p := range truth {
		tp = append(tp, p)
	}
	slices.SortFunc(tp, func(a, b eval.Pair) int { return cmp.Or(cmp.Compare(a.A, b.A), cmp.Compare(a.B, b.B)) })
	for i := 0; len(tp) > 0 && i < n/4; i++ {
		p := tp[rng.IntN(len(tp))]
		pick[p.A], pick[p.B] = true, true
	}
	for len(pick) < min(n, len(sets)) {
		pick[rng.IntN(len(sets))] = true
	}
	idx := make([]int, 0, len(pick))
	for i := range pick {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	sub := make([][]uint64, len(idx))
	for i, j := range idx {
		sub[i] = sets[j]
	}
	joined := map[eval.Pair]float64{}
	if err := eval.Join(sub, truthFloor, func(i, j int, s float64) { joined[eval.MakePair(i, j)] = s }); err != nil {
		return "", err
	}
	brute := 0
	for i := range sub {
		for j := i + 1; j < len(sub); j++ {
			s := shingle.Jaccard(sub[i], sub[j])
			if s < truthFloor {
				continue
			}
			brute++
			if js, ok := joined[eval.Pair{A: i, B: j}]; !ok || js != s {
				return "", fmt.Errorf("cross-check: pair %d,%d (J=%.4f) missing or different in the join", idx[i], idx[j], s)
			}
			if ts, ok := truth[eval.Pair{A: idx[i], B: idx[j]}]; !ok || ts != s {
				return "", fmt.Errorf("cross-check: pair %d,%d (J=%.4f) missing from the full join", idx[i], idx[j], s)
			}
		}
	}
	if brute != len(joined) {
		return "", fmt.Errorf("cross-check: join found %d pairs, brute force %d", len(joined), brute)
	}
	return fmt.Sprintf("join = brute force on %d documents (%d pairs)", len(sub), brute), nil
}

// truthMain is the truth subcommand.
func truthMain(args []string) error {
	fs := flag.NewFlagSet("truth", flag.ExitOnError)
	corpus := fs.String("corpus", "", "JSONL corpus (required)")
	unit := fs.String("unit", "words", "ground-truth shingle units: words or chars")
	size := fs.Int("size", 5, "units per ground-truth shingle")
	maxDocs := fs.Int("max-docs", 0, "use only the first N documents (0: all)")
	variants := fs.Bool("variants", false, "also score MinHash K/bands alternatives")
	fs.Parse(args)
	if *corpus == "" {
		return fmt.Errorf("truth: -corpus is required")
	}
	name := filepath.Base(*corpus)
	spec := corpusSpec{Name: name, Unit: *unit, Size: *size}
	r, err := runTruth(spec, *corpus, *maxDocs, *variants)
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s\n\n", machine())
	r.writeMarkdown(os.Stdout)
	return nil
}

// writeMarkdown writes the tables of one corpus.
func (r *truthResult) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "**%s**: %d documents (%d without shingles left out), %d pairs with %s Jaccard >= %.1f (join %.2fs; %s).\n\n",
		r.Spec.Name, r.Docs, r.Empty, r.Pairs, r.Spec, truthFloor, r.JoinTime.Seconds(), r.CrossCheck)
	writeMethodTable(w, r.PerBin, slices.Concat(r.Simhash, r.MinHash, r.MinHashIdx, r.DefaultByK))
	fmt.Fprintf(w, "MinHash candidates (pairs sharing a band): %d.\n\n", r.Candidates)
}

// writeMethodTable writes recall per bin and the scores of each method.
func writeMethodTable(w io.Writer, perBin []int, ms []methodResult) {
	fmt.Fprint(w, "| method | param | reported | J<0.5 reported |")
	for i, b := range truthBins {
		fmt.Fprintf(w, " recall %s (%d) |", b, perBin[i])
	}
	fmt.Fprintln(w, " P (J>=0.8) | R (J>=0.8) | F1 (J>=0.8) | F1 strict (J>=0.8) | P (J>=0.5) | R (J>=0.5) | F1 (J>=0.5) |")
	fmt.Fprint(w, "|---|---|---|---|")
	for range truthBins {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w, "---|---|---|---|---|---|---|")
	for _, m := range ms {
		fmt.Fprintf(w, "| %s | %s | %d | %d |", m.Method, m.Param, m.Reported, m.Below)
		for i := range truthBins {
			fmt.Fprintf(w, " %s |", ratio(m.Found[i], m.Total[i]))
		}
		fmt.Fprintf(w, " %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
			m.Hi.Precision(), m.Hi.Recall(), m.Hi.F1(), m.HiStrict.F1(), m.All.Precision(), m.All.Recall(), m.All.F1())
	}
	fmt.Fprintln(w)
}

func ratio(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}
