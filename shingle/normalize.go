package shingle

import (
	"encoding/binary"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// nfkcInert has bit r set for every BMP rune r that NFKC leaves as it is
// whatever surrounds it: its own NFKC form, canonical combining class 0,
// and unable to combine with a rune on its left. A text made of such runes
// (and ASCII) is in NFKC already. Built on first use, in about a
// millisecond.
var (
	nfkcInert     [0x10000 / 64]uint64
	nfkcInertOnce sync.Once
)

func buildNFKCInert() {
	var buf [utf8.UTFMax]byte
	for r := rune(0); r < 0x10000; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		p := norm.NFKC.Properties(buf[:n])
		if p.CCC() == 0 && p.BoundaryBefore() &&
			norm.NFKC.IsNormal(buf[:n]) {
			nfkcInert[r/64] |= 1 << (r % 64)
		}
	}
}

// isNFKC reports whether b is certainly in NFKC: every rune is ASCII or
// inert. false means only that the slower check must decide. Cost: one
// table lookup per rune.
func isNFKC(b []byte) bool {
	nfkcInertOnce.Do(buildNFKCInert)
	for i := 0; i < len(b); {
		if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0 {
			i += 8
			continue
		}
		c := b[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := decodeRune(b[i:])
		if r >= 0x10000 || r == utf8.RuneError || nfkcInert[r/64]&(1<<(r%64)) == 0 {
			return false
		}
		i += n
	}
	return true
}
