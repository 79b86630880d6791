package index

import (
	"slices"
)

// docShingles checks the shingle set of document n, if the index stores
// them: a text document has one, sorted and without repeats; a document
// without text has none.
func (ck *checker) docShingles(key []byte, n uint32, r *record) error {
	if ck.shb == nil {
		return nil
	}
	pr := &ck.pr
	switch sv := ck.shb.Get(key); {
	case r.text && sv == nil:
		if !pr.add("document %d (%q): no shingle set", n, r.id) {
			return errStop
		}
	case !r.text && sv != nil:
		if !pr.add("document %d (%q): a shingle set for a document without text", n, r.id) {
			return errStop
		}
	case sv != nil:
		if set, err := decodeShingleSet(nil, sv); err != nil || !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != len(set) {
			if !pr.add("document %d (%q): bad shingle set: %v", n, r.id, err) {
				return errStop
			}
		}
	}
	return nil
}

// shingleSets checks that the shingles bucket, if any, holds one set per
// document with text and no other.
func (ck *checker) shingleSets() {
	if ck.shb != nil {
		if n := ck.shb.Stats().KeyN; n != ck.texts {
			ck.pr.add("%d shingle sets for %d documents with text", n, ck.texts)
		}
	}
}
