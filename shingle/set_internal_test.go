package shingle

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortHashes checks sortHashes against slices.Sort on random, sorted,
// reversed and repetitive slices of every length up to 300, and with a
// depth that runs out.
func TestSortHashes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	inputs := map[string]func(n int) []uint64{
		"random": func(n int) []uint64 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = rng.Uint64()
			}
			return a
		},
		"few values": func(n int) []uint64 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = uint64(rng.IntN(3)) << 63
			}
			return a
		},
		"sorted": func(n int) []uint64 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = uint64(i)
			}
			return a
		},
		"reversed": func(n int) []uint64 {
			a := make([]uint64, n)
			for i := range a {
				a[i] = uint64(n - i)
			}
			return a
		},
		"equal": func(n int) []uint64 { return make([]uint64, n) },
	}
	for name, gen := range inputs {
		for n := range 300 {
			for _, depth := range []int{0, 1, 100} {
				a := gen(n)
				want := slices.Clone(a)
				slices.Sort(want)
				sortHashes(a, depth)
				if !slices.Equal(a, want) {
					t.Fatalf("%s, %d values, depth %d: not sorted", name, n, depth)
				}
			}
		}
	}
}
