package main

import (
	"flag"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
)

// plantedCorpora are the corpora edits are planted in.
var plantedCorpora = []corpusSpec{
	{"brown", "words", 5},
	{"spamassassin-body", "words", 5},
	{"manpages-ja", "chars", 5},
}

var (
	plantedRates = []float64{0.005, 0.01, 0.02, 0.04, 0.08, 0.12, 0.2, 0.3}
	plantedBins  = eval.Bins(0.3, 0.1)
)

// plantedPair is one document beside an edited copy (or, for unrelated
// pairs, beside another document).
type plantedPair struct {
	Edit     eval.Edit
	Rate     float64
	Jaccard  float64 // measured on the ground-truth shingles
	Distance int     // Hamming distance of the default fingerprints
	Band     bool    // the default MinHash signatures share a band
	Estimate float64 // their estimated Jaccard similarity
}

// plantedResult holds every measured pair of one corpus.
type plantedResult struct {
	Spec      corpusSpec
	Docs      int
	Rates     []float64
	Pairs     []plantedPair
	Unrelated []plantedPair // pairs of different sampled documents with J < 0.3
}

// runPlanted samples n documents of at least 50 shingles, plants every edit
// at every rate and measures each pair.
func runPlanted(spec corpusSpec, path string, n int, rates []float64) (*plantedResult, error) {
	docs, err := testcorpus.Load(path)
	if err != nil {
		return nil, err
	}
	sh, err := spec.shingler()
	if err != nil {
		return nil, err
	}
	f, err := index.NewFingerprinter(&index.Settings{MinHash: true})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(3, uint64(len(docs))))
	var eligible []int
	for i, d := range docs {
		if len(shingle.Set(sh.AppendHashes(nil, []byte(d.Text)))) >= 50 {
			eligible = append(eligible, i)
		}
	}
	rng.Shuffle(len(eligible), func(i, j int) { eligible[i], eligible[j] = eligible[j], eligible[i] })
	eligible = eligible[:min(n, len(eligible))]
	slices.Sort(eligible)

	type prep struct {
		set, sig, bands, short []uint64
		fp                     uint64
	}
	analyse := func(text string) prep {
		fp, _, sig, short, bands := f.AnalyzeText([]byte(text))
		return prep{shingle.Set(sh.AppendHashes(nil, []byte(text))), slices.Clone(sig), slices.Clone(bands), slices.Clone(short), fp}
	}
	compare := func(a, b prep, e eval.Edit, rate float64) plantedPair {
		sim, _ := index.TextSimilarity(a.sig, a.short, b.sig, b.short) // the layer's rule
		return plantedPair{e, rate, shingle.Jaccard(a.set, b.set), bits.OnesCount64(a.fp ^ b.fp), shingle.SharedBands(a.bands, b.bands) > 0, sim}
	}
	res := &plantedResult{Spec: spec, Docs: len(eligible), Rates: rates}
	base := make([]prep, len(eligible))
	for i, d := range eligible {
		base[i] = analyse(docs[d].Text)
		for _, e := range eval.Edits {
			for _, rate := range rates {
				res.Pairs = append(res.Pairs, compare(base[i], analyse(eval.Apply(rng, docs[d].Text, e, rate)), e, rate))
			}
		}
	}
	for i := range base {
		for j := i + 1; j < len(base); j++ {
			if p := compare(base[i], base[j], -1, 0); p.Jaccard < 0.3 {
				res.Unrelated = append(res.Unrelated, p)
			}
		}
	}
	return res, nil
}

// binStats summarizes the pairs of one group.
type binStats struct {
	N           int
	MeanJ       float64
	P10, Median float64 // distance percentiles
	P90         float64
	Within      [maxK + 1]float64 // share within k bits
	MinHash     float64           // share found by the MinHash layer at t=0.8 (band and estimate)
}

