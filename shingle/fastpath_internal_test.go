package shingle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/simidx/simidx/internal/testcorpus"
)

// fastPathOptions are the option sets under which the tokenizer's fast
// paths are checked against its general ones.
var fastPathOptions = []Options{
	{},
	{Markup: MarkupKeep, KeepPunct: true},
	{KeepCase: true},
	{NoNormalize: true},
	{NoHanFold: true},
	{Gram: 2},
	{Gram: 3, NoHanFold: true},
	{Unit: Chars},
	{StopWords: "en,ru", FoldPlurals: true},
}

// tokenizerPair is a tokenizer and its twin that takes the general paths
// only.
type tokenizerPair struct{ fast, slow *Tokenizer }

func newTokenizerPairs(t testing.TB) []tokenizerPair {
	t.Helper()
	var ps []tokenizerPair
	for _, o := range fastPathOptions {
		fast, err := NewTokenizer(&o)
		if err != nil {
			t.Fatal(err)
		}
		slow, _ := NewTokenizer(&o)
		slow.slow = true
		ps = append(ps, tokenizerPair{fast, slow})
	}
	return ps
}

// tokenTrace returns the tokens of text with their Solo flags, the unit
// hashes and the word spans, as one string to compare.
func tokenTrace(tk *Tokenizer, text []byte) string {
	var b strings.Builder
	tk.Reset(text)
	for tok, ok := tk.Next(); ok; tok, ok = tk.Next() {
		fmt.Fprintf(&b, "%q/%v ", tok, tk.Solo())
	}
	fmt.Fprintf(&b, "\nunits %x\nspans", tk.AppendUnits(nil, text))
	for tok, s := range tk.WordSpans(text) {
		fmt.Fprintf(&b, " %q@%d-%d", tok, s.Start, s.End)
	}
	return b.String()
}

// checkFastPaths fails t if a fast path of the tokenizer gives other
// tokens, units or spans than the general paths for text.
func checkFastPaths(t *testing.T, ps []tokenizerPair, text []byte) {
	t.Helper()
	for i, p := range ps {
		if got, want := tokenTrace(p.fast, text), tokenTrace(p.slow, text); got != want {
			t.Fatalf("options %+v, text %q:\nfast: %s\nslow: %s", fastPathOptions[i], text, got, want)
		}
	}
}

// FuzzFastPaths checks that the tokenizer's fast paths (ASCII words and
// separators, letters of two UTF-8 bytes folded by table, runs of
// characters of scripts written without spaces) give the same tokens,
// units and spans as its general paths, on any bytes.
func FuzzFastPaths(f *testing.F) {
	docs, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range docs {
		f.Add([]byte(d.Text))
	}
	for _, s := range []string{"", "\x00", "\xff\xfe", "a\x00b", "<p>x</p>", "&amp;", "日\u0301", "\u0301\u0301",
		"ß", "İ", "ﬁ½", "1.2.3,4", "a'b'c", "'", "’a", "don’t", "ПРИВЕТ, Ёлка-палка", "е\u0308ж", "Ё\u0308",
		"ΣΊΣΥΦΟΣ ς", "Ǆemal ǅ ǆ", "Straße", "ĲSSEL", "ſt", "Ꭰᏸ", "Ǳ", "ΐ", "և", "İstanbul", "ÀÉÎÕÜ",
		"Ⅻ", "ԱԲԳ", "\u05d0\u05b0", "\u0627\u064b", "\xc2\x80", "\xc0\x80", "\xdf\xbf\xdf", "\xd0",
		"日本語のテキスト、カタカナ", "這是繁體中文檔案", "ｶﾀｶﾅ", "ภาษาไทย", "한국어", "x\U00020000y",
		strings.Repeat("Ж", 200), strings.Repeat("ab", 200) + "Ж", strings.Repeat("日", 200)} {
		f.Add([]byte(s))
	}
	ps := newTokenizerPairs(f)
	f.Fuzz(func(t *testing.T, text []byte) {
		checkFastPaths(t, ps, text)
	})
}

