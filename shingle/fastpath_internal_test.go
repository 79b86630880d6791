package shingle

import (
	"fmt"
	"strings"
	"testing"

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
