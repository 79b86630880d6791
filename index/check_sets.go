package index

import (
	"github.com/RoaringBitmap/roaring/v2"
)

// docSet checks the set of text document n: sorted, and each hash with a
// posting holding n.
func (ck *checker) docSet(n uint32, r *record) error {
	pr, sb := &ck.pr, ck.sb
	ck.setMembers += len(r.set)
	for i, h := range r.set {
		if i > 0 && r.set[i-1] >= h {
			if !pr.add("document %d (%q): set not sorted", n, r.id) {
				return errStop
			}
			break
		}
		var bm roaring.Bitmap
		p := sb.Get(setKey(h))
		if p == nil {
			if !pr.add("document %d (%q): set hash %016x has no posting", n, r.id, h) {
				return errStop
			}
			continue
		}
		if err := readPosting(&bm, p); err != nil || !bm.Contains(n) {
			if !pr.add("document %d (%q): not in the posting of set hash %016x", n, r.id, h) {
				return errStop
			}
		}
	}
	return nil
}

// sets checks the set postings. Every record's (document, hash) is in a
// posting (checked by docSet, each once since a set has no repeats), so
// postings holding as many members in all have no other.
func (ck *checker) sets() {
	pr := &ck.pr
	members := 0
	ck.sb.ForEach(func(key, v []byte) error {
		if len(key) != 8 {
			pr.add("set key %x malformed", key)
			return nil
		}
		var bm roaring.Bitmap
		if err := readPosting(&bm, v); err != nil {
			pr.add("set %x: %v", key, err)
			return nil
		}
		if bm.IsEmpty() {
			pr.add("set %x: empty posting", key)
		}
		members += int(bm.GetCardinality())
		if len(pr.list) >= maxProblems {
			return errStop
		}
		return nil
	})
	if members != ck.setMembers {
		pr.add("%d set postings for %d set hashes of the documents", members, ck.setMembers)
	}
}