// TestTwoByteTable checks the fold table of the runes of two UTF-8 bytes
// rune by rune: alone, in a word of ASCII and of Cyrillic letters, after
// a combining mark and at the length where tokens are cut.
func TestTwoByteTable(t *testing.T) {
	ps := newTokenizerPairs(t)
	folds := 0
	for r := rune(0x80); r < 0x800; r++ {
		if twoByte[r].fold != 0 {
			folds++
		}
		s := string(r)
		for _, text := range []string{s, "A" + s + "b", "Ж" + s + s + "Я", s + "\u0301x", "Ё" + s,
			strings.Repeat("x", MaxTokenLen-1) + s + "y", strings.Repeat("Ψ", MaxTokenLen/2-1) + s + s} {
			checkFastPaths(t, ps, []byte(text))
		}
	}
	if folds < 500 {
		t.Errorf("only %d runes of two bytes fold by table", folds)
	}
	want := map[rune]rune{'Ж': 'ж', 'ж': 'ж', 'Ё': 'е', 'ё': 'е', 'É': 'é', 'Σ': 'σ', 'ς': 'σ'}
	for r, f := range want {
		if got := rune(twoByte[r].fold); got != f {
			t.Errorf("%q folds to %q, want %q", r, got, f)
		}
	}
	for _, r := range []rune{'ß', 'İ', 'ΐ', 'և', 'ſ', '\u0301', '«'} {
		if twoByte[r].fold != 0 {
			t.Errorf("%q (%U) folds by table, want the general path", r, r)
		}
	}
}

// TestDecodeRune checks decodeRune against utf8.DecodeRune on every
// sequence of up to three bytes that starts with a non-ASCII byte, whole
// and cut short.
func TestDecodeRune(t *testing.T) {
	b := make([]byte, 4)
	for b0 := 0x80; b0 <= 0xFF; b0++ {
		for b1 := range 256 {
			for b2 := range 256 {
				b[0], b[1], b[2], b[3] = byte(b0), byte(b1), byte(b2), 0x80
				for _, n := range []int{4, 3, 2} {
					r, size := decodeRune(b[:n])
					if wr, wsize := utf8.DecodeRune(b[:n]); r != wr || size != wsize {
						t.Fatalf("decodeRune(%x) = %U, %d; utf8.DecodeRune %U, %d", b[:n], r, size, wr, wsize)
					}
				}
			}
		}
	}
}

// TestIsCommonSolo checks that the runes isCommonSolo takes are those
// classify classifies first, as letters of scripts written without spaces.
func TestIsCommonSolo(t *testing.T) {
	n := 0
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if isCommonSolo(r) {
			n++
			if classify(r) != cSolo {
				t.Fatalf("isCommonSolo(%U), but classify gives %d", r, classify(r))
			}
		}
	}
	if n != 0x9FFF-0x4E00+1+0x3096-0x3041+1+0x30FA-0x30A1+1 {
		t.Errorf("isCommonSolo takes %d runes", n)
	}
}

// foldPhrasesReference is foldPhrases copying every run.
func (t *Tokenizer) foldPhrasesReference() {
	n := len(t.runEnds)
	if n < 2 {
		return
	}
	charStart := func(i int) int {
		if i == 0 {
			return 0
		}
		return t.runEnds[i-1]
	}
	var out []byte
	var ends []int
	for i := 0; i < n; {
		s := charStart(i)
		r, _ := utf8.DecodeRune(t.run[s:])
		matched := false
		if mayStartPhrase(r) {
			for l := min(phraseMaxRunes, n-i); l >= 2; l-- {
				if v, ok := hanPhrases[string(t.run[s:t.runEnds[i+l-1]])]; ok {
					for _, c := range v {
						out = utf8.AppendRune(out, c)
						ends = append(ends, len(out))
					}
					i += l
					matched = true
					break
				}
			}
		}
		if !matched {
			out = append(out, t.run[s:t.runEnds[i]]...)
			ends = append(ends, len(out))
			i++
		}
	}
	t.run, t.runEnds = out, ends
}

// TestFoldPhrases checks foldPhrases against foldPhrasesReference on runs
// of phrases of the table, their prefixes and other characters.
func TestFoldPhrases(t *testing.T) {
	var keys []string
	for k := range hanPhrases {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rng := rand.New(rand.NewPCG(9, 9))
	tk, _ := NewTokenizer(nil)
	ref, _ := NewTokenizer(nil)
	for range 20000 {
		var text []rune
		for range 1 + rng.IntN(6) {
			switch rng.IntN(3) {
			case 0:
				text = append(text, []rune(keys[rng.IntN(len(keys))])...)
			case 1:
				k := []rune(keys[rng.IntN(len(keys))])
				text = append(text, k[:1+rng.IntN(len(k))]...)
			default:
				text = append(text, rune(0x4E00+rng.IntN(0x5200)))
			}
		}
		for _, k := range []*Tokenizer{tk, ref} {
			k.run, k.runEnds = k.run[:0], k.runEnds[:0]
			for _, r := range text {
				k.run = utf8.AppendRune(k.run, r)
				k.runEnds = append(k.runEnds, len(k.run))
			}
		}
		tk.foldPhrases()
		ref.foldPhrasesReference()
		if string(tk.run) != string(ref.run) || !slices.Equal(tk.runEnds, ref.runEnds) {
			t.Fatalf("run %q: foldPhrases %q %v, want %q %v", string(text), tk.run, tk.runEnds, ref.run, ref.runEnds)
		}
	}
}
