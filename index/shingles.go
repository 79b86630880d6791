package index

import (
	"encoding/binary"
	"fmt"

	"github.com/simidx/simidx/shingle"
	bolt "go.etcd.io/bbolt"
)

// bucketShingles holds, in an index with Settings.StoreShingles, the
// shingle set of every text document: document number (4 bytes) to the
// set's encoding (see appendShingleSet). Schema 5.
var bucketShingles = []byte("shingles")

// appendShingleSet appends the encoding of set (sorted, without repeats)
// to b: its length and then the gaps between consecutive hashes (the
// first from 0), all as unsigned varints. Hashes are uniform, so a set of
// n hashes takes about n*(64-log2 n)/7 bytes: 7 to 9 bytes a hash.
func appendShingleSet(b []byte, set []uint64) []byte {
	b = binary.AppendUvarint(b, uint64(len(set)))
	prev := uint64(0)
	for _, h := range set {
		b = binary.AppendUvarint(b, h-prev)
		prev = h
	}
	return b
}

// decodeShingleSet appends to dst the set encoded in v, or returns an error
// wrapping ErrCorrupt. Cost: O(len(v)), no allocation when dst is large
// enough.
func decodeShingleSet(dst []uint64, v []byte) ([]uint64, error) {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)) {
		return dst, fmt.Errorf("%w: bad shingle set", ErrCorrupt)
	}
	v = v[k:]
	prev := uint64(0)
	for range n {
		d, k := binary.Uvarint(v)
		if k <= 0 {
			return dst, fmt.Errorf("%w: short shingle set", ErrCorrupt)
		}
		v = v[k:]
		prev += d
		dst = append(dst, prev)
	}
	if len(v) != 0 {
		return dst, fmt.Errorf("%w: shingle set has %d trailing bytes", ErrCorrupt, len(v))
	}
	return dst, nil
}

// setJaccard is the Jaccard similarity of two shingle sets, 0 when either
// is empty (a text shorter than a shingle under mod-p sampling has none:
// it is similar to nothing).
func setJaccard(a, b []uint64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return shingle.Jaccard(a, b)
}

// storedShingles returns the shingle set of document n in b, the shingles
// bucket of a transaction, opened once by the caller (reusing dst), and
// false if the index does not store sets (b is nil) or n has none (a
// document added by fingerprint).
func storedShingles(b *bolt.Bucket, dst []uint64, n uint32) ([]uint64, bool, error) {
	if b == nil {
		return dst[:0], false, nil
	}
	v := b.Get(docKey(n))
	if v == nil {
		return dst[:0], false, nil
	}
	set, err := decodeShingleSet(dst[:0], v)
	return set, err == nil, err
}

// putShingles writes (or, for a document without text, removes) the
// stored shingle set of document n, in an index that stores them.
func (x *Index) putShingles(tx *bolt.Tx, n uint32, r *record) error {
	if !x.settings.StoreShingles {
		return nil
	}
	b := tx.Bucket(bucketShingles)
	if b == nil {
		return fmt.Errorf("%w: no shingles bucket", ErrCorrupt)
	}
	if r == nil || !r.text {
		return b.Delete(docKey(n))
	}
	b.FillPercent = 1.0 // new documents are appended: full pages
	return b.Put(docKey(n), appendShingleSet(nil, r.shingles))
}
