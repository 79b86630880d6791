package shingle_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/simidx/simidx/shingle"
)

// words returns the canonical words of text with their spans, as strings.
func words(t testing.TB, tk *shingle.Tokenizer, text string) ([]string, []shingle.Span) {
	t.Helper()
	var ws []string
	var ss []shingle.Span
	for w, s := range tk.WordSpans([]byte(text)) {
		ws = append(ws, string(w))
		ss = append(ss, s)
	}
	return ws, ss
}

func hashes(ws []string) []uint64 {
	hs := make([]uint64, len(ws))
	for i, w := range ws {
		hs[i] = xxhash.Sum64String(w)
	}
	return hs
}

func TestWordSpans(t *testing.T) {
	def, _ := shingle.NewTokenizer(nil)
	punct, _ := shingle.NewTokenizer(&shingle.Options{KeepPunct: true})
	stop, _ := shingle.NewTokenizer(&shingle.Options{StopWords: "en", FoldPlurals: true})
	bigram, _ := shingle.NewTokenizer(&shingle.Options{Gram: 2})
	for _, tc := range []struct {
		tk    *shingle.Tokenizer
		text  string
		spans string // each word's span of text, separated by |
	}{
		{def, "Hello, World!  don't 3.14", "Hello|World|don't|3.14"},
		{def, "  MIT License\n\nCopyright (c)", "MIT|License|Copyright|c"},
		{def, "<p>Caf&eacute; <b>au</b>lait</p>", "Caf&eacute;|au</b>lait"},
		{def, "<p>a<![CDATA[ bc ]]>d</p>", "a|bc|d"},
		{def, "ＡＢＣ１２３ ﬁle ½", "ＡＢＣ１２３|ﬁle|½|½"},
		{def, "STRASSE Straße", "STRASSE|Straße"},
		{def, "日本語のテキスト", "日|本|語|の|テ|キ|ス|ト"},
		{def, "go言語 e\u0301t\u00e9", "go|言|語|e\u0301t\u00e9"},
		{def, "\xff\xfeabc\xffdef", "abc|def"},
		{punct, "a, b!", "a|,|b|!"},
		{stop, "the cats of the Houses", "cats|Houses"},
		{bigram, "日本語 x", "日本|本語|x"},
		{def, "", ""},
		{def, "<p></p> ,;", ""},
	} {
		ws, ss := words(t, tc.tk, tc.text)
		var got []string
		for _, s := range ss {
			got = append(got, tc.text[s.Start:s.End])
		}
		if g := strings.Join(got, "|"); g != tc.spans {
			t.Errorf("%q: spans %q, want %q (words %q)", tc.text, g, tc.spans, ws)
		}
		var want []string
		tc.tk.Reset([]byte(tc.text))
		for tok, ok := tc.tk.Next(); ok; tok, ok = tc.tk.Next() {
			want = append(want, string(tok))
		}
		if fmt.Sprint(ws) != fmt.Sprint(want) {
			t.Errorf("%q: words %q, Next gives %q", tc.text, ws, want)
		}
	}
}

func TestPassages(t *testing.T) {
	def, _ := shingle.NewTokenizer(nil)
	for _, tc := range []struct {
		a, b string
		want string // the passages' words, longest first, separated by |
	}{
		{"Copyright 2020 Foo Inc. All rights reserved.", "Copyright 2021 Bar Ltd. All rights reserved.", "all rights reserved|copyright"},
		{"a b c d e", "a b c d e", "a b c d e"},
		{"a b c", "x y z", ""},
		{"", "a b", ""},
		{"p q r s", "p q r X q r s", "p q r|q r s"},
		// A run that b holds twice is reported once, one that a holds
		// twice is reported twice.
		{"x y", "x y z x y", "x y"},
		{"x y z x y", "x y", "x y|x y"},
	} {
		wa, _ := words(t, def, tc.a)
		wb, _ := words(t, def, tc.b)
		var got []string
		for _, p := range shingle.Passages(hashes(wa), hashes(wb), -1) {
			pa := strings.Join(wa[p.A:p.A+p.Words], " ")
			if pb := strings.Join(wb[p.B:p.B+p.Words], " "); pa != pb {
				t.Errorf("%q, %q: passage %+v is %q in a, %q in b", tc.a, tc.b, p, pa, pb)
			}
			got = append(got, pa)
		}
		if g := strings.Join(got, "|"); g != tc.want {
			t.Errorf("%q, %q: passages %q, want %q", tc.a, tc.b, g, tc.want)
		}
	}
	a, b := hashes(strings.Fields("a b c d e f g")), hashes(strings.Fields("a b c x e f g y c d"))
	if got := shingle.Passages(a, b, 1); len(got) != 1 || got[0] != (shingle.Passage{A: 0, B: 0, Words: 3}) {
		t.Errorf("Passages(n = 1) = %+v", got)
	}
	if got := shingle.Passages(a, b, 0); got != nil {
		t.Errorf("Passages(n = 0) = %+v", got)
	}
}

// TestPassagesRepeats checks that passages cost linear time on texts made
// of one repeated word, where every pair of positions starts a common run:
// the quadratic number of those runs would take minutes.
func TestPassagesRepeats(t *testing.T) {
	n := 200_000
	a, b := make([]uint64, n), make([]uint64, n+1)
	for i := range a {
		a[i] = 1
	}
	for i := range b {
		b[i] = 1
	}
	b[n/2] = 2
	ps := shingle.Passages(a, b, 3)
	want := []shingle.Passage{{A: 0, B: 0, Words: n / 2}}
	if len(ps) == 0 || ps[0] != want[0] {
		t.Errorf("Passages = %+v, want first %+v", ps, want[0])
	}
}

