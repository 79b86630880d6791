package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// A table value ("group") holds the entries of all documents whose permuted
// fingerprints share the table key, the leading KeyBits bits. Entries have
// a fixed size: the remaining 64-KeyBits bits in sufBytes big-endian bytes,
// then the document number, 4 bytes big-endian. They are sorted and unique,
// so a byte comparison orders them by fingerprint, then document number.

// entrySize returns the size of an entry.
func (x *Index) entrySize() int { return x.sufBytes + 4 }

// tableKey appends the key of the group of permuted fingerprint p in table
// ti to b.
func (x *Index) tableKey(b []byte, ti int, p uint64) []byte {
	b = append(b, byte(ti>>8), byte(ti))
	k := p >> (64 - x.settings.Design.KeyBits)
	for i := x.keyBytes - 1; i >= 0; i-- {
		b = append(b, byte(k>>(8*i)))
	}
	return b
}

// keyTable returns the table number of group key k, or -1 if k is not
// the key of a group of one of the index's tables.
func (x *Index) keyTable(k []byte) int {
	if len(k) != 2+x.keyBytes {
		return -1
	}
	if t := int(k[0])<<8 | int(k[1]); t < len(x.tables) {
		return t
	}
	return -1
}

// keyValue returns the prefix encoded in a group key, shifted into place.
func (x *Index) keyValue(k []byte) uint64 {
	var v uint64
	for _, c := range k[2:] {
		v = v<<8 | uint64(c)
	}
	return v << (64 - x.settings.Design.KeyBits)
}

// appendEntry appends the entry of permuted fingerprint p, document n.
func (x *Index) appendEntry(b []byte, p uint64, n uint32) []byte {
	p &= 1<<(64-x.settings.Design.KeyBits) - 1
	for i := x.sufBytes - 1; i >= 0; i-- {
		b = append(b, byte(p>>(8*i)))
	}
	return binary.BigEndian.AppendUint32(b, n)
}

// decodeGroup appends the entries of group v, with high holding the key's
// bits, to dst as permuted fingerprints and document numbers.
func (x *Index) decodeGroup(dst []entry, high uint64, v []byte) []entry {
	es := x.entrySize()
	sh := uint(64 - 8*x.sufBytes)
	for off := 0; off+es <= len(v); off += es {
		e := v[off : off+es]
		dst = append(dst, entry{
			p: high | binary.BigEndian.Uint64(e)>>sh,
			n: binary.BigEndian.Uint32(e[x.sufBytes:]),
		})
	}
	return dst
}

// entry is a decoded table entry.
type entry struct {
	p uint64 // permuted fingerprint
	n uint32 // document number
}

// scanGroup appends to dst the documents of group v (key bits high) within
// distance d of permuted fingerprint p.
func (x *Index) scanGroup(dst []hit, high, p uint64, d int, v []byte) []hit {
	es := x.entrySize()
	sh := uint(64 - 8*x.sufBytes)
	for off := 0; off+es <= len(v); off += es {
		e := v[off : off+es]
		q := high | binary.BigEndian.Uint64(e)>>sh
		if dist := bits.OnesCount64(q ^ p); dist <= d {
			dst = append(dst, hit{n: binary.BigEndian.Uint32(e[x.sufBytes:]), d: dist})
		}
	}
	return dst
}

// hit is a document found within distance.
type hit struct {
	n uint32
	d int
}

// mergeGroup returns a new group: old without the entries in del, plus the
// entries in add. del and add are concatenated entries, each sorted.
func mergeGroup(old, del, add []byte, es int) []byte {
	out := make([]byte, 0, len(old)+len(add))
	i, j, a := 0, 0, 0
	for i < len(old) {
		e := old[i : i+es]
		for j < len(del) && bytes.Compare(del[j:j+es], e) < 0 {
			j += es
		}
		if j < len(del) && bytes.Equal(del[j:j+es], e) {
			i += es
			continue
		}
		for a < len(add) && bytes.Compare(add[a:a+es], e) < 0 {
			out = append(out, add[a:a+es]...)
			a += es
		}
		if a < len(add) && bytes.Equal(add[a:a+es], e) {
			a += es // already present
		}
		out = append(out, e...)
		i += es
	}
	for ; a < len(add); a += es {
		if a > 0 && bytes.Equal(add[a-es:a], add[a:a+es]) {
			continue
		}
		out = append(out, add[a:a+es]...)
	}
	return out
}

// checkGroup verifies that group v is non-empty, whole and strictly sorted,
// and that its suffixes fit in 64-KeyBits bits.
func (x *Index) checkGroup(v []byte) error {
	es := x.entrySize()
	if len(v) == 0 || len(v)%es != 0 {
		return fmt.Errorf("%w: table group of %d bytes, entries of %d", ErrCorrupt, len(v), es)
	}
	for off := es; off < len(v); off += es {
		if bytes.Compare(v[off-es:off], v[off:off+es]) >= 0 {
			return fmt.Errorf("%w: table group not sorted", ErrCorrupt)
		}
	}
	if free := 8*x.sufBytes - (64 - x.settings.Design.KeyBits); free > 0 {
		for off := 0; off < len(v); off += es {
			if v[off]>>(8-free) != 0 {
				return fmt.Errorf("%w: table entry suffix too wide", ErrCorrupt)
			}
		}
	}
	return nil
}
