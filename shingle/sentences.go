package shingle

import (
	"cmp"
	"slices"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// DefaultSentenceEnds are the characters that end a sentence for
// AppendLongestSentences: . ! ? ; and their full-width forms, 。 and line
// breaks. A '.' ends a sentence only before white space or the end of the
// text, so 3.14 and example.com do not split.
const DefaultSentenceEnds = ".!?;。！？；\n"

// sentence is one sentence found by AppendLongestSentences.
type sentence struct {
	hash uint64
	size int // canonical bytes
	pos  int
}

// AppendLongestSentences appends to dst the hashes of the n longest
// distinct sentences of text (the features of nshash: two documents that
// share one are duplicates). Sentences end at the characters of ends
// (DefaultSentenceEnds when empty) and are canonicalized like any text; a
// sentence's length is that of its canonical form, and its hash is Combine
// of its unit hashes. Longer sentences come first; ties keep text order.
// Cost: O(len(text)) plus a sort of the sentences.
func (t *Tokenizer) AppendLongestSentences(dst []uint64, text []byte, n int, ends string) []uint64 {
	if ends == "" {
		ends = DefaultSentenceEnds
	}
	if t.sub == nil {
		o := t.opts
		o.Markup, o.NoNormalize = MarkupKeep, true
		t.sub = newTokenizer(o, t.stop)
		t.sub.slow = t.slow
	}
	t.Reset(text)
	src := t.src
	var sents []sentence
	start := 0
	for i := 0; i <= len(src); {
		r, size := rune(-1), 1
		if i < len(src) {
			r, size = utf8.DecodeRune(src[i:])
		}
		end := i == len(src)
		if !end && containsRune(ends, r) {
			end = r != '.' || i+size == len(src) || isSpaceByte(src[i+size])
		}
		if end {
			if s, ok := t.sentenceHash(src[start:i]); ok {
				s.pos = len(sents)
				sents = append(sents, s)
			}
			start = i + size
		}
		i += size
	}
	slices.SortStableFunc(sents, func(a, b sentence) int { return cmp.Compare(b.size, a.size) })
	var seen []uint64
	for _, s := range sents {
		if len(seen) == n {
			break
		}
		if !slices.Contains(seen, s.hash) {
			seen = append(seen, s.hash)
		}
	}
	return append(dst, seen...)
}

// sentenceHash returns the hash and canonical size of one sentence, or
// false if it has no token.
func (t *Tokenizer) sentenceHash(b []byte) (sentence, bool) {
	t.sub.Reset(b)
	t.units = t.units[:0]
	size := 0
	for tok, ok := t.sub.Next(); ok; tok, ok = t.sub.Next() {
		t.units = append(t.units, xxhash.Sum64(tok))
		size += len(tok)
	}
	if size == 0 {
		return sentence{}, false
	}
	return sentence{hash: Combine(t.units), size: size}, true
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
