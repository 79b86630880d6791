package eval_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/shingle"
)

type pair struct{ i, j int }

// TestJoinMatchesBruteForce plants families of similar sets among random
// ones and compares the join with a scan of all pairs at several thresholds.
func TestJoinMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var sets [][]uint64
	for range 120 {
		base := make([]uint64, 5+rng.IntN(120))
		for i := range base {
			base[i] = rng.Uint64N(3000) // a small universe: many chance overlaps
		}
		sets = append(sets, shingle.Set(slices.Clone(base)))
		for range rng.IntN(4) {
			v := slices.Clone(base)
			for i := range v {
				if rng.Float64() < 0.15 {
					v[i] = rng.Uint64N(3000)
				}
			}
			sets = append(sets, shingle.Set(v))
		}
	}
	sets = append(sets, nil, nil, []uint64{1}, []uint64{1})
	for _, th := range []float64{0.1, 0.3, 0.5, 0.8, 1} {
		want := map[pair]float64{}
		for i := range sets {
			for j := i + 1; j < len(sets); j++ {
				if len(sets[i]) == 0 || len(sets[j]) == 0 {
					continue
				}
				if s := shingle.Jaccard(sets[i], sets[j]); s >= th {
					want[pair{i, j}] = s
				}
			}
		}
		got := map[pair]float64{}
		err := eval.Join(sets, th, func(i, j int, s float64) {
			if _, dup := got[pair{i, j}]; dup || i >= j {
				t.Fatalf("pair (%d, %d) reported twice or out of order", i, j)
			}
			got[pair{i, j}] = s
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("threshold %v: %d pairs, brute force finds %d", th, len(got), len(want))
		}
		for p, s := range want {
			if g, ok := got[p]; !ok || g != s {
				t.Fatalf("threshold %v: pair %v: got %v (found %v), want %v", th, p, g, ok, s)
			}
		}
	}
	if eval.Join(sets, 0, func(int, int, float64) {}) == nil {
		t.Error("threshold 0 accepted")
	}
}