func summarizePairs(ps []plantedPair) binStats {
	var s binStats
	s.N = len(ps)
	if s.N == 0 {
		return s
	}
	ds := make([]float64, len(ps))
	for i, p := range ps {
		ds[i] = float64(p.Distance)
		s.MeanJ += p.Jaccard
		for k := p.Distance; k <= maxK; k++ {
			s.Within[k]++
		}
		if p.Band && p.Estimate >= 0.8-1e-12 {
			s.MinHash++
		}
	}
	s.MeanJ /= float64(s.N)
	for k := range s.Within {
		s.Within[k] /= float64(s.N)
	}
	s.MinHash /= float64(s.N)
	s.P10, s.Median, s.P90 = quantile(ds, 0.1), quantile(ds, 0.5), quantile(ds, 0.9)
	return s
}

// quantile returns the q-quantile of xs (nearest rank: the value at index
// floor(q*(n-1)) of the sorted values).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// byBin groups pairs by measured Jaccard; pairs below the first bin are
// left out.
func byBin(ps []plantedPair, bins []eval.Bin) [][]plantedPair {
	out := make([][]plantedPair, len(bins))
	for _, p := range ps {
		for i, b := range bins {
			if b.Contains(p.Jaccard) {
				out[i] = append(out[i], p)
				break
			}
		}
	}
	return out
}

// byEditRate groups pairs by edit kind and rate.
func byEditRate(ps []plantedPair, e eval.Edit, rate float64) []plantedPair {
	var out []plantedPair
	for _, p := range ps {
		if p.Edit == e && p.Rate == rate {
			out = append(out, p)
		}
	}
	return out
}

func plantedMain(args []string) error {
	fs := flag.NewFlagSet("planted", flag.ExitOnError)
	corpus := fs.String("corpus", "", "JSONL corpus (required)")
	unit := fs.String("unit", "words", "ground-truth shingle units: words or chars")
	size := fs.Int("size", 5, "units per ground-truth shingle")
	n := fs.Int("docs", 200, "documents to sample")
	fs.Parse(args)
	if *corpus == "" {
		return fmt.Errorf("planted: -corpus is required")
	}
	r, err := runPlanted(corpusSpec{filepath.Base(*corpus), *unit, *size}, *corpus, *n, plantedRates)
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s\n\n", machine())
	r.writeMarkdown(os.Stdout)
	return nil
}

func (r *plantedResult) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "**%s**: %d documents, %d planted pairs (%d edits x %d rates each), %s.\n\n",
		r.Spec.Name, r.Docs, len(r.Pairs), len(eval.Edits), len(r.Rates), r.Spec)
	fmt.Fprint(w, "| true Jaccard | pairs | distance p10 / median / p90 |")
	for k := 0; k <= maxK; k++ {
		fmt.Fprintf(w, " k<=%d |", k)
	}
	fmt.Fprintln(w, " MinHash t=0.8 |")
	fmt.Fprint(w, "|---|---|---|")
	for k := 0; k <= maxK; k++ {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w, "---|")
	row := func(name string, s binStats) {
		fmt.Fprintf(w, "| %s | %d | %.0f / %.0f / %.0f |", name, s.N, s.P10, s.Median, s.P90)
		for k := 0; k <= maxK; k++ {
			fmt.Fprintf(w, " %.3f |", s.Within[k])
		}
		fmt.Fprintf(w, " %.3f |\n", s.MinHash)
	}
	for i, ps := range byBin(r.Pairs, plantedBins) {
		row(plantedBins[i].String(), summarizePairs(ps))
	}
	row("unrelated (J<0.3)", summarizePairs(r.Unrelated))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Per edit kind and rate: mean true Jaccard, median distance, share within k=3 and found by MinHash at t=0.8.")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| edit |")
	for _, rate := range r.Rates {
		fmt.Fprintf(w, " %g |", rate)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|")
	for range r.Rates {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, e := range eval.Edits {
		fmt.Fprintf(w, "| %s |", e)
		for _, rate := range r.Rates {
			s := summarizePairs(byEditRate(r.Pairs, e, rate))
			fmt.Fprintf(w, " J %.2f, d %.0f, %.2f / %.2f |", s.MeanJ, s.Median, s.Within[indexK], s.MinHash)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}
