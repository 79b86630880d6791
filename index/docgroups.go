package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"

	bolt "go.etcd.io/bbolt"
)

// Groups of document records (schema 12). A bulk load writes the records
// of consecutive documents as one value of the docs bucket, so that it
// costs one bbolt put (a search of the B+tree from its root, and a node
// element of 16 bytes and a key) per group instead of one per document:
//
//	key:   the number of the group's last document (4 bytes, big-endian), then a zero byte
//	value: c byte | c ends uint16 | the records, one after another
//
// The group holds documents last-c+1 to last; the record of the i-th
// (from 0) is records[end[i-1]:end[i]] (end[-1] = 0), and a slot whose
// record has the length 0 holds no document. A group's key sorts after
// the key of its last document and before that of the next one, so a seek
// to the key of document n finds n's own key, if there is one, or else
// the first group that ends at or after n, which holds n if it starts at
// or before it.
//
// Every other write keeps a key per document: an add takes a new number,
// past every group. The replacement of a grouped document rewrites its
// slot in place, unless the new record would take the group past both
// docGroupValue and its size: then the group is split in two around it,
// and the record goes under its own key. A deletion empties the slot, and
// deletes the group with its last record. So the keys of the bucket cover
// disjoint ranges of numbers in the order of the keys: a document is in
// one group or under its own key, never both, and the documents come in
// increasing order in a pass over the keys. A group of one, such as a
// record longer than docGroupValue, is written under the document's own
// key.
//
// A bulk load ends a group before the record that would take its value
// past docGroupValue: bbolt fills a leaf page with elements up to the page
// size (two at least: a node of two groups takes two pages), so groups
// that fill a page to within a record waste less than that, where values
// of half a page and a little more would waste nearly half of it. The
// bound is of a 4 KiB page whatever the file's page size, so that the
// layout does not depend on the machine: k such groups fill a page of k
// times 4 KiB as well.
const (
	docGroupDocs = 255 // documents in a group, at most (one byte; records of 14 bytes or more make it 253)
	// docGroupValue is a 4 KiB page less its header, a leaf element and
	// the key of a group.
	docGroupValue = 4096 - 16 - 16 - 5
)

// docGroupKey returns the key of a group of records whose last document
// is last.
func docGroupKey(last uint32) []byte {
	return append(binary.BigEndian.AppendUint32(make([]byte, 0, 5), last), 0)
}

// isDocGroupKey reports whether k is the key of a group of records.
func isDocGroupKey(k []byte) bool { return len(k) == 5 && k[4] == 0 }

// appendDocGroup appends to dst the value of a group of the records recs
// of consecutive documents (nil for a slot without one): at most 255 of
// them, and a value of at most 64 KiB.
func appendDocGroup(dst []byte, recs [][]byte) []byte {
	dst = append(dst, byte(len(recs)))
	end := 0
	for _, r := range recs {
		end += len(r)
		dst = binary.BigEndian.AppendUint16(dst, uint16(end))
	}
	for _, r := range recs {
		dst = append(dst, r...)
	}
	return dst
}

// docGroup is a group of records read from the docs bucket.
type docGroup struct {
	first, last uint32
	ends        []byte // 2 bytes a slot
	data        []byte // the records
}

// openDocGroup returns the group under key k with value v, or what is
// wrong with it. It checks the header and the end of the records, not
// each slot's bounds: see slot and problem.
func openDocGroup(k, v []byte) (docGroup, string) {
	if !isDocGroupKey(k) {
		return docGroup{}, fmt.Sprintf("key of %d bytes", len(k))
	}
	if len(v) == 0 || v[0] == 0 {
		return docGroup{}, "no slots"
	}
	c := int(v[0])
	last := binary.BigEndian.Uint32(k)
	if uint32(c-1) > last {
		return docGroup{}, fmt.Sprintf("%d slots before document %d", c, last)
	}
	if len(v) < 1+2*c {
		return docGroup{}, fmt.Sprintf("%d bytes for %d slots", len(v), c)
	}
	g := docGroup{first: last - uint32(c-1), last: last, ends: v[1 : 1+2*c], data: v[1+2*c:]}
	if int(binary.BigEndian.Uint16(g.ends[2*c-2:])) != len(g.data) {
		return docGroup{}, fmt.Sprintf("records of %d bytes, %d by the slots", len(g.data), binary.BigEndian.Uint16(g.ends[2*c-2:]))
	}
	return g, ""
}

