package shingle

import "sync"

//go:generate go run ./internal/genhan -src /usr/share/unicode -o hanfold_table.go

// Dense folding of the CJK Unified Ideographs blocks 0x3400..0x9FFF, where
// nearly all text is: one load instead of a binary search. Built from the
// generated table on first use (110 KB).
const denseLo, denseHi = 0x3400, 0xA000

var (
	hanDense     []rune
	hanDenseOnce sync.Once
)

func buildHanDense() {
	d := make([]rune, denseHi-denseLo)
	for i := range d {
		d[i] = rune(denseLo + i)
	}
	for i, r := range hanFoldFrom {
		if r >= denseLo && r < denseHi {
			d[r-denseLo] = hanFoldTo[i]
		}
	}
	hanDense = d
}

// foldHan returns the form that the Han character r folds to: one
// representative of its class of traditional, simplified and variant
// forms, r itself for anything else. Cost: one table load for the main CJK
// blocks, a binary search of the generated table for other ideographs.
func foldHan(r rune) rune {
	if r >= denseLo && r < denseHi {
		hanDenseOnce.Do(buildHanDense)
		return hanDense[r-denseLo]
	}
	if r < hanFoldFrom[0] || r > hanFoldFrom[len(hanFoldFrom)-1] {
		return r
	}
	lo, hi := 0, len(hanFoldFrom)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if hanFoldFrom[m] < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(hanFoldFrom) && hanFoldFrom[lo] == r {
		return hanFoldTo[lo]
	}
	return r
}
