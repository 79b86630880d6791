package shingle_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/shingle"
)

func TestStopWordsAndPlurals(t *testing.T) {
	o := &shingle.Options{StopWords: "en,ru", FoldPlurals: true}
	got := strings.Join(tokens(t, o, "The cats and the bodies of glasses; it is hers. Кошки и собаки."), " ")
	if want := "cat body glasse кошки собаки"; got != want {
		t.Errorf("tokens = %q, want %q", got, want)
	}
	if _, err := shingle.NewTokenizer(&shingle.Options{StopWords: "xx"}); err == nil {
		t.Error("unknown stop-word language accepted")
	}
}

func TestSample(t *testing.T) {
	all, _ := shingle.NewShingler(&shingle.Options{Size: 1})
	sampled, _ := shingle.NewShingler(&shingle.Options{Size: 1, Sample: 4})
	text := []byte(strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi ", 3))
	a, s := all.AppendHashes(nil, text), sampled.AppendHashes(nil, text)
	for _, h := range s {
		if h%4 != 0 || !slices.Contains(a, h) {
			t.Fatalf("sampled hash %x not kept by mod-4 sampling", h)
		}
	}
	kept := 0
	for _, h := range a {
		if h%4 == 0 {
			kept++
		}
	}
	if len(s) != kept {
		t.Errorf("sampled %d of %d, want %d", len(s), len(a), kept)
	}
}

// TestLongestSentences follows nshash: documents sharing one of their
// longest sentences are duplicates, whatever else they say.
func TestLongestSentences(t *testing.T) {
	tk, _ := shingle.NewTokenizer(nil)
	a := "Breaking news. The city council approved the new budget for public transport on Monday evening. " +
		"More later! Version 3.14 is out."
	b := "UPDATE! the city council approved the new budget for public transport on Monday evening; " +
		"details to follow."
	c := "Nothing to see here. Completely different text about gardening and tomatoes in the spring."
	ha := tk.AppendLongestSentences(nil, []byte(a), 5, "")
	hb := tk.AppendLongestSentences(nil, []byte(b), 5, "")
	hc := tk.AppendLongestSentences(nil, []byte(c), 5, "")
	if len(ha) != 4 { // "3.14" does not split a sentence
		t.Errorf("%d sentences in a, want 4", len(ha))
	}
	if !shares(ha, hb) || shares(ha, hc) {
		t.Errorf("a~b %v, a~c %v; want true, false", shares(ha, hb), shares(ha, hc))
	}
	if h := tk.AppendLongestSentences(nil, []byte(a), 1, ""); len(h) != 1 || h[0] != ha[0] {
		t.Errorf("n=1 must keep only the longest sentence")
	}
	// Chinese, split at 。 and ！.
	zh1 := tk.AppendLongestSentences(nil, []byte("今天天气很好。我们去公园散步吧！"), 5, "")
	zh2 := tk.AppendLongestSentences(nil, []byte("我們去公園散步吧！"), 5, "")
	if len(zh1) != 2 || !shares(zh1, zh2) {
		t.Errorf("Chinese sentences %x and %x (traditional script) must share one", zh1, zh2)
	}
	if got := tk.AppendLongestSentences(nil, []byte("a|b|c"), 5, "|"); len(got) != 3 {
		t.Errorf("custom ends: %d sentences", len(got))
	}
}

func shares(a, b []uint64) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// TestLongestWords follows the short-document method: the longest words of
// at least four letters, numbers dropped, similarity over the shorter one.
func TestLongestWords(t *testing.T) {
	tk, _ := shingle.NewTokenizer(nil)
	ad1 := "Selling 2015 Toyota Corolla, excellent condition, 85000 km, call 555-1234"
	ad2 := "For sale: Toyota Corolla 2015 in excellent condition! Only 85000 km"
	w1 := tk.AppendLongestWords(nil, []byte(ad1), shingle.DefaultLongestWords, shingle.DefaultMinLetters)
	w2 := tk.AppendLongestWords(nil, []byte(ad2), shingle.DefaultLongestWords, shingle.DefaultMinLetters)
	// ad1: selling toyota corolla excellent condition call -> call has 4 letters.
	// ad2: sale toyota corolla excellent condition only.
	if len(w1) != 6 || len(w2) != 6 {
		t.Fatalf("%d and %d words, want 6 and 6", len(w1), len(w2))
	}
	if got := shingle.Overlap(w1, w2); got != 4.0/6 {
		t.Errorf("Overlap = %v, want 4/6", got)
	}
	few := tk.AppendLongestWords(nil, []byte(ad1), 2, 4)
	if len(few) != 2 { // excellent, condition
		t.Errorf("n=2: %d words", len(few))
	}
	if shingle.Overlap(nil, w1) != 0 {
		t.Error("Overlap with an empty set must be 0")
	}
}
