package index

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
)

// bandHits appends to hits the documents of tx that share at least
// minBands of the MinHash bands with a probe whose band hashes are bands:
// those in the postings of the bands bucket and those under the bands in
// the in-memory levels that belong to tx's snapshot (recentKeyDocs). A
// band the band filter bf (nil: none) has never seen is not looked up.
// docs is the docs bucket. Cost: a filter lookup, a seek and a decoding
// of the posting per band (and a scan of its group: see bandgroups.go),
// and the levels' lookups.
func (x *Index) bandHits(hits []hit, tx *bolt.Tx, bf *bandFilter, docs *bolt.Bucket, bands []uint64, minBands int) ([]hit, error) {
	// The bands the filter may hold, asked in one pass so that its
	// cache misses (about one a band) overlap.
	ks := make([]recentKey, 0, len(bands))
	for i, h := range bands {
		if h != 0 && (bf == nil || bf.has(i, h)) { // 0: a band the probe does not have
			ks = append(ks, recentKey{h: h, b: uint8(i)})
		} // else no stored document has this band
	}
	var recent []keyDoc
	if lv := x.levels(); lv[0] != nil && len(ks) > 0 {
		recent = x.recentKeyDocs(lv, docs.Cursor(), ks)
	}
	// One cursor for every band: a bbolt Get makes (and allocates) a
	// new one each time.
	bc := tx.Bucket(bucketBands).Cursor()
	var bms []*roaring.Bitmap
	var nums []uint32
	for ki, key := range ks {
		var b *roaring.Bitmap
		v, err := x.bandPosting(bc, int(key.b), key.h)
		if err != nil {
			return nil, err
		}
		if v != nil {
			b = roaring.New()
			if err := readPosting(b, v); err != nil {
				return nil, fmt.Errorf("%w: band posting: %v", ErrCorrupt, err)
			}
		}
		nums = nums[:0]
		for ; len(recent) > 0 && recent[0].k == uint32(ki); recent = recent[1:] {
			nums = append(nums, recent[0].n)
		}
		if len(nums) > 0 {
			if b == nil {
				b = roaring.New()
			} else {
				b = b.Clone() // FromBuffer's bitmap reads the page
			}
			b.AddMany(nums)
		}
		if b != nil {
			bms = append(bms, b)
		}
	}
	return atLeast(hits, bms, minBands)
}
