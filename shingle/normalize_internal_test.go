package shingle

import (
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestNFKCInert checks the inert table against x/text: a rune marked inert
// is in NFKC alone and after any other inert rune or ASCII letter.
func TestNFKCInert(t *testing.T) {
	nfkcInertOnce.Do(buildNFKCInert)
	var inert []rune
	for r := rune(0x80); r < 0x10000; r++ {
		if nfkcInert[r/64]&(1<<(r%64)) != 0 {
			inert = append(inert, r)
		}
	}
	if len(inert) < 30000 {
		t.Fatalf("only %d inert runes", len(inert))
	}
	for i, r := range inert {
		s := string(r)
		if !norm.NFKC.IsNormalString(s) {
			t.Fatalf("%U marked inert but not NFKC", r)
		}
		// Pairs with a sample of other inert runes and ASCII.
		for _, q := range []rune{'a', inert[(i*7919)%len(inert)], inert[(i*104729+1)%len(inert)]} {
			for _, pair := range []string{string(q) + s, s + string(q)} {
				if !norm.NFKC.IsNormalString(pair) {
					t.Fatalf("%q of inert runes is not NFKC", pair)
				}
			}
		}
	}
	if isNFKC([]byte("e\u0301")) || isNFKC([]byte("ｶ")) || !isNFKC([]byte("привет, 日本")) || isNFKC([]byte{0xff}) {
		t.Error("isNFKC misjudges")
	}
	_ = utf8.RuneError
}
