package eval

import (
	"fmt"
	"math"
)

// Counts are the outcomes of a detector on labelled pairs.
type Counts struct {
	TP int // true pairs reported
	FN int // true pairs missed
	FP int // reported pairs that are not true
}

// Precision returns TP / (TP + FP), or 1 when nothing was reported.
func (c Counts) Precision() float64 {
	if c.TP+c.FP == 0 {
		return 1
	}
	return float64(c.TP) / float64(c.TP+c.FP)
}

// Recall returns TP / (TP + FN), or 1 when there was nothing to find.
func (c Counts) Recall() float64 {
	if c.TP+c.FN == 0 {
		return 1
	}
	return float64(c.TP) / float64(c.TP+c.FN)
}

// F1 returns the harmonic mean of precision and recall.
func (c Counts) F1() float64 {
	p, r := c.Precision(), c.Recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func (c Counts) String() string {
	return fmt.Sprintf("P %.3f R %.3f F1 %.3f (tp %d fn %d fp %d)", c.Precision(), c.Recall(), c.F1(), c.TP, c.FN, c.FP)
}

// Pair is an unordered pair of document numbers, A < B.
type Pair struct{ A, B int }

// MakePair returns the pair of a and b in order.
func MakePair(a, b int) Pair { return Pair{min(a, b), max(a, b)} }

// Score compares reported pairs with the truth: truth maps every pair
// whose similarity is at least the join floor to that similarity. A true
// pair is one with similarity >= positive; a reported pair below positive
// is a false positive, except that pairs with similarity in [grey,
// positive) are neither rewarded nor punished (set grey = positive for a
// strict score).
func Score(truth map[Pair]float64, reported map[Pair]bool, positive, grey float64) Counts {
	var c Counts
	for p, s := range truth {
		if s >= positive {
			if reported[p] {
				c.TP++
			} else {
				c.FN++
			}
		}
	}
	for p := range reported {
		if s, ok := truth[p]; !ok || s < grey {
			c.FP++
		}
	}
	return c
}

// Bin is a half-open range [Lo, Hi) of similarity; the last bin of a set
// includes 1.
type Bin struct{ Lo, Hi float64 }

// Bins returns the bins [lo, lo+step), ..., up to and including 1.
func Bins(lo, step float64) []Bin {
	n := int(math.Ceil((1-lo)/step - 1e-9))
	bs := make([]Bin, n)
	for i := range bs {
		bs[i] = Bin{lo + float64(i)*step, lo + float64(i+1)*step}
	}
	bs[n-1].Hi = 1
	return bs
}

// Contains reports whether s falls in the bin; a bin ending at 1 includes
// 1.
func (b Bin) Contains(s float64) bool {
	return s >= b.Lo-1e-12 && (s < b.Hi-1e-12 || b.Hi >= 1 && s <= 1)
}

func (b Bin) String() string { return fmt.Sprintf("%.2f-%.2f", b.Lo, b.Hi) }

// RecallByBin returns, for each bin, how many true pairs fall in it and how
// many of them were reported.
func RecallByBin(truth map[Pair]float64, reported map[Pair]bool, bins []Bin) (found, total []int) {
	found, total = make([]int, len(bins)), make([]int, len(bins))
	for p, s := range truth {
		for i, b := range bins {
			if b.Contains(s) {
				total[i]++
				if reported[p] {
					found[i]++
				}
				break
			}
		}
	}
	return found, total
}
