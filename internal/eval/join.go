package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/simidx/simidx/shingle"
)

// Join calls fn once for every pair i < j of sets whose Jaccard similarity
// is at least threshold, with that similarity. Sets are sorted slices of
// distinct hashes (shingle.Set makes them). Empty sets are never reported.
// threshold must be in (0, 1].
//
// The join is exact: it is the AllPairs algorithm (Bayardo, Ma, Srikant,
// WWW 2007) with prefix and length filtering, so it verifies only pairs
// that share a rare token, and every reported similarity is computed from
// the sets. Cost: O(total set size) to order tokens by frequency, then
// roughly O(candidates * set size); memory O(total set size).
func Join(sets [][]uint64, threshold float64, fn func(i, j int, jaccard float64)) error {
	if !(threshold > 0 && threshold <= 1) {
		return fmt.Errorf("eval: join threshold %v not in (0, 1]", threshold)
	}
	// Rank tokens by frequency, rarest first, so that prefixes hold rare
	// tokens and inverted lists stay short.
	freq := map[uint64]int32{}
	for _, s := range sets {
		for _, h := range s {
			freq[h]++
		}
	}
	tokens := make([]uint64, 0, len(freq))
	for h := range freq {
		tokens = append(tokens, h)
	}
	slices.SortFunc(tokens, func(a, b uint64) int {
		if c := cmp.Compare(freq[a], freq[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	rank := make(map[uint64]int32, len(tokens))
	for i, h := range tokens {
		rank[h] = int32(i)
	}
	ranked := make([][]int32, len(sets))
	for i, s := range sets {
		r := make([]int32, len(s))
		for k, h := range s {
			r[k] = rank[h]
		}
		slices.Sort(r)
		ranked[i] = r
	}
	order := make([]int, 0, len(sets))
	for i, s := range sets {
		if len(s) > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(sets[a]), len(sets[b])) })

	index := make(map[int32][]int32, len(tokens)/4) // token -> sets (positions in order) with it in their prefix
	seen := make(map[int32]bool)
	var cands []int32
	for pos, x := range order {
		rx := ranked[x]
		n := len(rx)
		minLen := int(math.Ceil(threshold*float64(n) - 1e-9))
		prefix := n - minLen + 1
		cands = cands[:0]
		clear(seen)
		for _, tok := range rx[:prefix] {
			for _, yp := range index[tok] {
				y := order[yp]
				if len(ranked[y]) < minLen || seen[yp] {
					continue
				}
				seen[yp] = true
				cands = append(cands, yp)
			}
		}
		slices.Sort(cands)
		for _, yp := range cands {
			y := order[yp]
			if j := jaccard(rx, ranked[y]); j >= threshold-1e-12 {
				fn(min(x, y), max(x, y), j)
			}
		}
		for _, tok := range rx[:prefix] {
			index[tok] = append(index[tok], int32(pos))
		}
	}
	return nil
}

// jaccard returns the Jaccard similarity of two sorted sets.
func jaccard(a, b []int32) float64 {
	c := shingle.Intersection(a, b)
	return float64(c) / float64(len(a)+len(b)-c)
}
