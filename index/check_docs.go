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
	err := tx.Bucket(bucketDocs).ForEach(func(key, v []byte) error {
		if len(key) != 4 {
			if !pr.add("docs key of %d bytes", len(key)) {
				return errStop
			}
			return nil
		}
		n := binary.BigEndian.Uint32(key)
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
	})
	if err != nil && err != errStop {
		return err
	}
	if int64(len(ck.fps)) != m.count {
		pr.add("%d documents, count says %d", len(ck.fps), m.count)
	}
	return nil
}
