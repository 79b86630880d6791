package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"
	bolt "go.etcd.io/bbolt"
)

// The ids bucket maps the ID of each stored document to its number.
//
// An index created by schema 11 or later groups it (the meta key idgroups
// holds the group width g), so that the ID is stored once, in the record,
// and a bulk load writes one key per group instead of one per document:
// the key of a group is the leading g bits of the ID's hash (idHash) as a
// big-endian uint32 with the other bits 0 (4 bytes), and its value the
// group's entries, 8 bytes each: the next 32 bits of the hash and the
// document number, both big-endian, in increasing order of the pair. A
// lookup reads the group and the record of each entry whose 32 bits are
// the ID's, and compares its ID: one group read, a binary search and, for
// a stored ID, one record read (two IDs share 32+g bits of hash in about
// one lookup of 2^32). g is idGroupBits(Settings.ExpectedDocs), so that a
// group holds about idGroupTarget entries (256 bytes) at the expected
// size: an online add or delete reads and rewrites its group, larger in
// an index grown far beyond it. An entry costs 8 bytes, and a group a
// bbolt element and its key, 20 bytes, against the ID, its number and an
// element per document before.
//
// An index created before schema 11 keeps one key per ID (the ID; the
// number, 4 bytes big-endian, as value) and is read and written so; its
// meta has no idgroups key (idCodec.g < 0).

// idCodec is how the ids bucket of an index keys its documents.
type idCodec struct {
	g int // the group width, -1 for a key per ID (before schema 11)
}

// grouped reports whether the bucket is grouped.
func (c idCodec) grouped() bool { return c.g >= 0 }

// keyIDGroups is the meta key of the group width of the ids bucket.
var keyIDGroups = []byte("idgroups")

// idGroupTarget is the mean number of entries of an ID group at the
// expected size.
const idGroupTarget = 32

// idGroupBits returns the group width of the ids bucket of an index of n
// expected documents: about idGroupTarget entries a group.
func idGroupBits(n int) int {
	return max(0, min(int(math.Ceil(math.Log2(float64(n)/idGroupTarget))), 32))
}

// idEntrySize is the size of an entry of an ID group.
const idEntrySize = 8

// idHash returns the hash of an ID in a grouped ids bucket: the 64-bit
// xxHash (XXH64, seed 0) of its bytes. It is persisted: TestGoldenIDHash
// pins it.
func idHash(id string) uint64 { return xxhash.Sum64String(id) }

// key appends to dst the key of the group of hash h.
func (c idCodec) key(dst []byte, h uint64) []byte {
	p := uint32(h >> 32)
	if c.g < 32 {
		p &^= 1<<(32-c.g) - 1
	}
	return binary.BigEndian.AppendUint32(dst, p)
}

// frag returns the 32 bits of h after the group's g.
func (c idCodec) frag(h uint64) uint32 { return uint32(h << c.g >> 32) }

// idEntry is an entry of an ID group: the bits of the hash after the
// group's, and the document number.
type idEntry struct {
	frag uint32
	n    uint32
}

func (e idEntry) less(f idEntry) bool {
	return e.frag < f.frag || e.frag == f.frag && e.n < f.n
}

func cmpIDEntry(a, b idEntry) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

func appendIDEntry(dst []byte, e idEntry) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(dst, e.frag), e.n)
}

// idEntryAt returns entry i of group value v.
func idEntryAt(v []byte, i int) idEntry {
	return idEntry{binary.BigEndian.Uint32(v[i*idEntrySize:]), binary.BigEndian.Uint32(v[i*idEntrySize+4:])}
}

// checkIDGroup returns an error wrapping ErrCorrupt if v is not a
// sequence of entries in increasing order.
func checkIDGroup(v []byte) error {
	if len(v)%idEntrySize != 0 {
		return fmt.Errorf("%w: ID group of %d bytes", ErrCorrupt, len(v))
	}
	for i := 1; i < len(v)/idEntrySize; i++ {
		if !idEntryAt(v, i-1).less(idEntryAt(v, i)) {
			return fmt.Errorf("%w: ID group out of order at entry %d", ErrCorrupt, i)
		}
	}
	return nil
}

