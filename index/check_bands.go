package index

import (
	"github.com/RoaringBitmap/roaring/v2"
)

// bands checks the band postings of an index with MinHash: each posting
// holds documents with that band below the band's watermark, and the
// documents from the watermark on have their bands in the in-memory
// levels.
func (ck *checker) bands() {
	x, m, pr, tx := ck.x, &ck.m, &ck.pr, ck.tx
	nb := x.settings.bandSlots()
	members := 0
	byN := make(map[uint32]*record, len(ck.recs))
	for i := range ck.recs {
		byN[ck.recN[i]] = &ck.recs[i]
	}
	bad := func(key []byte, what string) {
		pr.add("band key %x: %s", key, what)
	}
	_ = x.eachBandPosting(tx.Bucket(bucketBands), bad, func(b int, h uint64, v []byte) error {
		key := appendBandKey(nil, b, h)
		if b >= nb {
			pr.add("band key %x malformed", key)
			return nil
		}
		var bm roaring.Bitmap
		if err := readPosting(&bm, v); err != nil {
			pr.add("band %x: %v", key, err)
			return nil
		}
		if bm.IsEmpty() {
			pr.add("band %x: empty posting", key)
		}
		for n := range roaring.Values(&bm) {
			members++
			r := byN[n]
			if r == nil || r.bands[b] != h || n >= m.bandFrom(x, b) {
				pr.add("band %x: document %d does not have this band", key, n)
				break
			}
		}
		if len(pr.list) >= maxProblems {
			return errStop
		}
		return nil
	})
	// The documents from a band's watermark on have that band in the
	// in-memory levels, not in the bucket.
	inBucket := 0
	lv := x.levels()
	dc := tx.Bucket(bucketDocs).Cursor()
	for n, r := range byN {
		for i, h := range r.bands {
			if h == 0 { // a band the text does not have
				continue
			}
			if n < m.bandFrom(x, i) {
				inBucket++
				continue
			}
			if !ck.inLevels(lv, dc, i, h, n) {
				pr.add("document %d: band %d not in the in-memory levels", n, i)
				break
			}
		}
	}
	if members != inBucket {
		pr.add("%d band postings for %d bands of documents below their band's watermark", members, inBucket)
	}
}
