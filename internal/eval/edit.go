package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Edit is a kind of planted change.
type Edit int

const (
	// Insert inserts a random word before a share of the words.
	Insert Edit = iota
	// Delete deletes a share of the words.
	Delete
	// Substitute replaces a share of the words with random words.
	Substitute
	// Swap swaps a share of the words with their right neighbour.
	Swap
	// Shuffle moves a share of the sentences to random places.
	Shuffle
	// Crop cuts a share of the words, half from the head and half from the
	// tail.
	Crop
	// Wrap wraps the text in HTML boilerplate (navigation, footer) with as
	// many words as the given share of the text.
	Wrap
)

// Edits lists every kind of edit.
var Edits = []Edit{Insert, Delete, Substitute, Swap, Shuffle, Crop, Wrap}

var editNames = []string{"insert", "delete", "substitute", "swap", "shuffle", "crop", "wrap"}

func (e Edit) String() string {
	if e >= 0 && int(e) < len(editNames) {
		return editNames[e]
	}
	return fmt.Sprintf("Edit(%d)", int(e))
}

// ParseEdit returns the edit named s.
func ParseEdit(s string) (Edit, error) {
	for i, n := range editNames {
		if n == s {
			return Edit(i), nil
		}
	}
	return 0, fmt.Errorf("eval: unknown edit %q (want one of %s)", s, strings.Join(editNames, ", "))
}

// segment is a word (or one character of a script written without spaces)
// and the separator text that follows it.
type segment struct{ word, sep string }

// segments splits text into words and their trailing separators; each
// character of Han, Kana, Thai and similar scripts is a word of its own, so
// edits on such text work on characters.
func segments(text string) []segment {
	var segs []segment
	i := 0
	for i < len(text) {
		start := i
		r, n := utf8.DecodeRuneInString(text[i:])
		if noSpace(r) {
			i += n
		} else {
			for i < len(text) {
				r, n := utf8.DecodeRuneInString(text[i:])
				if unicode.IsSpace(r) || noSpace(r) {
					break
				}
				i += n
			}
		}
		w := text[start:i]
		s := i
		for i < len(text) {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += n
		}
		if w == "" && len(segs) > 0 {
			segs[len(segs)-1].sep += text[s:i]
			continue
		}
		segs = append(segs, segment{w, text[s:i]})
	}
	return segs
}

func noSpace(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai)
}

func join(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.word)
		b.WriteString(s.sep)
	}
	return b.String()
}

// randomWord returns a made-up word that is in no dictionary, so inserted
// and substituted words never match real ones.
func randomWord(rng *rand.Rand, cjk bool) string {
	if cjk {
		return string(rune(0x4E00 + rng.IntN(0x9FA5-0x4E00)))
	}
	const letters = "bcdfghjklmnpqrstvwxz"
	n := 4 + rng.IntN(6)
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return string(b)
}

// Apply returns text with edit e planted at rate (0 to 1: the share of
// words or sentences changed). The same rng state gives the same result.
func Apply(rng *rand.Rand, text string, e Edit, rate float64) string {
	segs := segments(text)
	if len(segs) == 0 {
		return text
	}
	cjk := 0
	for _, s := range segs {
		if r, _ := utf8.DecodeRuneInString(s.word); noSpace(r) {
			cjk++
		}
	}
	isCJK := cjk*2 > len(segs)
	sep := " "
	if isCJK {
		sep = ""
	}
	switch e {
	case Insert:
		out := make([]segment, 0, len(segs)*2)
		for _, s := range segs {
			if rng.Float64() < rate {
				out = append(out, segment{randomWord(rng, isCJK), sep})
			}
			out = append(out, s)
		}
		return join(out)
	case Delete:
		out := segs[:0:0]
		for _, s := range segs {
			if rng.Float64() >= rate {
				out = append(out, s)
			}
		}
		return join(out)
	case Substitute:
		out := make([]segment, len(segs))
		for i, s := range segs {
			if rng.Float64() < rate {
				s.word = randomWord(rng, isCJK)
			}
			out[i] = s
		}
		return join(out)
	case Swap:
		out := append([]segment(nil), segs...)
		for i := 0; i+1 < len(out); i++ {
			if rng.Float64() < rate {
				out[i].word, out[i+1].word = out[i+1].word, out[i].word
				i++
			}
		}
		return join(out)
	case Shuffle:
		sents := sentences(text)
		for i := range sents {
			if rng.Float64() < rate {
				j := rng.IntN(len(sents))
				sents[i], sents[j] = sents[j], sents[i]
			}
		}
		return strings.Join(sents, "")
	case Crop:
		cut := int(rate * float64(len(segs)))
		head := cut / 2
		return join(segs[head : len(segs)-(cut-head)])
	case Wrap:
		n := int(rate * float64(len(segs)))
		var nav, foot strings.Builder
		for i := range n {
			w := randomWord(rng, false)
			if i%2 == 0 {
				fmt.Fprintf(&nav, `<li><a href="/%s">%s</a></li>`, w, w)
			} else {
				fmt.Fprintf(&foot, `<span>%s</span> `, w)
			}
		}
		return "<html><head><title>page</title><style>body{margin:0}</style></head><body><nav><ul>" +
			nav.String() + "</ul></nav><main><p>" + text + "</p></main><footer>" + foot.String() +
			"</footer><script>track()</script></body></html>"
	}
	return text
}

// sentences splits text after sentence-ending punctuation (., !, ?, 。, ！,
// ？) and line breaks, keeping every byte.
func sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		switch r {
		case '.', '!', '?', '。', '！', '？', '\n':
			end := i + utf8.RuneLen(r)
			out = append(out, text[start:end])
			start = end
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}