// idCandidates calls fn with the number of each entry of the group value
// v whose bits are frag, in increasing order, until fn returns false. It
// costs a binary search of the group. It fails with ErrCorrupt if v is
// not a whole number of entries.
func idCandidates(v []byte, frag uint32, fn func(n uint32) bool) error {
	if len(v)%idEntrySize != 0 {
		return fmt.Errorf("%w: ID group of %d bytes", ErrCorrupt, len(v))
	}
	m := len(v) / idEntrySize
	lo, hi := 0, m
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if binary.BigEndian.Uint32(v[mid*idEntrySize:]) < frag {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < m; i++ {
		e := idEntryAt(v, i)
		if e.frag != frag || !fn(e.n) {
			break
		}
	}
	return nil
}

// docNumber returns the number of the stored document id, and false if
// there is none. idb and docs are the ids and docs buckets of the
// transaction. It costs a bbolt lookup before schema 11, and a lookup, a
// binary search of the group and a record read (per entry whose hash bits
// match, about one) in a grouped ids bucket.
func (x *Index) docNumber(idb, docs *bolt.Bucket, id string) (uint32, bool, error) {
	n, _, ok, err := x.docRecord(idb, docs, id)
	return n, ok, err
}

// docRecord is docNumber that also returns the record it read, in a
// grouped ids bucket (nil before schema 11).
func (x *Index) docRecord(idb, docs *bolt.Bucket, id string) (uint32, []byte, bool, error) {
	if !x.ids.grouped() {
		v := idb.Get([]byte(id))
		if len(v) != 4 {
			return 0, nil, false, nil
		}
		return binary.BigEndian.Uint32(v), nil, true, nil
	}
	h := idHash(id)
	var kb [4]byte
	var n uint32
	var rec []byte
	found := false
	var ferr error
	err := idCandidates(idb.Get(x.ids.key(kb[:0], h)), x.ids.frag(h), func(c uint32) bool {
		v := docs.Get(docKey(c))
		if v == nil {
			ferr = fmt.Errorf("%w: ids: document %d missing", ErrCorrupt, c)
			return false
		}
		if string(idBytes(v, x.lay)) == id {
			n, rec, found = c, v, true
			return false
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	return n, rec, found, err
}

// idOp is a change of a grouped ids bucket: the entry of the document n
// of ID hash h is added or, with del, removed.
type idOp struct {
	h   uint64
	n   uint32
	del bool
}

// updateIDGroups applies ops to the grouped ids bucket idb: it reads and
// rewrites each group that ops change, once. It sorts ops, keeping the
// order of the ops of one entry: the last wins. An entry to add that is
// there, or to remove that is not, is no error.
func (x *Index) updateIDGroups(idb *bolt.Bucket, ops []idOp) error {
	c := x.ids
	slices.SortStableFunc(ops, func(a, b idOp) int {
		if a.h != b.h {
			if a.h < b.h {
				return -1
			}
			return 1
		}
		return int(int64(a.n) - int64(b.n))
	})
	var kb, ka [4]byte
	var ents []idEntry
	for i := 0; i < len(ops); {
		key := c.key(kb[:0], ops[i].h)
		j := i + 1
		for j < len(ops) && string(c.key(ka[:0], ops[j].h)) == string(key) {
			j++
		}
		old := idb.Get(key)
		if err := checkIDGroup(old); err != nil {
			return err
		}
		ents = ents[:0]
		for k := range len(old) / idEntrySize {
			ents = append(ents, idEntryAt(old, k))
		}
		for _, op := range ops[i:j] {
			e := idEntry{c.frag(op.h), op.n}
			k, ok := slices.BinarySearchFunc(ents, e, cmpIDEntry)
			switch {
			case op.del && ok:
				ents = slices.Delete(ents, k, k+1)
			case !op.del && !ok:
				ents = slices.Insert(ents, k, e)
			}
		}
		if len(ents) == 0 {
			if old != nil {
				if err := idb.Delete(key); err != nil {
					return err
				}
			}
		} else {
			// bbolt keeps the value until the commit: a new slice per group.
			nv := make([]byte, 0, len(ents)*idEntrySize)
			for _, e := range ents {
				nv = appendIDEntry(nv, e)
			}
			if err := idb.Put(key, nv); err != nil { // Put copies the key
				return err
			}
		}
		i = j
	}
	return nil
}

// putIDGroups writes the ids bucket of a bulk load into an empty grouped
// index, in key order, and calls kill with each document that a later
// document of the same ID (a higher number) replaces, which gets no
// entry. It sorts the IDs by hash with a radix sort, 32 bytes a document
// with its scratch, and compares IDs only where their hashes are equal.
func (l *loader) putIDGroups(w *bulkWriter, kill func(idNum)) error {
	c := l.x.ids
	es := make([]entry, len(l.ids))
	for i, e := range l.ids {
		es[i] = entry{p: idHash(e.id), n: uint32(i)}
	}
	radixSort(es, make([]entry, len(es)))
	// The documents that a later one of their ID replaces.
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[j].p == es[i].p {
			j++
		}
		if j-i > 1 {
			run := es[i:j]
			slices.SortFunc(run, func(a, b entry) int {
				x, y := l.ids[a.n], l.ids[b.n]
				if x.id != y.id {
					if x.id < y.id {
						return -1
					}
					return 1
				}
				return int(int64(x.n) - int64(y.n))
			})
			for k := 0; k+1 < len(run); k++ {
				if l.ids[run[k].n].id == l.ids[run[k+1].n].id {
					kill(l.ids[run[k].n])
					run[k].n = math.MaxUint32 // no entry
				}
			}
		}
		i = j
	}
	var kb, ka [4]byte
	var ents []idEntry
	for i := 0; i < len(es); {
		key := c.key(kb[:0], es[i].p)
		ents = ents[:0]
		j := i
		for ; j < len(es) && string(c.key(ka[:0], es[j].p)) == string(key); j++ {
			if es[j].n != math.MaxUint32 {
				ents = append(ents, idEntry{c.frag(es[j].p), l.ids[es[j].n].n})
			}
		}
		// In hash order, which is the entries' order but where two hashes
		// share the group's bits and the entry's.
		if !slices.IsSortedFunc(ents, cmpIDEntry) {
			slices.SortFunc(ents, cmpIDEntry)
		}
		if len(ents) == 0 {
			i = j
			continue
		}
		v := make([]byte, 0, len(ents)*idEntrySize)
		for _, e := range ents {
			v = appendIDEntry(v, e)
		}
		if err := w.put(bucketIDs, key, v); err != nil {
			return err
		}
		i = j
	}
	return nil
}
