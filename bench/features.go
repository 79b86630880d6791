package main

import (
	"flag"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
	"github.com/simidx/simidx/simhash"
)

// featuresMain compares simhash feature choices on a corpus against its
// exact ground truth: recall of the pairs with shingle Jaccard >= 0.8 (and
// >= 0.5) within k bits, and precision and F1 for the pairs >= 0.8 (a pair
// within k whose Jaccard is below 0.5 is a false positive; 0.5 to 0.8 is
// neither).
func featuresMain(args []string) error {
	fs := flag.NewFlagSet("features", flag.ExitOnError)
	corpus := fs.String("corpus", "", "JSONL corpus (required)")
	truth := fs.String("truth", "words", "ground-truth shingles: words (5-word) or chars (5-character)")
	fs.Parse(args)
	if *corpus == "" {
		return fmt.Errorf("features: -corpus is required")
	}
	spec := corpusSpec{Name: *corpus, Unit: *truth, Size: 5}
	r, err := runFeatures(spec, *corpus)
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s\n", machine())
	fmt.Printf("corpus: %s, %d documents; ground truth: %d pairs with %s Jaccard >= 0.5 (exact join)\n\n",
		*corpus, r.Docs, r.Pairs, spec)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FEATURES\tK\tRECALL J>=0.8\tRECALL J>=0.5\tPAIRS WITHIN K\tPRECISION (J>=0.8, 0.5-0.8 grey)\tF1 (J>=0.8)")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%d\t%.3f\t%.3f\n", row.Features, row.K, row.Recall8, row.Recall5, row.Reported, row.Precision, row.F1)
	}
	return tw.Flush()
}

// featureRow is the score of one feature choice at one k.
type featureRow struct {
	Features         string
	K                int
	Recall8, Recall5 float64
	Reported         int
	Precision, F1    float64
}

type featuresResult struct {
	Docs, Pairs int
	Rows        []featureRow
}

// runFeatures scores simhash feature choices on a corpus against its exact
// ground truth at k = 3 and 6.
func runFeatures(spec corpusSpec, path string) (*featuresResult, error) {
	docs, err := testcorpus.Load(path)
	if err != nil {
		return nil, err
	}
	sh, err := spec.shingler()
	if err != nil {
		return nil, err
	}
	sets := make([][]uint64, len(docs))
	for i, d := range docs {
		sets[i] = shingle.Set(sh.AppendHashes(nil, []byte(d.Text)))
	}
	gt := map[eval.Pair]float64{}
	if err := eval.Join(sets, 0.5, func(i, j int, s float64) { gt[eval.Pair{A: i, B: j}] = s }); err != nil {
		return nil, err
	}
	res := &featuresResult{Docs: len(docs), Pairs: len(gt)}
	configs := []struct {
		name string
		opts simhash.Options
	}{
		{"units and pairs (default)", simhash.Options{}},
		{"units", simhash.Options{Features: simhash.Units}},
		{"units, 2-char grams", simhash.Options{Features: simhash.Units, Text: shingle.Options{Gram: 2}}},
		{"shingles of 2", simhash.Options{Features: simhash.Shingles, ShingleSize: 2}},
		{"shingles of 3", simhash.Options{Features: simhash.Shingles, ShingleSize: 3}},
		{"mfonda words", simhash.Options{}},
	}
	for _, c := range configs {
		h, err := simhash.NewHasher(&c.opts)
		if err != nil {
			return nil, err
		}
		fps := make([]uint64, len(docs))
		for i, d := range docs {
			if c.name == "mfonda words" {
				fps[i] = simhash.Mfonda([]byte(d.Text))
			} else {
				fps[i] = h.Sum64([]byte(d.Text))
			}
		}
		dist := pairsWithin(fps, 6)
		for _, k := range []int{3, 6} {
			reported := map[eval.Pair]bool{}
			for p, d := range dist {
				if d <= k {
					reported[p] = true
				}
			}
			c8 := eval.Score(gt, reported, 0.8, 0.5)
			c5 := eval.Score(gt, reported, 0.5, 0.5)
			res.Rows = append(res.Rows, featureRow{c.name, k, c8.Recall(), c5.Recall(), len(reported), c8.Precision(), c8.F1()})
		}
	}
	return res, nil
}
