package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	bolt "go.etcd.io/bbolt"
)

// The ids bucket maps the ID of each stored document to its number.
//
// An index created by schema 11 or later groups it (see hashgroups.go;
// the meta key idgroups holds the group width g), so that the ID is
// stored once, in the record, and a bulk load writes one key per group
// instead of one per document: a group holds the documents whose ID's
// hash (idHash) starts with its g bits, and an entry the next 32 bits of
// the hash and the number, 8 bytes. A lookup reads the group and the
// record of each entry whose 32 bits are the ID's, and compares its ID:
// one group read, a binary search and, for a stored ID, one record read
// (two IDs share 32+g bits of hash with probability 2^-(32+g)). g is
// hashGroupBits(Settings.ExpectedDocs): about 32 entries (256 bytes) a
// group at the expected size. An entry costs 8 bytes, and a group a bbolt
// element and its key, 20 bytes, against the ID, its number and an
// element per document before.
//
// An index created before schema 11 keeps one key per ID (the ID; the
// number, 4 bytes big-endian, as value) and is read and written so; its
// meta has no idgroups key (g < 0).

// keyIDGroups is the meta key of the group width of the ids bucket.
var keyIDGroups = []byte("idgroups")

// idGroups returns the codec of an ids bucket of group width g (-1: not
// grouped).
func idGroups(g int) hashGroups { return hashGroups{g: g, w: 4} }

// idHash returns the hash of an ID in a grouped ids bucket: the 64-bit
// xxHash (XXH64, seed 0) of its bytes. It is persisted: TestGoldenIDHash
// pins it.
func idHash(id string) uint64 { return xxhash.Sum64String(id) }

// docRecord returns the number of the stored document id, and false if
// there is none, and in a grouped ids bucket the record it read (nil
// before schema 11). idb and docs are the ids and docs buckets of the
// transaction. It costs a bbolt lookup before schema 11, and a lookup, a
// binary search of the group and a record read (per entry whose hash bits
// match, about one) in a grouped ids bucket.
func (x *Index) docRecord(idb, docs *bolt.Bucket, id string) (uint32, []byte, bool, error) {
	c := x.ids
	if !c.grouped() {
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
	err := c.candidates(idb.Get(c.key(kb[:0], h)), c.bits(h), func(m uint32) bool {
		v := getRecord(docs, m)
		if v == nil {
			ferr = fmt.Errorf("%w: ids: document %d missing", ErrCorrupt, m)
			return false
		}
		if string(idBytes(v, x.lay)) == id {
			n, rec, found = m, v, true
			return false
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	return n, rec, found, err
}

// putIDGroups writes the ids bucket of a bulk load into an empty grouped
// index, in key order, and calls kill with each document that a later
// document of the same ID (a higher number) replaces, which gets no
// entry. It sorts the ID hashes (l.idh) with a radix sort, 32 bytes a
// document with its scratch, and compares IDs, read from the records the
// load wrote, only where their hashes are equal: a replaced document, or
// one of two IDs whose 64-bit hashes collide.
func (l *loader) putIDGroups(w *bulkWriter, kill func(idNum)) error {
	es := make([]entry, l.idh.len())
	for i, h := range l.idh.all {
		es[i] = entry{p: h, n: l.base + uint32(i)}
	}
	radixSort(es, make([]entry, len(es)))
	// The documents that a later one of their ID replaces.
	var run []idNum
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[j].p == es[i].p {
			j++
		}
		if j-i > 1 {
			if err := w.begin(); err != nil {
				return err
			}
			docs := w.tx.Bucket(bucketDocs)
			run = run[:0]
			for _, e := range es[i:j] {
				v := getRecord(docs, e.n)
				if v == nil {
					return fmt.Errorf("%w: no record of document %d of the load", ErrCorrupt, e.n)
				}
				run = append(run, idNum{idOf(v, l.x.lay), e.n})
			}
			// By ID, and by number among equal IDs (the entries are in
			// number order: a stable sort).
			slices.SortStableFunc(run, func(a, b idNum) int { return strings.Compare(a.id, b.id) })
			// In ID order: put sorts a group's entries again.
			for k := range run {
				es[i+k].n = run[k].n
				if k+1 < len(run) && run[k].id == run[k+1].id {
					kill(run[k])
					es[i+k].n = math.MaxUint32 // no entry
				}
			}
		}
		i = j
	}
	l.idh = column[uint64]{}
	return l.x.ids.put(w, bucketIDs, es)
}