// slot returns the record of the i-th document of g, nil if the slot is
// empty, or what is wrong with it. A record read from a group must end
// with its checksum, which body checks.
func (g docGroup) slot(i int) ([]byte, string) {
	start := 0
	if i > 0 {
		start = int(binary.BigEndian.Uint16(g.ends[2*i-2:]))
	}
	end := int(binary.BigEndian.Uint16(g.ends[2*i:]))
	switch {
	case start == end:
		return nil, ""
	case start > end || end > len(g.data):
		return nil, fmt.Sprintf("slot %d from byte %d to %d of %d", i, start, end, len(g.data))
	case end-start < 13 || g.data[start+8]&flagCRC == 0:
		return nil, fmt.Sprintf("slot %d: a record of %d bytes without a checksum", i, end-start)
	}
	return g.data[start:end:end], ""
}

// problem returns what is wrong with the slots of g, "" if nothing: a slot
// out of order or out of bounds, a record too short or without its
// checksum, or no record at all. It costs a pass over the slots.
func (g docGroup) problem() string {
	any := false
	for i := range int(g.last - g.first + 1) {
		v, what := g.slot(i)
		if what != "" {
			return what
		}
		any = any || v != nil
	}
	if !any {
		return "no records"
	}
	return ""
}

// groupAt returns the group under key k, with value v, where a seek of the
// docs bucket to the own key of document n stopped, and whether it holds
// n's slot; or what is wrong with its header.
func groupAt(k, v []byte, n uint32) (g docGroup, ok bool, what string) {
	if !isDocGroupKey(k) {
		return docGroup{}, false, ""
	}
	if g, what = openDocGroup(k, v); what != "" {
		return docGroup{}, false, what
	}
	return g, n >= g.first, ""
}

// seekRecord returns the record of document n through c, a cursor of the
// docs bucket, or nil if there is none. It costs one cursor seek, forward
// seeks cheapest, and allocates nothing. A damaged group panics with
// groupDamage, and a record whose checksum fails panics in body as it is
// read.
func seekRecord(c *bolt.Cursor, n uint32) []byte {
	r, _, _ := seekGroup(c, n)
	return r
}

// seekGroup is seekRecord that also returns the group that holds n's
// record, and whether there is one (a record under its own key has none).
func seekGroup(c *bolt.Cursor, n uint32) ([]byte, docGroup, bool) {
	var dk [4]byte
	key := binary.BigEndian.AppendUint32(dk[:0], n)
	k, v := c.Seek(key)
	if string(k) == string(key) {
		return v, docGroup{}, false
	}
	g, ok, what := groupAt(k, v, n)
	var r []byte
	if ok {
		r, what = g.slot(int(n - g.first))
	}
	if what != "" {
		panic(groupDamage{"docs", bytes.Clone(k), what})
	}
	return r, g, ok
}

// getRecord returns the record of document n in the docs bucket docs, or
// nil: seekRecord through a new cursor, the cost of a bbolt Get.
func getRecord(docs *bolt.Bucket, n uint32) []byte {
	return seekRecord(docs.Cursor(), n)
}

// putRecord puts record v of document n in docs: under n's own key, or in
// n's slot of the group that holds it, which is rewritten, or split in two
// around n if the new record would take the group past both
// docGroupValue and its size, n going under its own key. A damaged group
// is an error wrapping ErrCorrupt, and nothing is written.
func putRecord(docs *bolt.Bucket, n uint32, v []byte) error {
	k, g, err := groupOf(docs, n)
	if err != nil || k == nil {
		if err == nil {
			err = docs.Put(docKey(n), v)
		}
		return err
	}
	recs := g.records()
	old := len(recs[n-g.first])
	recs[n-g.first] = v
	if size := g.size() - old + len(v); size <= max(docGroupValue, g.size()) {
		return docs.Put(k, appendDocGroup(make([]byte, 0, size), recs))
	}
	// Split: the documents before n under the key of a group that ends at
	// n-1, n under its own key, those after it under the group's key.
	i := int(n - g.first)
	if before := partOf(recs[:i]); before != nil {
		if err := docs.Put(docGroupKey(n-1), before); err != nil {
			return err
		}
	}
	if err := docs.Put(docKey(n), v); err != nil {
		return err
	}
	if after := partOf(recs[i+1:]); after != nil {
		return docs.Put(k, after)
	}
	return docs.Delete(k)
}

