package eval_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// sweepDocs returns the sample licences and edited copies of them, so that
// similarities spread over the whole range.
func sweepDocs(t *testing.T) []index.Doc {
	docs := licenseDocs(t)
	rng := rand.New(rand.NewPCG(24, 4))
	for i := range len(docs) {
		for j, rate := range []float64{0.03, 0.1, 0.2} {
			e := eval.Edits[(i+j)%len(eval.Edits)]
			docs = append(docs, index.Doc{ID: fmt.Sprint(docs[i].ID, e, rate), Text: []byte(eval.Apply(rng, string(docs[i].Text), e, rate))})
		}
	}
	return docs
}

// TestSweep checks that every setting of a sweep on one index built for
// the largest k reports the pairs of the default query of an index built
// for the setting's k with its threshold as the index's, and that the
// pairs are scored as counting them one by one against the truth gives.
func TestSweep(t *testing.T) {
	docs := sweepDocs(t)
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	sets := make([][]uint64, len(docs))
	for i, d := range docs {
		sets[i] = slices.Clone(f.Shingles(d.Text))
	}
	truth := map[eval.Pair]float64{}
	if err := eval.Join(sets, 0.8, func(i, j int, s float64) { truth[eval.MakePair(i, j)] = s }); err != nil {
		t.Fatal(err)
	}
	if len(truth) < 50 {
		t.Fatalf("only %d true pairs", len(truth))
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		s        index.Settings
		settings []eval.Setting
	}{
		{"minhash", index.Settings{}, []eval.Setting{{K: 0, MinSimilarity: 0.5}, {K: 2, MinSimilarity: 0.7}, {K: 3, MinSimilarity: 0.6}, {K: 6, MinSimilarity: 0.4}, {K: 3}}},
		{"no minhash", index.Settings{NoMinHash: true}, []eval.Setting{{K: 0}, {K: 3}, {K: 5}}},
		{"nshash", index.Settings{Text: index.TextSettings{Method: index.MethodNshash}}, []eval.Setting{{K: eval.NoK}, {K: eval.NoK, MinSimilarity: 0.5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scores, err := eval.Sweep(ctx, t.TempDir(), tc.s, docs, truth, tc.settings)
			if err != nil {
				t.Fatal(err)
			}
			if len(scores) != len(tc.settings) {
				t.Fatalf("%d scores for %d settings", len(scores), len(tc.settings))
			}
			for i, st := range tc.settings {
				// An index built for st.K, queried as by default but for
				// the threshold.
				s := tc.s
				s.MaxDistance = max(st.K, 0)
				if st.K == 0 {
					s.MaxDistance = index.ZeroDistance
				}
				x, err := index.Open(filepath.Join(t.TempDir(), "k.simidx"), &index.Options{Settings: &s, NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				defer x.Close()
				if err := x.Add(positions(docs)...); err != nil {
					t.Fatal(err)
				}
				opts := &index.QueryOptions{MinSimilarity: st.MinSimilarity}
				if st.MinSimilarity == 0 && st.K != eval.NoK && !tc.s.NoMinHash {
					opts.MinSimilarity = index.NoMinSimilarity
				}
				var want eval.Counts
				reported := 0
				found := map[eval.Pair]bool{}
				err = x.Pairs(ctx, opts, func(p index.Pair) error {
					a, _ := strconv.Atoi(p.A)
					b, _ := strconv.Atoi(p.B)
					reported++
					if _, ok := truth[eval.MakePair(a, b)]; ok {
						want.TP++
						found[eval.MakePair(a, b)] = true
					} else {
						want.FP++
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				want.FN = len(truth) - len(found)
				if got := scores[i]; got.Setting != st || got.Counts != want || got.Reported != reported {
					t.Errorf("%+v: sweep %+v, reported %d; an index built for it %+v, reported %d", st, got.Counts, got.Reported, want, reported)
				}
				if reported == 0 {
					t.Errorf("%+v reports nothing", st)
				}
			}
		})
	}
}

func positions(docs []index.Doc) []index.Doc {
	out := make([]index.Doc, len(docs))
	for i, d := range docs {
		out[i] = index.Doc{ID: strconv.Itoa(i), Text: d.Text}
	}
	return out
}

// TestBest checks the F-scores and the order of Best: the highest score,
// then the smallest k, then the highest threshold.
func TestBest(t *testing.T) {
	c := eval.Counts{TP: 6, FP: 2, FN: 4} // precision 0.75, recall 0.6
	for _, tc := range []struct{ beta, want float64 }{{1, c.F1()}, {0.5, 1.25 * 0.45 / (0.25*0.75 + 0.6)}, {2, 5 * 0.45 / (4*0.75 + 0.6)}} {
		if got := c.FScore(tc.beta); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("F%v = %v, want %v", tc.beta, got, tc.want)
		}
	}
	if (eval.Counts{}).FScore(1) != 1 || (eval.Counts{FP: 3, FN: 2}).FScore(2) != 0 {
		t.Error("F-scores of nothing to find, and of nothing found")
	}
	hi := eval.Counts{TP: 9, FP: 1, FN: 1}
	scores := []eval.SettingScore{
		{Setting: eval.Setting{K: 3, MinSimilarity: 0.6}, Counts: c},
		{Setting: eval.Setting{K: 4, MinSimilarity: 0.8}, Counts: hi},
		{Setting: eval.Setting{K: 2, MinSimilarity: 0.7}, Counts: hi},
		{Setting: eval.Setting{K: 2, MinSimilarity: 0.75}, Counts: hi},
		{Setting: eval.Setting{K: 2, MinSimilarity: 0.5}, Counts: hi},
	}
	if b := eval.Best(scores, 1); b.Setting != (eval.Setting{K: 2, MinSimilarity: 0.75}) {
		t.Errorf("Best = %+v", b.Setting)
	}
	// Recall first prefers the setting that misses nothing.
	scores = append(scores, eval.SettingScore{Setting: eval.Setting{K: 8, MinSimilarity: 0.4}, Counts: eval.Counts{TP: 10, FP: 4}})
	if b := eval.Best(scores, 2); b.K != 8 {
		t.Errorf("Best, recall first = %+v", b.Setting)
	}
	if b := eval.Best(scores, 0.5); b.K != 2 {
		t.Errorf("Best, precision first = %+v", b.Setting)
	}
}
