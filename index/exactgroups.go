package index

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The exact bucket holds the pairs (canonical-text hash, document number)
// of the text documents (with MinHash, those below the exact watermark:
// see meta.exactFrom).
//
// An index created by schema 11 or later groups it (see hashgroups.go;
// the meta key exactgroups holds the group width g): a group holds the
// pairs whose hash starts with its g bits, and an entry the rest of the
// hash, ceil((64-g)/8) bytes (7 at the default ExpectedDocs), and the
// number, 4 bytes. A bulk load writes one key per group of about 32
// documents instead of one per document, and a document costs 11 bytes
// instead of a bbolt element and a 12-byte key. A lookup reads a group
// and searches it; an add or a delete reads and rewrites its group.
//
// An index created before schema 11 keeps one key per pair: the hash and
// the number (8 and 4 bytes, big-endian), with an empty value; its meta
// has no exactgroups key (g < 0).

// keyExactGroups is the meta key of the group width of the exact bucket.
var keyExactGroups = []byte("exactgroups")

// exactGroups returns the codec of an exact bucket of group width g (-1:
// not grouped): its entries hold every bit of the hash after the group's.
func exactGroups(g int) hashGroups {
	if g < 0 {
		return hashGroups{g: -1}
	}
	return hashGroups{g: g, w: (64 - g + 7) / 8}
}

// groupDamage is the panic of a reader of a damaged group of a grouped
// bucket; the transaction it happens in returns it as an error wrapping
// ErrCorrupt (see recoverCorrupt).
type groupDamage struct {
	bucket string
	key    []byte
	what   string
}

func (d groupDamage) String() string {
	return fmt.Sprintf("%s group %x: %s", d.bucket, d.key, d.what)
}

// exactIn appends to dst the numbers of the documents under hash h in the
// exact bucket exb, in increasing order. It costs a seek of the bucket
// and, when grouped, a binary search of a group. A damaged group panics
// with groupDamage.
func (x *Index) exactIn(dst []uint32, exb *bolt.Bucket, h uint64) []uint32 {
	c := x.exact
	if !c.grouped() {
		prefix := exactKey(h, 0)[:8]
		cur := exb.Cursor()
		for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
			if len(k) == 12 {
				dst = append(dst, binary.BigEndian.Uint32(k[8:]))
			}
		}
		return dst
	}
	var kb [4]byte
	key := c.key(kb[:0], h)
	v := exb.Get(key)
	err := c.candidates(v, c.bits(h), func(n uint32) bool {
		dst = append(dst, n)
		return true
	})
	if err != nil {
		panic(groupDamage{"exact", bytes.Clone(key), c.problem(v)})
	}
	return dst
}

// eachExact calls fn with each pair of the exact bucket exb, by hash and
// then number, until fn returns an error. A malformed key or group is
// told to bad and skipped or, with bad nil, ends the scan with an error
// wrapping ErrCorrupt. It costs a pass over the bucket.
func (x *Index) eachExact(exb *bolt.Bucket, bad func(key []byte, what string), fn func(h uint64, n uint32) error) error {
	c := x.exact
	var damage error // the first damage, with bad nil
	if bad == nil {
		bad = func(key []byte, what string) {
			if damage == nil {
				damage = fmt.Errorf("%w: exact key %x: %s", ErrCorrupt, key, what)
			}
		}
	}
	var err error
	if c.grouped() {
		err = c.each(exb, bad, func(k []byte, e hashEntry) error {
			if damage != nil {
				return damage
			}
			return fn(c.hash(k, e.bits), e.n)
		})
	} else {
		err = exb.ForEach(func(k, _ []byte) error {
			if len(k) != 12 {
				bad(k, fmt.Sprintf("key of %d bytes", len(k)))
				return damage
			}
			return fn(binary.BigEndian.Uint64(k), binary.BigEndian.Uint32(k[8:]))
		})
	}
	if err == nil {
		err = damage
	}
	return err
}
