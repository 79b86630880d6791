package shingle

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// Defaults of AppendLongestWords: the short-document method takes the 15
// longest distinct words of at least 4 letters.
const (
	DefaultLongestWords = 15
	DefaultMinLetters   = 4
)

// AppendLongestWords appends to dst the hashes of the n longest distinct
// canonical words of text that have at least minLetters characters and no
// digit (numbers are dropped), sorted by hash: the features of the
// short-document method, whose similarity is the number of common hashes
// over the word count of the shorter document ([Overlap]). Longer words are
// taken first; ties go to the smaller word in byte order. Each hash is the
// word's unit hash. Cost: O(len(text)) plus a sort of the words.
func (t *Tokenizer) AppendLongestWords(dst []uint64, text []byte, n, minLetters int) []uint64 {
	type word struct {
		runes int
		text  string
	}
	var words []word
	t.Reset(text)
	for tok, ok := t.Next(); ok; tok, ok = t.Next() {
		runes := utf8.RuneCount(tok)
		if runes < minLetters || hasDigit(tok) {
			continue
		}
		words = append(words, word{runes, string(tok)})
	}
	slices.SortFunc(words, func(a, b word) int {
		if c := cmp.Compare(b.runes, a.runes); c != 0 {
			return c
		}
		return cmp.Compare(a.text, b.text)
	})
	words = slices.CompactFunc(words, func(a, b word) bool { return a.text == b.text })
	start := len(dst)
	for _, w := range words[:min(n, len(words))] {
		dst = append(dst, xxhash.Sum64String(w.text))
	}
	slices.Sort(dst[start:])
	return dst
}

func hasDigit(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if unicode.IsDigit(r) {
			return true
		}
		b = b[n:]
	}
	return false
}

// Overlap returns |a ∩ b| / min(|a|, |b|) for two sets made by [Set] or
// AppendLongestWords: the share of the smaller set found in the larger, 0
// when either is empty. Cost: O(|a|+|b|).
func Overlap(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return float64(Intersection(a, b)) / float64(min(len(a), len(b)))
}
