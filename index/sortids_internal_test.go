package index

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortIDs checks the sort of a bulk load's IDs in parts against one
// sort of the whole, with repeated IDs and every number of parts up to 5.
func TestSortIDs(t *testing.T) {
	cmpID := func(a, b idNum) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 7, 1000, 70_000} {
		ids := make([]idNum, n)
		for i := range ids {
			ids[i] = idNum{id: fmt.Sprint(rng.IntN(n/2 + 1)), n: uint32(i)}
		}
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		want := slices.Clone(ids)
		slices.SortFunc(want, cmpID)
		for parts := 1; parts <= 5; parts++ {
			got := slices.Clone(ids)
			sortIDsIn(got, min(parts, len(got)), cmpID)
			if !slices.Equal(got, want) {
				t.Fatalf("%d IDs in %d parts: not sorted", n, parts)
			}
		}
		got := slices.Clone(ids)
		sortIDs(got)
		if !slices.Equal(got, want) {
			t.Fatalf("sortIDs of %d IDs: not sorted", n)
		}
	}
}
