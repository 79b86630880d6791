package index

import (
	"encoding/binary"
)

// docs reads the documents: each record must decode, have a valid ID and
// the postings of its keys (docID, docShingles, docExact, docSet). It
// gathers what the other buckets are checked against and checks the
// document count.
func (ck *checker) docs() error {
	x, m, pr, tx := ck.x, &ck.m, &ck.pr, ck.tx
	ck.dense = make(map[uint32]int32)
	ck.ew = inBucket(0)
	if x.settings.MinHash {
		ck.ew = m.exactFrom(x)
	}
	ck.idb = tx.Bucket(bucketIDs)
	ck.docb = tx.Bucket(bucketDocs)
	ck.exb = tx.Bucket(bucketExact)
	ck.elv = x.levels()
	ck.edc = tx.Bucket(bucketDocs).Cursor()
	// The keys cover disjoint ranges of numbers in key order (see
	// docgroups.go): a key whose range starts at or before the end of the
	// one before would hide documents from a lookup.
	end, seen := uint32(0), false // the last number the keys so far cover
	covers := func(key []byte, first, last uint32) bool {
		if seen && first <= end {
			if !pr.add("docs key %x covers documents %d to %d, the key before it up to %d", key, first, last, end) {
				return false
			}
		}
		end, seen = last, true
		return true
	}
	doc := func(n uint32, v []byte) error {
		key := docKey(n)
		if n >= m.next {
			if !pr.add("document %d at or above the next number %d", n, m.next) {
				return errStop
			}
		}
		r, err := decodeRecord(v, x.lay, x.settings.MinHash || x.lay.sets)
		if err != nil {
			if !pr.add("document %d: %v", n, err) {
				return errStop
			}
			return nil
		}
		if validID(r.id) != nil {
			pr.add("document %d: invalid ID %q", n, r.id)
		}
		if err := ck.docID(n, &r); err != nil {
			return err
		}
		if err := ck.docShingles(key, n, &r); err != nil {
			return err
		}
		if r.text {
			ck.texts++
			if err := ck.docExact(n, &r); err != nil {
				return err
			}
			if x.lay.sets {
				if err := ck.docSet(n, &r); err != nil {
					return err
				}
			}
			if x.settings.MinHash {
				r.sig = nil
				ck.recs = append(ck.recs, r)
				ck.recN = append(ck.recN, n)
				ck.dense[n] = int32(len(ck.fps))
				ck.fps = append(ck.fps, r.fp)
				return nil
			}
		} else if x.lay.sets {
			pr.add("document %d (%q): no set", n, r.id)
		}
		ck.dense[n] = int32(len(ck.fps))
		ck.fps = append(ck.fps, r.fp)
		return nil
	}
	var err error
	c := tx.Bucket(bucketDocs).Cursor()
	for key, v := c.First(); key != nil && err == nil; key, v = c.Next() {
		switch {
		case len(key) == 4:
			n := binary.BigEndian.Uint32(key)
			if !covers(key, n, n) {
				err = errStop
				continue
			}
			err = doc(n, v)
		case isDocGroupKey(key):
			g, what := openDocGroup(key, v)
			if what == "" {
				what = g.problem()
			}
			if what != "" {
				if !pr.add("docs group %x: %s", key, what) {
					err = errStop
				}
				continue
			}
			if !covers(key, g.first, g.last) {
				err = errStop
				continue
			}
			for i := 0; i <= int(g.last-g.first) && err == nil; i++ {
				if r, _ := g.slot(i); r != nil {
					err = doc(g.first+uint32(i), r)
				}
			}
		default:
			if !pr.add("docs key of %d bytes", len(key)) {
				err = errStop
			}
		}
	}
	if err != nil && err != errStop {
		return err
	}
	if int64(len(ck.fps)) != m.count {
		pr.add("%d documents, count says %d", len(ck.fps), m.count)
	}
	return nil
}
