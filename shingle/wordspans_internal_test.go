package shingle

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzWordSpansMap checks that the rewritten text whose bytes WordSpans
// maps back is the one Reset makes, so that the map is exact rather than
// spread evenly.
func FuzzWordSpansMap(f *testing.F) {
	for _, s := range []string{"", "a", "<p>Caf&eacute; <b>au</b>lait</p>", "<![CDATA[ x ]]>", "<![CDATA[ x",
		"ＡＢＣ ﬁ ½", "\xff<p>\xfe", "&#xD800; &amp", "e\u0301", "<script>x</script>y", "<a href='>'>z</a>"} {
		f.Add([]byte(s))
	}
	var tks []*Tokenizer
	for _, o := range []Options{{}, {Markup: MarkupStrip}, {KeepPunct: true, Markup: MarkupStrip}} {
		tk, err := NewTokenizer(&o)
		if err != nil {
			f.Fatal(err)
		}
		tks = append(tks, tk)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, tk := range tks {
			tk.Reset(text)
			if len(tk.src) == 0 || len(tk.src) == len(text) && &tk.src[0] == &text[0] {
				continue
			}
			want := bytes.Clone(tk.src)
			src, m, ok := tk.mapSource(text)
			if !ok || !bytes.Equal(src, want) {
				t.Fatalf("mapSource(%q) = %q, %v; Reset makes %q", text, src, ok, want)
			}
			for d := range src {
				s := m.span(Span{d, d + 1})
				if s.Start < 0 || s.End > len(text) || s.Start >= s.End {
					t.Fatalf("byte %d of %q maps to %+v of %q", d, src, s, text)
				}
			}
		}
	})
}

// TestWordSpansRuns checks the spans of grams in runs longer than the
// tokenizer gathers at once, and in runs that phrase folding changes.
func TestWordSpansRuns(t *testing.T) {
	long := strings.Repeat("日本語", 50) // 150 characters, three pieces
	for _, gram := range []int{1, 2, 3} {
		tk, _ := NewTokenizer(&Options{Gram: gram})
		n := 0
		for tok, s := range tk.WordSpans([]byte(long)) {
			if got := long[s.Start:s.End]; got != string(tok) {
				t.Fatalf("gram %d: word %d %q spans %q", gram, n, tok, got)
			}
			n++
		}
		if want := 150 - gram + 1; n != want {
			t.Errorf("gram %d: %d words, want %d", gram, n, want)
		}
	}
	// 位元速率 folds to 码率: 码 spans the characters that differ, 率
	// itself.
	tk, _ := NewTokenizer(nil)
	text := "用位元速率了"
	var got []string
	for tok, s := range tk.WordSpans([]byte(text)) {
		got = append(got, string(tok)+"="+text[s.Start:s.End])
	}
	if g, want := strings.Join(got, " "), "用=用 码=位元速 率=率 了=了"; g != want {
		t.Errorf("%q: %s, want %s", text, g, want)
	}
}
