package index_test

import (
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

func TestFingerprinterTextHash(t *testing.T) {
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := func(s string) uint64 { return f.TextHash([]byte(s)) }
	if h("Hello, World!") != h("<p>hello   WORLD</p>") {
		t.Error("texts with the same canonical text have different hashes")
	}
	if h("hello world") == h("hello there") || h("a b") == h("b a") {
		t.Error("texts with different canonical texts have the same hash")
	}
	if h("") != h(" ... ") {
		t.Error("texts without words have different hashes")
	}
	// Characters as units: the same canonical text.
	c, err := index.NewFingerprinter(&index.Settings{Text: index.TextSettings{Shingle: shingle.Options{Unit: shingle.Chars}}})
	if err != nil {
		t.Fatal(err)
	}
	if c.TextHash([]byte("Hello, World!")) != c.TextHash([]byte("hello world")) {
		t.Error("--unit chars: same canonical text, different hashes")
	}
}
