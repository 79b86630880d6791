package eval

import (
	"context"
	"fmt"
	"math/bits"
	"slices"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// Ratio is a share as a fraction Num/Den (0 when Den is 0), so that it is
// truncated exactly to any number of decimals.
type Ratio struct{ Num, Den int }

// Trunc returns r times 10^digits, truncated.
func (r Ratio) Trunc(digits int) int {
	if r.Den == 0 {
		return 0
	}
	p := 1
	for range digits {
		p *= 10
	}
	return r.Num * p / r.Den
}

// Float4 returns r truncated to 4 decimals.
func (r Ratio) Float4() float64 { return float64(r.Trunc(4)) / 1e4 }

// String returns r truncated to 2 decimals: 0.5952 is 0.59, never 0.60.
func (r Ratio) String() string {
	t := r.Trunc(2)
	return fmt.Sprintf("%d.%02d", t/100, t%100)
}

// Passage is a passage two texts share: bytes [AStart, AEnd) of A and
// [BStart, BEnd) of B hold the same Words canonical words.
type Passage struct {
	AStart, AEnd, BStart, BEnd, Words int
}

// Comparison is what CompareTexts measures of two texts A and B.
type Comparison struct {
	Jaccard      Ratio // of the shingle sets
	ContainmentA Ratio // the share of A's shingles in B
	ContainmentB Ratio // the share of B's shingles in A
	Distance     int   // between the fingerprints
	// MinHash says the settings have the MinHash layer: Similarity is
	// the similarity an index gives the two texts (index.TextSimilarity):
	// for two short texts the exact Jaccard similarity of their short
	// sets, else the share of the signatures' values that agree, the
	// estimate of the Jaccard similarity.
	MinHash    bool
	Similarity Ratio
	Exact      bool // the canonical texts are the same
	Passages   []Passage
}

// CompareTexts measures a and b under the settings of f and finds their
// longest shared passages, at most passages of them: runs of consecutive
// canonical words found in both, each as long as it can be. A text
// without words matches nothing: its ratios are 0, and Exact false. It
// returns ctx.Err() when ctx is done between two of its steps. Cost: an
// analysis of each text, and shingle.Passages over their words.
func CompareTexts(ctx context.Context, f *index.Fingerprinter, a, b []byte, passages int) (Comparison, error) {
	st := f.Settings()
	tk, err := shingle.NewTokenizer(&st.Text.Shingle)
	if err != nil {
		return Comparison{}, err
	}
	wa, wb := tk.AppendWords(nil, a), tk.AppendWords(nil, b)
	empty := len(wa) == 0 || len(wb) == 0 // matches nothing

	// One analysis of each text: what an index stores of it.
	fa, ha, sig, short, _ := f.AnalyzeText(a)
	siga, shorta := slices.Clone(sig), slices.Clone(short)
	fb, hb, sig, short, _ := f.AnalyzeText(b)
	sigb, shortb := slices.Clone(sig), slices.Clone(short)
	sa := slices.Clone(f.Shingles(a))
	sb := f.Shingles(b)
	if err := ctx.Err(); err != nil {
		return Comparison{}, err
	}

	c := Comparison{Distance: bits.OnesCount64(fa ^ fb), MinHash: st.MinHash}
	if !empty {
		common := shingle.Intersection(sa, sb)
		c.Jaccard = Ratio{common, len(sa) + len(sb) - common}
		c.ContainmentA = Ratio{common, len(sa)}
		c.ContainmentB = Ratio{common, len(sb)}
		c.Exact = ha == hb
	}
	if st.MinHash && !empty && len(siga) == len(sigb) {
		if len(shorta) > 0 && len(shortb) > 0 {
			// Two short texts: the short-text layer's exact similarity.
			common := shingle.Intersection(shorta, shortb)
			c.Similarity = Ratio{common, len(shorta) + len(shortb) - common}
		} else {
			same := 0
			for i, v := range siga {
				if v == sigb[i] {
					same++
				}
			}
			c.Similarity = Ratio{same, len(siga)}
		}
	}
	c.Passages = SharedPassages(wa, wb, passages)
	return c, ctx.Err()
}
