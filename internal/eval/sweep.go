package eval

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"strconv"

	"github.com/simidx/simidx/index"
)

// Setting is a query setting of a sweep: the largest Hamming distance K
// (NoK: none, the rule of a set method alone) and the similarity
// threshold MinSimilarity (0: none, the fingerprint or the method's rule
// alone).
type Setting struct {
	K             int
	MinSimilarity float64
}

// NoK is the K of a Setting without the fingerprint rule.
const NoK = -1

// Options returns the query options of s: those of the default query of an
// index built for distance s.K with s.MinSimilarity as its threshold.
func (s Setting) Options() *index.QueryOptions {
	o := &index.QueryOptions{MinSimilarity: s.MinSimilarity}
	switch {
	case s.K == 0:
		o.MaxDistance = index.ZeroDistance
	case s.K > 0:
		o.MaxDistance = s.K
	}
	if s.MinSimilarity == 0 && s.K != NoK {
		o.MinSimilarity = index.NoMinSimilarity
	}
	return o
}

// SettingScore is how a setting fares against the truth of a sample.
type SettingScore struct {
	Setting
	Reported int // pairs reported
	Counts       // against the pairs of the truth
}

// FScore returns the F-beta score of c: beta 1 is F1, 0.5 weighs
// precision twice as much as recall, 2 recall twice as much as precision.
func (c Counts) FScore(beta float64) float64 {
	p, r := c.Precision(), c.Recall()
	b2 := beta * beta
	if p == 0 && r == 0 {
		return 0
	}
	return (1 + b2) * p * r / (b2*p + r)
}

// Sweep measures every setting of settings on docs: it loads docs (each
// under its position as ID) into a new index in dir with settings s and
// MaxDistance the largest K of settings (its table design made for
// len(docs) documents), then runs Pairs with each setting's Options and
// scores the pairs against truth, the pairs of positions that count as
// found: a reported pair not in truth is a false positive. The rule of
// each setting is the index's own: a query with MaxDistance k on an index
// built for a larger distance reports what the default query of an index
// built for k would. Cost: a load of docs, and a Pairs run per setting,
// each what index.Pairs costs on len(docs) documents at the largest K.
func Sweep(ctx context.Context, dir string, s index.Settings, docs []index.Doc, truth map[Pair]float64, settings []Setting) ([]SettingScore, error) {
	s.MaxDistance = 0
	for _, st := range settings {
		s.MaxDistance = max(s.MaxDistance, st.K)
	}
	if s.MaxDistance == 0 {
		s.MaxDistance = index.ZeroDistance
	}
	s.Design = index.Design{}
	s.ExpectedDocs = max(len(docs), 1)
	x, err := index.Open(filepath.Join(dir, "sweep.simidx"), &index.Options{Settings: &s, NoSync: true})
	if err != nil {
		return nil, err
	}
	defer x.Close()
	var src iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
		for i, d := range docs {
			if !yield(index.Doc{ID: strconv.Itoa(i), Text: d.Text}, nil) {
				return
			}
		}
	}
	if _, err := x.Load(ctx, src, nil); err != nil {
		return nil, err
	}
	var out []SettingScore
	for _, st := range settings {
		sc := SettingScore{Setting: st}
		found := 0
		err := x.Pairs(ctx, st.Options(), func(p index.Pair) error {
			a, err1 := strconv.Atoi(p.A)
			b, err2 := strconv.Atoi(p.B)
			if err := cmp.Or(err1, err2); err != nil {
				return fmt.Errorf("eval: a pair of IDs %q, %q: %w", p.A, p.B, err)
			}
			sc.Reported++
			if _, ok := truth[MakePair(a, b)]; ok {
				found++
			} else {
				sc.FP++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sc.TP, sc.FN = found, len(truth)-found
		out = append(out, sc)
	}
	return out, nil
}

// Best returns the score of scores with the highest F-beta score, of
// equals the one with the smallest K (the smallest index), then the
// highest MinSimilarity (the fewest pairs to check), then the first.
// scores must not be empty.
func Best(scores []SettingScore, beta float64) SettingScore {
	b := scores[0]
	for _, s := range scores[1:] {
		fs, fb := s.FScore(beta), b.FScore(beta)
		switch {
		case fs > fb+1e-12:
			b = s
		case fs < fb-1e-12:
		case s.K < b.K || (s.K == b.K && s.MinSimilarity > b.MinSimilarity):
			b = s
		}
	}
	return b
}
