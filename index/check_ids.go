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
	err := c.candidates(group, c.bits(h), func(m uint32) bool {
		if m == n {
			found = true
		} else if v := ck.docb.Get(docKey(m)); v != nil && string(idBytes(v, ck.x.lay)) == r.id {
			other = append(other, m)
		}
		return true
	})
	ok := true
	switch {
	case err != nil:
		ok = ck.pr.add("document %d (%q): %v", n, r.id, err)
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
	ck.idb.ForEach(func(key, v []byte) error {
		if !c.grouped() {
			if len(v) != 4 {
				pr.add("ids %q: value of %d bytes", key, len(v))
				return nil
			}
			return each(key, binary.BigEndian.Uint32(v))
		}
		if len(key) != 4 || c.prefix(uint64(binary.BigEndian.Uint32(key))<<32) != binary.BigEndian.Uint32(key) {
			pr.add("ids: key %x is no group's", key)
			return nil
		}
		if p := ck.groupProblem(bucketIDs, c, key, v); p != "" {
			pr.add("ids group %x: %s", key, p)
			return nil
		}
		if len(v) == 0 {
			pr.add("ids group %x: empty", key)
		}
		for i := range len(v) / c.size() {
			if err := each(key, c.entryAt(v, i).n); err != nil {
				return err
			}
		}
		return nil
	})
	if ids != len(ck.fps) {
		pr.add("%d ids for %d documents", ids, len(ck.fps))
	}
}
