package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHashList checks hashList against a map of lists, for lists built
// and merged from random hashes, spread evenly or bunched (many pairs in
// one slot of the directory, as hashes made to collide would be), with
// equal hashes, and empty.
func TestHashList(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name string
		draw func() uint64
	}{
		{"even", rng.Uint64},
		{"bunched", func() uint64 { return 0xabc<<52 | rng.Uint64N(64) }},
		{"few", func() uint64 { return rng.Uint64N(5) * 0x1000_0000_0000_0001 }}, // long runs of one hash
		{"extreme", func() uint64 { return []uint64{0, 1, 1 << 63, ^uint64(0)}[rng.IntN(4)] }},
	} {
		draw := tc.draw
		t.Run(tc.name, func(t *testing.T) {
			for _, sizes := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 3}, {7, 1}, {100, 5}, {1000, 1000}} {
				// a's pairs number the operations from 0, b's from 0 too
				// (merged, from len(a) on).
				want := map[uint64][]int32{}
				var hs []uint64
				var a, b []hashPair
				for i := range sizes[0] {
					h := draw()
					a = append(a, hashPair{h, int32(i / 3)}) // some operations with several hashes
					hs = append(hs, h)
				}
				off := int32(sizes[0])
				for i := range sizes[1] {
					h := draw()
					b = append(b, hashPair{h, int32(i)})
					hs = append(hs, h)
				}
				for _, p := range a {
					want[p.h] = append(want[p.h], p.n)
				}
				la := newHashList(slices.Clone(a))
				check := func(what string, l hashList, want map[uint64][]int32) {
					t.Helper()
					total := 0
					for _, v := range want {
						total += len(v)
					}
					if len(l.hs) != total {
						t.Fatalf("%s %v: %d pairs, want %d", what, sizes, len(l.hs), total)
					}
					for _, h := range append(hs, rng.Uint64(), 0, ^uint64(0), 0xabc<<52) {
						w := slices.Clone(want[h])
						slices.Sort(w)
						if got := l.find(h); !slices.Equal(got, w) {
							t.Fatalf("%s %v: find(%#x) = %v, want %v", what, sizes, h, got, w)
						}
					}
				}
				check("built", la, want)
				for _, p := range b {
					want[p.h] = append(want[p.h], p.n+off)
				}
				check("merged", mergeHashLists(la, newHashList(slices.Clone(b)), off), want)
			}
		})
	}
	var zero hashList
	if got := zero.find(1); len(got) != 0 {
		t.Errorf("the zero hashList finds %v", got)
	}
	if m := mergeHashLists(zero, zero, 0); len(m.find(0)) != 0 {
		t.Errorf("two zero hashLists merged find %v", m.find(0))
	}
}
