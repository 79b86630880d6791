package index

import (
	"encoding/binary"
)

// docID checks that ids maps the ID of document n back to it.
func (ck *checker) docID(n uint32, r *record) error {
	if got := ck.idb.Get([]byte(r.id)); len(got) != 4 || binary.BigEndian.Uint32(got) != n {
		if !ck.pr.add("document %d (%q): ids does not map back to it", n, r.id) {
			return errStop
		}
	}
	return nil
}

// ids checks that every ID maps to a document, one ID per document.
func (ck *checker) ids() {
	pr := &ck.pr
	ids := 0
	ck.idb.ForEach(func(id, v []byte) error {
		ids++
		if len(v) != 4 {
			pr.add("ids %q: value of %d bytes", id, len(v))
		} else if _, ok := ck.dense[binary.BigEndian.Uint32(v)]; !ok {
			pr.add("ids %q: document %d missing", id, binary.BigEndian.Uint32(v))
		}
		if len(pr.list) >= maxProblems {
			return errStop
		}
		return nil
	})
	if ids != len(ck.fps) {
		pr.add("%d ids for %d documents", ids, len(ck.fps))
	}
}
