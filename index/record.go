package index

import (
	"encoding/binary"
	"fmt"
)

// A record is the value of a document in the docs bucket:
//
//	fingerprint uint64 | flags byte | [exact uint64 | sig k*uint64 | bands b*uint64] | ID
//
// The bracketed part is present when flags has flagText; sig and bands are
// present when the index has MinHash. Integers are big-endian. The ID
// takes the rest of the value.
type record struct {
	id    string
	fp    uint64
	text  bool // added with text: exact (and sig, bands) are valid
	exact uint64
	sig   []uint64
	bands []uint64
}

const flagText = 1

// docKey returns the key of document number n in the docs bucket.
func docKey(n uint32) []byte { return binary.BigEndian.AppendUint32(make([]byte, 0, 4), n) }

// encodeRecord appends the encoding of r to b.
func encodeRecord(b []byte, r *record) []byte {
	b = binary.BigEndian.AppendUint64(b, r.fp)
	if !r.text {
		b = append(b, 0)
		return append(b, r.id...)
	}
	b = append(b, flagText)
	b = binary.BigEndian.AppendUint64(b, r.exact)
	for _, v := range r.sig {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	for _, v := range r.bands {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return append(b, r.id...)
}

// decodeRecord decodes v for an index with the given MinHash k and bands
// (0 without MinHash). With full unset it skips the signature and bands.
func decodeRecord(v []byte, k, bands int, full bool) (record, error) {
	var r record
	if len(v) < 9 {
		return r, fmt.Errorf("%w: short document record", ErrCorrupt)
	}
	r.fp = binary.BigEndian.Uint64(v)
	flags := v[8]
	v = v[9:]
	switch flags {
	case 0:
	case flagText:
		n := 8 * (1 + k + bands)
		if len(v) < n {
			return r, fmt.Errorf("%w: short document record", ErrCorrupt)
		}
		r.text = true
		r.exact = binary.BigEndian.Uint64(v)
		if full && k > 0 {
			r.sig = make([]uint64, k)
			for i := range r.sig {
				r.sig[i] = binary.BigEndian.Uint64(v[8+8*i:])
			}
			r.bands = make([]uint64, bands)
			for i := range r.bands {
				r.bands[i] = binary.BigEndian.Uint64(v[8+8*k+8*i:])
			}
		}
		v = v[n:]
	default:
		return r, fmt.Errorf("%w: bad document record flags %#x", ErrCorrupt, flags)
	}
	r.id = string(v)
	return r, nil
}

// sigOf decodes only the MinHash signature of record v into dst.
func sigOf(dst []uint64, v []byte, k int) []uint64 {
	dst = dst[:0]
	if len(v) < 9+8*(1+k) || v[8] != flagText {
		return dst
	}
	for i := range k {
		dst = append(dst, binary.BigEndian.Uint64(v[17+8*i:]))
	}
	return dst
}

// idOf returns the ID of record v without decoding the rest.
func idOf(v []byte, k, bands int) string {
	if len(v) < 9 {
		return ""
	}
	n := 9
	if v[8] == flagText {
		n += 8 * (1 + k + bands)
	}
	if n > len(v) {
		return ""
	}
	return string(v[n:])
}

// exactKey returns the key of document n with canonical-text hash h in the
// exact bucket.
func exactKey(h uint64, n uint32) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 12), h)
	return binary.BigEndian.AppendUint32(b, n)
}

// bandKey returns the key of band i with hash h in the bands bucket.
func bandKey(i int, h uint64) []byte {
	return binary.BigEndian.AppendUint64(append(make([]byte, 0, 9), byte(i)), h)
}