// partOf returns the value of a group of the records recs, nil if none
// of them is there.
func partOf(recs [][]byte) []byte {
	for _, r := range recs {
		if r != nil {
			return appendDocGroup(nil, recs)
		}
	}
	return nil
}

// deleteRecord deletes the record of document n from docs: its own key,
// or its slot of the group that holds it, which is rewritten with the
// slot empty, or deleted if no record is left. A damaged group is an
// error wrapping ErrCorrupt, and nothing is written.
func deleteRecord(docs *bolt.Bucket, n uint32) error {
	_, err := deleteRecords(docs, []uint32{n})
	return err
}

// deleteRecords deletes the records of the documents ns, in increasing
// order, as deleteRecord does, rewriting a group once for all its
// documents. It returns the bytes it wrote.
func deleteRecords(docs *bolt.Bucket, ns []uint32) (int, error) {
	written := 0
	for len(ns) > 0 {
		n := ns[0]
		k, g, err := groupOf(docs, n)
		if err != nil {
			return written, err
		}
		if k == nil {
			if err := docs.Delete(docKey(n)); err != nil {
				return written, err
			}
			ns = ns[1:]
			continue
		}
		recs := g.records()
		for len(ns) > 0 && ns[0] <= g.last {
			recs[ns[0]-g.first] = nil
			ns = ns[1:]
		}
		if v := partOf(recs); v != nil {
			written += len(v)
			err = docs.Put(k, v)
		} else {
			err = docs.Delete(k)
		}
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// groupOf returns the key (a copy) and the group that hold the slot of
// document n in docs, checked whole, or a nil key if n is not in a group.
// A damaged group is an error wrapping ErrCorrupt.
func groupOf(docs *bolt.Bucket, n uint32) ([]byte, docGroup, error) {
	key := docKey(n)
	k, v := docs.Cursor().Seek(key)
	if string(k) == string(key) {
		return nil, docGroup{}, nil
	}
	g, ok, what := groupAt(k, v, n)
	if ok {
		what = g.problem()
	}
	if what != "" {
		return nil, docGroup{}, fmt.Errorf("%w: docs group %x: %s", ErrCorrupt, k, what)
	}
	if !ok {
		return nil, docGroup{}, nil
	}
	return bytes.Clone(k), g, nil
}

// records returns the records of g's slots, nil for an empty one. g must
// be whole (problem).
func (g docGroup) records() [][]byte {
	recs := make([][]byte, g.last-g.first+1)
	for i := range recs {
		recs[i], _ = g.slot(i)
	}
	return recs
}

// size returns the size of g's value.
func (g docGroup) size() int { return 1 + len(g.ends) + len(g.data) }

// eachRecord yields the number and record of every document of the docs
// bucket, through its cursor c, numbered from `from` on, in order. A key
// that is neither a document's nor a group's is skipped. A damaged group
// panics with groupDamage. It costs a cursor seek and a step per key.
func eachRecord(c *bolt.Cursor, from uint32) iter.Seq2[uint32, []byte] {
	return func(yield func(uint32, []byte) bool) {
		for k, v := c.Seek(docKey(from)); k != nil; k, v = c.Next() {
			if len(k) == 4 {
				if !yield(binary.BigEndian.Uint32(k), v) {
					return
				}
				continue
			}
			if !isDocGroupKey(k) {
				continue
			}
			g, what := openDocGroup(k, v)
			if what == "" {
				what = g.problem()
			}
			if what != "" {
				panic(groupDamage{"docs", bytes.Clone(k), what})
			}
			for i := range int(g.last - g.first + 1) {
				n := g.first + uint32(i)
				if n < from {
					continue
				}
				if r, _ := g.slot(i); r != nil && !yield(n, r) {
					return
				}
			}
		}
	}
}
