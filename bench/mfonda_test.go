package main

import (
	"math/rand/v2"
	"testing"

	mfonda "github.com/mfonda/simhash"
	"github.com/simidx/simidx/simhash"
)

// TestMfondaCompatible checks simhash.Mfonda against the real library on
// random text: words, URLs, apostrophes, punctuation and non-ASCII letters
// (some of which lower-case to ASCII).
func TestMfondaCompatible(t *testing.T) {
	pieces := []string{"the", "Quick", "BROWN", "fox's", "don't", "http://example.com/a/b.html", "x_y",
		"123", "a1", "://", "'", ",", ".", "!", " ", "  ", "\n", "\t", "Ärger", "straße", "K", "İstanbul",
		"日本語", "ПРИВЕТ", "ftp://h", "e\u0301", "ﬁ", "\xff", "\x00"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		var b []byte
		for range rng.IntN(30) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
			if rng.IntN(3) > 0 {
				b = append(b, ' ')
			}
		}
		want := mfonda.Simhash(mfonda.NewWordFeatureSet(append([]byte(nil), b...)))
		if got := simhash.Mfonda(b); got != want {
			t.Fatalf("case %d: Mfonda(%q) = %016x, mfonda/simhash gives %016x", i, b, got, want)
		}
	}
}
