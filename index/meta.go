package index

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// meta holds the counters of the meta bucket.
type meta struct {
	next    uint32 // next document number
	count   int64  // committed documents
	loading bool   // a bulk load is writing uncommitted documents
	// bandsFrom is the band watermark of an index with MinHash: the
	// postings of documents numbered from it on are not in the bands
	// bucket but in the in-memory level (recentBands). Without the key (a
	// schema 1 file) it is next.
	bandsFrom uint32
	// tablesFrom is the table watermark: the table entries of documents
	// numbered from it on are not in the tables bucket but in the
	// in-memory level (recentTables). Without the key (a file of schema 1
	// or 2) it is next.
	tablesFrom uint32
	// merging says a merge of the levels is under way (meta keys
	// mergeupto and mergedone): the documents numbered from the
	// watermarks up to mergeUpto are being merged one slice at a time,
	// the tables first, then the bands, and mergeDone slices are done
	// (see tableFrom and bandFrom).
	merging   bool
	mergeUpto uint32
	mergeDone int
}

// tableFrom returns the watermark of table t: the entries of documents
// numbered below it are in the tables bucket, the others in the in-memory
// level. It is mergeUpto for a table a merge under way has done, else
// tablesFrom.
func (m *meta) tableFrom(t int) uint32 {
	if m.merging && t < m.mergeDone {
		return m.mergeUpto
	}
	return m.tablesFrom
}

// bandFrom returns the watermark of band i, as tableFrom for a table: the
// slices of the bands come after those of the tables (see bandSlice). Band
// slot bandSlots is the exact keys' (see exactFrom).
func (m *meta) bandFrom(x *Index, i int) uint32 {
	if m.merging && len(x.tables)+x.bandSlice(i) < m.mergeDone {
		return m.mergeUpto
	}
	return m.bandsFrom
}

// exactFrom returns the watermark of the exact keys of an index with
// MinHash (schema 4): the exact keys of the text documents numbered from
// it on are in the in-memory band level (under the pseudo-band exactBand),
// and maybe in the exact bucket too; those below it are in the bucket. It
// is the band watermark, and the slice of the exact keys is the one after
// the bands' in a merge. The exact bucket holds no key of a document that
// does not have that hash: a replace or delete removes the old key from
// the bucket whatever the watermark.
func (m *meta) exactFrom(x *Index) uint32 { return m.bandFrom(x, exactBand) }

func (x *Index) readMeta(tx *bolt.Tx) meta {
	mb := tx.Bucket(bucketMeta)
	var m meta
	if v := mb.Get(keyNext); len(v) == 4 {
		m.next = binary.BigEndian.Uint32(v)
	}
	if v := mb.Get(keyCount); len(v) == 8 {
		m.count = int64(binary.BigEndian.Uint64(v))
	}
	m.loading = loading(tx)
	m.bandsFrom = m.next
	if v := mb.Get(keyBandsFrom); len(v) == 4 {
		m.bandsFrom = binary.BigEndian.Uint32(v)
	}
	m.tablesFrom = m.next
	if v := mb.Get(keyTablesFrom); len(v) == 4 {
		m.tablesFrom = binary.BigEndian.Uint32(v)
	}
	if v, d := mb.Get(keyMergeUpto), mb.Get(keyMergeDone); len(v) == 4 && len(d) == 4 {
		m.merging, m.mergeUpto, m.mergeDone = true, binary.BigEndian.Uint32(v), int(binary.BigEndian.Uint32(d))
	}
	return m
}

func (x *Index) writeMeta(tx *bolt.Tx, m meta) error {
	mb := tx.Bucket(bucketMeta)
	if err := mb.Put(keyNext, binary.BigEndian.AppendUint32(nil, m.next)); err != nil {
		return err
	}
	if err := mb.Put(keyCount, binary.BigEndian.AppendUint64(nil, uint64(m.count))); err != nil {
		return err
	}
	if x.settings.MinHash {
		if err := mb.Put(keyBandsFrom, binary.BigEndian.AppendUint32(nil, m.bandsFrom)); err != nil {
			return err
		}
	}
	if err := mb.Put(keyTablesFrom, binary.BigEndian.AppendUint32(nil, m.tablesFrom)); err != nil {
		return err
	}
	if m.merging {
		if err := mb.Put(keyMergeUpto, binary.BigEndian.AppendUint32(nil, m.mergeUpto)); err != nil {
			return err
		}
		if err := mb.Put(keyMergeDone, binary.BigEndian.AppendUint32(nil, uint32(m.mergeDone))); err != nil {
			return err
		}
	} else {
		if err := mb.Delete(keyMergeUpto); err != nil {
			return err
		}
		if err := mb.Delete(keyMergeDone); err != nil {
			return err
		}
	}
	switch {
	case m.loading && !loading(tx):
		_, err := tx.CreateBucket(bucketLoading)
		return err
	case !m.loading && loading(tx):
		return tx.DeleteBucket(bucketLoading)
	}
	return nil
}
