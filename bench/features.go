package main

import (
	"flag"
	"fmt"
	"math/bits"
	"os"
	"text/tabwriter"

	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
	"github.com/simidx/simidx/simhash"
)

// featuresMain compares simhash feature choices on a corpus against its
// exact ground truth: recall of the pairs with shingle Jaccard >= 0.8 (and
// >= 0.5) within k bits, and precision of all pairs within k bits (a pair
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
	docs, err := testcorpus.Load(*corpus)
	if err != nil {
		return err
	}
	topts := shingle.Options{}
	if *truth == "chars" {
		topts = shingle.Options{Unit: shingle.Chars, Size: 5}
	}
	sh, err := shingle.NewShingler(&topts)
	if err != nil {
		return err
	}
	sets := make([][]uint64, len(docs))
	for i, d := range docs {
		sets[i] = shingle.Set(sh.AppendHashes(nil, []byte(d.Text)))
	}
	gt := map[eval.Pair]float64{}
	if err := eval.Join(sets, 0.5, func(i, j int, s float64) { gt[eval.Pair{A: i, B: j}] = s }); err != nil {
		return err
	}
	fmt.Printf("machine: %s\n", machine())
	fmt.Printf("corpus: %s, %d documents; ground truth: %d pairs with %s-shingle Jaccard >= 0.5 (exact join)\n\n",
		*corpus, len(docs), len(gt), *truth)
	configs := []struct {
		name string
		opts simhash.Options
	}{
		{"units (default)", simhash.Options{}},
		{"units, 2-char grams", simhash.Options{Text: shingle.Options{Gram: 2}}},
		{"shingles of 2", simhash.Options{Features: simhash.Shingles, ShingleSize: 2}},
		{"shingles of 3", simhash.Options{Features: simhash.Shingles, ShingleSize: 3}},
		{"mfonda words", simhash.Options{}},
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FEATURES\tK\tRECALL J>=0.8\tRECALL J>=0.5\tPAIRS WITHIN K\tPRECISION\tF1 (J>=0.8)")
	for _, c := range configs {
		h, err := simhash.NewHasher(&c.opts)
		if err != nil {
			return err
		}
		fps := make([]uint64, len(docs))
		for i, d := range docs {
			if c.name == "mfonda words" {
				fps[i] = simhash.Mfonda([]byte(d.Text))
			} else {
				fps[i] = h.Sum64([]byte(d.Text))
			}
		}
		for _, k := range []int{3, 6} {
			reported := map[eval.Pair]bool{}
			for a := range fps {
				for b := a + 1; b < len(fps); b++ {
					if bits.OnesCount64(fps[a]^fps[b]) <= k {
						reported[eval.Pair{A: a, B: b}] = true
					}
				}
			}
			c8 := eval.Score(gt, reported, 0.8, 0.5)
			c5 := eval.Score(gt, reported, 0.5, 0.5)
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%d\t%.3f\t%.3f\n", c.name, k, c8.Recall(), c5.Recall(), len(reported), c5.Precision(), f1(c8.Recall(), c5.Precision()))
		}
	}
	return tw.Flush()
}

func f1(r, p float64) float64 {
	if r+p == 0 {
		return 0
	}
	return 2 * r * p / (r + p)
}
