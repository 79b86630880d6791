package shingle_test

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/simidx/simidx/shingle"
)

func addSeeds(f *testing.F) {
	for _, d := range loadSample(f) {
		f.Add([]byte(d.Text))
	}
	for _, s := range []string{"", "\x00", "\xff\xfe\xfd", "a\x00b", "<", "<a", "</", "<!--", "<![CDATA[x",
		"<script>", "&#", "&#x110000;", "&#xD800;", "&amp", "日\u0301", "\u0301\u0301", "ß", "İ", "ﬁ½",
		"<p title='a>b'>x</p>", "1.2.3,4", "a'b'c", "'", "’a"} {
		f.Add([]byte(s))
	}
}

// FuzzCanonical checks the canonicalizer on any bytes: no panic, valid UTF-8
// out, tokens within MaxTokenLen, and idempotence.
func FuzzCanonical(f *testing.F) {
	addSeeds(f)
	tk, _ := shingle.NewTokenizer(nil)
	punct, _ := shingle.NewTokenizer(&shingle.Options{KeepPunct: true, Markup: shingle.MarkupStrip})
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, k := range []*shingle.Tokenizer{tk, punct} {
			c1 := k.AppendCanonical(nil, text)
			if !utf8.Valid(c1) {
				t.Fatalf("invalid UTF-8 out: %q", c1)
			}
			if k == tk {
				if c2 := k.AppendCanonical(nil, c1); !bytes.Equal(c1, c2) {
					t.Fatalf("not idempotent:\n once:  %q\n twice: %q", c1, c2)
				}
			}
		}
	})
}

// FuzzTokenizer checks that tokens are never empty nor over MaxTokenLen and
// that their total size is bounded by a small multiple of the input (case
// folding may expand a character to three).
func FuzzTokenizer(f *testing.F) {
	addSeeds(f)
	tk, _ := shingle.NewTokenizer(&shingle.Options{Markup: shingle.MarkupKeep})
	f.Fuzz(func(t *testing.T, text []byte) {
		tk.Reset(text)
		n := 0
		for tok, ok := tk.Next(); ok; tok, ok = tk.Next() {
			if len(tok) == 0 || len(tok) > shingle.MaxTokenLen {
				t.Fatalf("token of %d bytes", len(tok))
			}
			n += len(tok)
		}
		if n > 4*len(text)+8 {
			t.Fatalf("%d bytes of tokens from %d bytes of text", n, len(text))
		}
	})
}

// FuzzShingler checks shingling and MinHash on any bytes: no panic, at most
// one shingle per unit, a full signature.
func FuzzShingler(f *testing.F) {
	addSeeds(f)
	words, _ := shingle.NewShingler(nil)
	chars, _ := shingle.NewShingler(&shingle.Options{Unit: shingle.Chars, Size: 3, Disjoint: true})
	mh, _ := shingle.NewMinHasher(0, shingle.OnePermutation)
	f.Fuzz(func(t *testing.T, text []byte) {
		for _, s := range []*shingle.Shingler{words, chars} {
			hs := s.AppendHashes(nil, text)
			if len(hs) > len(s.Units())+1 {
				t.Fatalf("%d shingles from %d units", len(hs), len(s.Units()))
			}
			if sig := mh.Append(nil, hs); len(sig) != mh.K() {
				t.Fatalf("signature of %d values", len(sig))
			}
		}
	})
}
