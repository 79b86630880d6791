package shingle

import (
	"cmp"
	"math/bits"
	"slices"
)

// Set sorts hashes and removes repeats in place, returning the set. Cost:
// O(n log n).
func Set(hashes []uint64) []uint64 {
	sortHashes(hashes, 2*bits.Len(uint(len(hashes))))
	return slices.Compact(hashes)
}

// sortHashes sorts a in place: a quicksort whose partition does not branch
// on the comparisons, which on hashes (random bits) are mispredicted half
// of the time, with insertion sort for short slices. A slice still longer
// than that after depth partitions (many equal values, or an unlucky
// pivot) is sorted by slices.Sort, so the cost stays O(n log n).
func sortHashes(a []uint64, depth int) {
	for len(a) > insertionMax {
		if depth == 0 {
			slices.Sort(a)
			return
		}
		depth--
		// The median of the first, middle and last values is the pivot,
		// moved to the end.
		n, m := len(a)-1, len(a)/2
		x, y := a[0], a[m]
		p := max(min(x, y), min(max(x, y), a[n]))
		switch p {
		case x:
			a[0], a[n] = a[n], a[0]
		case y:
			a[m], a[n] = a[n], a[m]
		}
		// a[:i] < p <= a[i:j].
		i := 0
		for j, v := range a[:n] {
			a[j], a[i] = a[i], v
			i += lessInt(v, p)
		}
		a[i], a[n] = a[n], a[i]
		// Recurse into the shorter side, loop on the longer.
		if i < n-i {
			sortHashes(a[:i], depth)
			a = a[i+1:]
		} else {
			sortHashes(a[i+1:], depth)
			a = a[:i]
		}
	}
	for i := 1; i < len(a); i++ {
		v, j := a[i], i
		for ; j > 0 && a[j-1] > v; j-- {
			a[j] = a[j-1]
		}
		a[j] = v
	}
}

// insertionMax is the longest slice sortHashes sorts by insertion.
const insertionMax = 12

// lessInt returns 1 if x < y and 0 otherwise, without a branch.
func lessInt(x, y uint64) int {
	if x < y {
		return 1
	}
	return 0
}

// Intersection returns |a ∩ b| for two sorted slices without repeats (sets
// made by [Set], or any such slices). Cost: O(|a|+|b|).
func Intersection[T cmp.Ordered](a, b []T) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// Jaccard returns |a ∩ b| / |a ∪ b| for two sets made by [Set]; 1 when both
// are empty. Cost: O(|a|+|b|).
func Jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	c := Intersection(a, b)
	return float64(c) / float64(len(a)+len(b)-c)
}

// Containment returns |a ∩ b| / |a|, the share of a found in b, for two sets
// made by [Set]; 1 when a is empty. Cost: O(|a|+|b|).
func Containment(a, b []uint64) float64 {
	if len(a) == 0 {
		return 1
	}
	return float64(Intersection(a, b)) / float64(len(a))
}

// Dice returns 2|a ∩ b| / (|a| + |b|) for two sets made by [Set]; 1 when both
// are empty. Cost: O(|a|+|b|).
func Dice(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	return 2 * float64(Intersection(a, b)) / float64(len(a)+len(b))
}
