package shingle

import (
	"cmp"
	"slices"
)

// Set sorts hashes and removes repeats in place, returning the set. Cost:
// O(n log n).
func Set(hashes []uint64) []uint64 {
	slices.Sort(hashes)
	return slices.Compact(hashes)
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
