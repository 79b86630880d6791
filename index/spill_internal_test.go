package index

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPostingSorterMerge adds postings to a sorter that writes a run
// every few hundred entries, with hashes from a small range so that a
// hash's documents are spread over many runs and memory, and checks what
// each gives for every slot against a stable sort of the same entries.
func TestPostingSorterMerge(t *testing.T) {
	for _, c := range []struct{ slots, docs, hashes, max int }{
		{1, 1, 1, 1},
		{3, 2000, 50, 300},       // long postings across every run
		{5, 3000, 100000, 700},   // mostly one document a hash
		{2, 5000, 1000, 1 << 20}, // no run: memory only
		{1, 60000, 5000, 40000},  // runs of more than a block (runBlock)
	} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.docs), uint64(c.max)))
			s := newPostingSorter(c.slots, 0, t.TempDir())
			s.max = c.max
			defer s.close()
			want := make([][]entry, c.slots)
			for n := range uint32(c.docs) {
				for range rng.IntN(4) {
					i, h := rng.IntN(c.slots), rng.Uint64N(uint64(c.hashes))
					if i == 0 && c.slots > 1 {
						continue // a slot with few entries
					}
					if err := s.add(i, h, n); err != nil {
						t.Fatal(err)
					}
					want[i] = append(want[i], entry{p: h, n: n})
				}
			}
			if c.max < c.docs && len(s.runs) < 2 {
				t.Fatalf("%d runs", len(s.runs))
			}
			s.finish()
			for i := range c.slots {
				slices.SortStableFunc(want[i], func(a, b entry) int { return cmp.Compare(a.p, b.p) })
				var got []entry
				last, first := uint64(0), true
				err := s.each(i, func(h uint64, ns []uint32) error {
					if !first && h <= last {
						return fmt.Errorf("hash %d after %d", h, last)
					}
					if len(ns) == 0 {
						return fmt.Errorf("hash %d without documents", h)
					}
					last, first = h, false
					for _, n := range ns {
						got = append(got, entry{p: h, n: n})
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want[i]) {
					t.Fatalf("slot %d: %d entries, want %d", i, len(got), len(want[i]))
				}
			}
		})
	}
}