// checkPassages checks the passages of a and b (all of them): shared,
// maximal, sorted, the first as long as the longest common run found by
// brute force on short inputs.
func checkPassages(t *testing.T, a, b []string, ps []shingle.Passage) {
	t.Helper()
	for k, p := range ps {
		if p.Words < 1 || p.A < 0 || p.B < 0 || p.A+p.Words > len(a) || p.B+p.Words > len(b) {
			t.Fatalf("passage %+v out of range (%d and %d words)", p, len(a), len(b))
		}
		for i := range p.Words {
			if a[p.A+i] != b[p.B+i] {
				t.Fatalf("passage %+v: word %d is %q in a, %q in b", p, i, a[p.A+i], b[p.B+i])
			}
		}
		if p.A > 0 && p.B > 0 && a[p.A-1] == b[p.B-1] {
			t.Fatalf("passage %+v extends to the left with %q", p, a[p.A-1])
		}
		if e, f := p.A+p.Words, p.B+p.Words; e < len(a) && f < len(b) && a[e] == b[f] {
			t.Fatalf("passage %+v extends to the right with %q", p, a[e])
		}
		if k > 0 && ps[k-1].Words < p.Words {
			t.Fatalf("passages not longest first: %+v then %+v", ps[k-1], p)
		}
	}
	if len(a)*len(b) > 1<<20 {
		return
	}
	// The longest common run, by dynamic programming: run[j+1] is the
	// length of the common run ending at a[i] and b[j].
	longest := 0
	run, prev := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			run[j+1] = 0
			if a[i] == b[j] {
				run[j+1] = prev[j] + 1
				longest = max(longest, run[j+1])
			}
		}
		run, prev = prev, run
	}
	got := 0
	if len(ps) > 0 {
		got = ps[0].Words
	}
	if got != longest {
		t.Fatalf("longest passage %d words, brute force finds %d", got, longest)
	}
}

func TestPassagesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		// Few distinct words, so that runs repeat and overlap.
		gen := func() []string {
			w := make([]string, r.IntN(60))
			for i := range w {
				w[i] = string(rune('a' + r.IntN(3)))
			}
			return w
		}
		a, b := gen(), gen()
		checkPassages(t, a, b, shingle.Passages(hashes(a), hashes(b), -1))
	}
}

// isPlain reports whether text is ASCII without markup, where a span's
// canonical form is exactly its words.
func isPlain(text []byte) bool {
	for _, c := range text {
		if c >= utf8.RuneSelf || c == '<' {
			return false
		}
	}
	return true
}

// FuzzPassages checks passages on any two texts: no panic; every passage
// is really shared (the canonical words at its offsets in a and in b are
// equal) and maximal, the first is the longest; and the spans of plain
// texts canonicalize to the passage's words.
func FuzzPassages(f *testing.F) {
	f.Add([]byte("Copyright 2020 Foo. All rights reserved."), []byte("Copyright 2021 Bar. All rights reserved."))
	f.Add([]byte("<p>Caf&eacute; au lait</p>"), []byte("café au LAIT"))
	f.Add([]byte("日本語のテキスト"), []byte("テキストの日本語"))
	f.Add([]byte("a a a a b a a"), []byte("a a b a a a"))
	f.Add([]byte("\xff\x00a"), []byte(""))
	tk, _ := shingle.NewTokenizer(nil)
	punct, _ := shingle.NewTokenizer(&shingle.Options{KeepPunct: true, Gram: 2, StopWords: "en", FoldPlurals: true})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		for _, k := range []*shingle.Tokenizer{tk, punct} {
			wa, sa := words(t, k, string(a))
			wb, sb := words(t, k, string(b))
			for _, w := range [][]shingle.Span{sa, sb} {
				checkSpans(t, w, max(len(a), len(b)))
			}
			ps := shingle.Passages(hashes(wa), hashes(wb), -1)
			checkPassages(t, wa, wb, ps)
			if k != tk || !isPlain(a) || !isPlain(b) {
				continue
			}
			for _, p := range ps {
				ta := a[sa[p.A].Start:sa[p.A+p.Words-1].End]
				tb := b[sb[p.B].Start:sb[p.B+p.Words-1].End]
				ca, cb := k.AppendCanonical(nil, ta), k.AppendCanonical(nil, tb)
				if !bytes.Equal(ca, cb) || string(ca) != strings.Join(wa[p.A:p.A+p.Words], " ") {
					t.Fatalf("passage %+v: %q in a is %q, %q in b is %q", p, ta, ca, tb, cb)
				}
			}
		}
	})
}

// checkSpans checks that spans are within a text of n bytes, not empty
// and never go back.
func checkSpans(t *testing.T, spans []shingle.Span, n int) {
	t.Helper()
	for i, s := range spans {
		if s.Start < 0 || s.End > n || s.Start >= s.End {
			t.Fatalf("span %d %+v in a text of %d bytes", i, s, n)
		}
		if i > 0 && (s.Start < spans[i-1].Start || s.End < spans[i-1].End) {
			t.Fatalf("span %d %+v goes back from %+v", i, s, spans[i-1])
		}
	}
}
