package index

import (
	"slices"

	bolt "go.etcd.io/bbolt"
)

// exactHits appends to hits the documents of tx whose text has the exact
// hash h (appendExact), unless the band filter bf (nil: none) shows that
// no document has it, and returns them as a set too: the exact copies of a
// probe with text h. docs is the docs bucket.
func (x *Index) exactHits(hits []hit, tx *bolt.Tx, bf *bandFilter, docs *bolt.Bucket, h uint64) ([]hit, map[uint32]bool) {
	var exactSet map[uint32]bool
	if bf == nil || bf.has(exactBand, h) {
		for _, n := range x.appendExact(nil, tx, docs.Cursor(), h) {
			if exactSet == nil {
				exactSet = make(map[uint32]bool)
			}
			exactSet[n] = true
			hits = append(hits, hit{n: n, d: distUnknown})
		}
	}
	return hits, exactSet
}

// appendExact appends to dst the documents of tx whose text has the exact
// hash h, each once, in document order: those under h in the exact bucket
// and those under h in the band levels (which hold the documents from the
// exact watermark on, meta.exactFrom) whose record has that hash. docs is a
// cursor of the docs bucket. Cost: a seek of the bucket and, with the
// levels, a map lookup per level and a seek per document found there.
func (x *Index) appendExact(dst []uint32, tx *bolt.Tx, docs *bolt.Cursor, h uint64) []uint32 {
	start := len(dst)
	dst = x.exactIn(dst, tx.Bucket(bucketExact), h)
	if lv := x.levels(); lv[0] != nil {
		mid := len(dst)
		if dst = x.recentDocs(dst, lv, docs, exactBand, h); mid > start && len(dst) > mid {
			// A document may be in both while a merge moves it.
			slices.Sort(dst[start:])
			dst = dst[:start+len(slices.Compact(dst[start:]))]
		}
	}
	return dst
}
