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
// their order (the numbers are not in input order), and with inputs
// whose buckets of the top 16 bits take each way of sorting a bucket:
// uniform keys (buckets of a few entries), keys whose top 6 bits are zero
// (hundreds), 10 (thousands, more than radixBig), 16 or 56 (one bucket),
// and keys whose top 6 bits and bits 40 to 47 are zero (buckets of
// hundreds whose next 8 bits agree).
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type input struct {
		n    int
		mask uint64 // the bits of a key that are random
	}
	var inputs []input
	for _, n := range []int{0, 1, 2, 31, 32, 33, 100, 70_000, 300_001} {
		inputs = append(inputs, input{n, ^uint64(0)})
	}
	inputs = append(inputs, input{300_001, ^uint64(0) >> 6}, input{300_001, ^uint64(0) >> 10}, input{100_000, ^uint64(0) >> 16}, input{100_000, ^uint64(0) >> 56}, input{300_001, ^uint64(0) >> 6 &^ (0xff << 40)})
	for _, in := range inputs {
		n := in.n
		es := make([]entry, n)
		for i := range es {
			p := rng.Uint64() & in.mask
			if i > 0 && rng.IntN(4) == 0 {
				p = es[rng.IntN(i)].p // a repeat, later in the input
			}
			es[i] = entry{p: p, n: rng.Uint32()}
		}
		want := slices.Clone(es)
		slices.SortStableFunc(want, func(a, b entry) int { return cmp.Compare(a.p, b.p) })
		for parts := 1; parts <= 4; parts++ {
			got := slices.Clone(es)
			radixSortIn(got, make([]entry, n), parts)
			if !slices.Equal(got, want) {
				t.Fatalf("%d entries of mask %#x, %d parts: not sorted stably", n, in.mask, parts)
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
