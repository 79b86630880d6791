package simhash_test

import (
	"testing"

	"github.com/simidx/simidx/simhash"
)

// TestMfonda checks the fingerprints documented by github.com/mfonda/simhash.
func TestMfonda(t *testing.T) {
	for _, c := range []struct {
		text string
		want uint64
	}{
		{"this is a test phrase", 0x8c3a5f7e9ecb3f35},
		{"this is a test phrass", 0x8c3a5f7e9ecb3f21},
		{"foo bar", 0xd8dbe7186bad3db3},
		{"FOO Bar", 0xd8dbe7186bad3db3},
		{"", 0xffffffffffffffff},
	} {
		if got := simhash.Mfonda([]byte(c.text)); got != c.want {
			t.Errorf("Mfonda(%q) = %016x, want %016x", c.text, got, c.want)
		}
	}
	a, b, c := simhash.Mfonda([]byte("this is a test phrase")), simhash.Mfonda([]byte("this is a test phrass")),
		simhash.Mfonda([]byte("foo bar"))
	if simhash.Distance(a, b) != 2 || simhash.Distance(a, c) != 29 {
		t.Errorf("distances %d and %d, want 2 and 29", simhash.Distance(a, b), simhash.Distance(a, c))
	}
}
