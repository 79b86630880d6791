package index

import (
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
)

// setHits appends to hits the documents of tx that share at least
// minShared hashes with the set of a probe (a set method's): those in at
// least minShared of the set's postings. Cost: a lookup and a decoding of
// the posting per hash of set.
func (x *Index) setHits(hits []hit, tx *bolt.Tx, set []uint64, minShared int) ([]hit, error) {
	sb := tx.Bucket(bucketSets)
	var bms []*roaring.Bitmap
	for _, h := range set {
		if v := sb.Get(setKey(h)); v != nil {
			b := roaring.New()
			if err := readPosting(b, v); err != nil {
				return nil, fmt.Errorf("%w: set posting: %v", ErrCorrupt, err)
			}
			bms = append(bms, b)
		}
	}
	return atLeast(hits, bms, minShared)
}

// minShared returns the fewest set hashes a candidate shares with a query
// under the index's set method.
func (x *Index) minShared() int {
	if x.settings.Text.Method == MethodShort {
		return x.settings.Text.MinShared
	}
	return 1
}
