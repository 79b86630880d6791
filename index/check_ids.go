package index

import (
	"encoding/binary"
)

// docID checks that ids maps the ID of document n back to it, and, in a
// grouped ids bucket, that no other document has its ID.
func (ck *checker) docID(n uint32, r *record) error {
	if !ck.x.ids.grouped() {
		if got := ck.idb.Get([]byte(r.id)); len(got) != 4 || binary.BigEndian.Uint32(got) != n {
			if !ck.pr.add("document %d (%q): ids does not map back to it", n, r.id) {
				return errStop
			}
		}
		return nil
	}
	c := ck.x.ids
	h := idHash(r.id)
	var kb [4]byte
	key := c.key(kb[:0], h)
	group := ck.idb.Get(key)
	if p := ck.groupProblem(bucketIDs, c, key, group); p != "" {
		if !ck.pr.add("document %d (%q): ids group %x: %s", n, r.id, key, p) {
			return errStop
		}
		return nil
	}
	found := false
	var other []uint32
	_ = c.candidates(group, c.bits(h), func(m uint32) bool { // the group is whole (groupProblem)
		if m == n {
			found = true
		} else if v := getRecord(ck.docb, m); v != nil && string(idBytes(v, ck.x.lay)) == r.id {
			other = append(other, m)
		}
		return true
	})
	ok := true
	switch {
	case !found:
		ok = ck.pr.add("document %d (%q): ids does not map back to it", n, r.id)
	case len(other) > 0:
		ok = ck.pr.add("document %d (%q): documents %v have its ID", n, r.id, other)
	}
	if !ok {
		return errStop
	}
	return nil
}

// ids checks that every ID maps to a document, one ID per document.
func (ck *checker) ids() {
	pr := &ck.pr
	ids := 0
	c := ck.x.ids
	each := func(key []byte, n uint32) error {
		ids++
		if _, ok := ck.dense[n]; !ok {
			if c.grouped() {
				pr.add("ids group %x: document %d missing", key, n)
			} else {
				pr.add("ids %q: document %d missing", key, n)
			}
		}
		if len(pr.list) >= maxProblems {
			return errStop
		}
		return nil
	}
	if c.grouped() {
		bad := func(key []byte, what string) { pr.add("ids group %x: %s", key, what) }
		c.each(ck.idb, bad, func(key []byte, e hashEntry) error { return each(key, e.n) })
	} else {
		ck.idb.ForEach(func(key, v []byte) error {
			if len(v) != 4 {
				pr.add("ids %q: value of %d bytes", key, len(v))
				return nil
			}
			return each(key, binary.BigEndian.Uint32(v))
		})
	}
	if ids != len(ck.fps) {
		pr.add("%d ids for %d documents", ids, len(ck.fps))
	}
}
