package shingle

import (
	"sync"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// twoByteRune is what the tokenizer knows of a rune of two UTF-8 bytes
// without decoding it in full: its class (classify) and, for a letter or
// number whose canonical form is a single rune of two bytes that NFKC
// leaves as it is whatever surrounds it, that form (0 otherwise).
type twoByteRune struct {
	class uint8
	fold  uint16
}

// twoByte holds twoByteRune for every rune of two UTF-8 bytes, 0x80 to
// 0x7FF (Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, ...), by rune.
// It lets the tokenizer read and fold the letters of these scripts with a
// table load each instead of a decoding, a classification, and case folding,
// normalization and ё folding of the token. Built on first use, in tens of
// microseconds.
var (
	twoByte     [0x800]twoByteRune
	twoByteOnce sync.Once
)

func buildTwoByte() {
	nfkcInertOnce.Do(buildNFKCInert)
	c := cases.Fold()
	var in, out []byte
	for r := rune(0x80); r < 0x800; r++ {
		cl := classify(r)
		twoByte[r].class = uint8(cl)
		if cl != cWord {
			continue
		}
		// What emit makes of the rune as a token of its own.
		in = utf8.AppendRune(in[:0], r)
		out = foldInto(out[:0], &c, in)
		fixCherokee(out)
		out = foldYo(out)
		f, n := utf8.DecodeRune(out)
		if n == 2 && len(out) == 2 && isNFKC(out) {
			twoByte[r].fold = uint16(f)
		}
	}
}

// decodeTwoByte returns the rune of two UTF-8 bytes that b starts with, or
// ok == false if b does not start with one. Cost: a few instructions.
func decodeTwoByte(b []byte) (r rune, ok bool) {
	if len(b) < 2 || b[0] < 0xC2 || b[0] >= 0xE0 || b[1]&0xC0 != 0x80 {
		return 0, false
	}
	return rune(b[0]&0x1F)<<6 | rune(b[1]&0x3F), true
}

// foldTwoByte folds in place a token of ASCII letters and digits, already
// lowered, and of runes of two bytes with a canonical form in twoByte:
// each such rune becomes its form, of the same length. The result is what
// emit makes of the token, in one pass without allocating.
func foldTwoByte(b []byte) {
	for i := 0; i < len(b); i++ {
		if b[i] < utf8.RuneSelf {
			continue
		}
		r := rune(b[i]&0x1F)<<6 | rune(b[i+1]&0x3F)
		f := twoByte[r].fold
		b[i], b[i+1] = byte(0xC0|f>>6), byte(0x80|f&0x3F)
		i++
	}
}

// decodeThreeByte returns the rune of three UTF-8 bytes from U+1000 to
// U+CFFF (most letters of scripts written without spaces, CJK and kana
// among them) at b[i], or ok == false if b[i:] does not start with one.
// Cost: a few instructions.
func decodeThreeByte(b []byte, i int) (r rune, ok bool) {
	if i+2 >= len(b) || b[i]-0xE1 > 0xEC-0xE1 || b[i+1]&0xC0 != 0x80 || b[i+2]&0xC0 != 0x80 {
		return 0, false
	}
	return rune(b[i]&0x0F)<<12 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F), true
}

// decodeRune is utf8.DecodeRune with the runes of two bytes and of three
// bytes from U+1000 to U+CFFF decoded inline.
func decodeRune(b []byte) (rune, int) {
	if r, ok := decodeThreeByte(b, 0); ok {
		return r, 3
	}
	if r, ok := decodeTwoByte(b); ok {
		return r, 2
	}
	return utf8.DecodeRune(b)
}
