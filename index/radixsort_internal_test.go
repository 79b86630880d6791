package index

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRadixSort checks radixSortIn against a stable comparison sort, on
// one to four goroutines, with repeated keys whose entries must keep
// their order.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 100, 70_000, 300_001} {
		es := make([]entry, n)
		for i := range es {
			p := rng.Uint64()
			if i > 0 && rng.IntN(4) == 0 {
				p = es[rng.IntN(i)].p // a repeat, later in the input
			}
			es[i] = entry{p: p, n: uint32(i)}
		}
		want := slices.Clone(es)
		slices.SortStableFunc(want, func(a, b entry) int { return cmp.Compare(a.p, b.p) })
		for parts := 1; parts <= 4; parts++ {
			got := slices.Clone(es)
			radixSortIn(got, make([]entry, n), parts)
			if !slices.Equal(got, want) {
				t.Fatalf("%d entries, %d parts: not sorted stably", n, parts)
			}
		}
		got := slices.Clone(es)
		radixSort(got, make([]entry, n))
		if !slices.Equal(got, want) {
			t.Fatalf("%d entries, radixSort: not sorted stably", n)
		}
	}
}

func BenchmarkRadixSort(b *testing.B) {
	const n = 1 << 21
	rng := rand.New(rand.NewPCG(3, 4))
	es := make([]entry, n)
	for i := range es {
		es[i] = entry{p: rng.Uint64(), n: uint32(i)}
	}
	work, tmp := make([]entry, n), make([]entry, n)
	for _, parts := range []int{1, 2} {
		b.Run(fmt.Sprint("parts=", parts), func(b *testing.B) {
			b.SetBytes(n * 16)
			b.ReportAllocs()
			for b.Loop() {
				copy(work, es)
				radixSortIn(work, tmp, parts)
			}
		})
	}
}
