package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
)

// recentLimit returns the number of documents the current level holds at
// most before a merge: Options.RecentBands, or by default an eighth of the
// index, at least 65,536.
func (x *Index) recentLimit() int {
	switch {
	case x.recentMax > 0:
		return x.recentMax
	case x.recentMax < 0:
		return 0
	}
	return max(1<<16, x.Len()/8)
}

// maybeMergeLevels goes on with the merge of the levels under way, one
// slice per call, or starts one when a current level holds more documents
// than recentLimit. A merge moves the entries of every table and the
// postings of every band of the documents in the levels into the
// buckets, one table or band per transaction (a slice): the writer's
// ordinary commits go on between slices, so that a merge, seconds of work
// in a large index, holds no add for longer than a slice. With
// Options.RecentBands < 0 it runs a whole merge at once. The caller holds
// x.wmu.
func (x *Index) maybeMergeLevels() error {
	if x.lmrg.Load() == nil {
		limit := x.recentLimit()
		if x.lcur.Load().size() <= limit {
			return nil
		}
		// Readers of snapshots older than the last merge may still use
		// its level, and a reader must not see the current level move to
		// merging between its loads of them: a reader holds x.readers for
		// its whole transaction.
		if !x.readers.TryLock() {
			return nil // the next commit tries again
		}
		x.lold.Store(nil)
		x.lmrg.Store(x.lcur.Load())
		x.lcur.Store(newLevel())
		x.readers.Unlock()
	}
	for {
		done, err := x.mergeSlice()
		if err != nil || done || x.recentMax >= 0 {
			return err
		}
	}
}

// mergeSlices returns the number of slices of a merge: one per table, then
// with MinHash one per band of the signature, one for all the bands of the
// short-text layer (few documents have them), and one for the exact keys.
func (x *Index) mergeSlices() int {
	n := len(x.tables)
	if x.settings.MinHash {
		n += x.bandSlice(exactBand) + 1
	}
	return n
}

// bandSlice returns the slice of a merge, counted from the first after the
// tables', that merges band slot i (exactBand, or bandSlots, for the exact
// keys): each band of the signature its own, the bands of the short-text
// layer one together, then the exact keys.
func (x *Index) bandSlice(i int) int {
	s := &x.settings
	switch {
	case i < s.Bands:
		return i
	case i < s.bandSlots():
		return s.Bands
	case s.hasShort():
		return s.Bands + 1
	}
	return s.Bands
}

// mergeSlice runs the next slice of the merge under way, in one
// transaction: it reads the records of the documents from the watermark of
// the slice's table or band to the end of the merge and writes their
// entries or postings into the bucket, in key order, and counts the slice
// done. The first slice records where the merge ends (the next document
// number then: the documents of the merging levels). The last moves the
// watermarks there, ends the merge and makes the merging levels the
// retiring ones. It reports whether the merge is over. The caller holds
// x.wmu.
func (x *Index) mergeSlice() (bool, error) {
	var over, tablesDone bool
	err := x.update(func(tx *bolt.Tx) error {
		m := x.readMeta(tx)
		if !m.merging {
			m.merging, m.mergeUpto, m.mergeDone = true, m.next, 0
		}
		s := m.mergeDone
		tablesDone = s == len(x.tables)-1 // the last slice that writes the tables
		if s < len(x.tables) {
			// applyTables reads only the fingerprint of a new record.
			chs := mergeChanges(tx, m.tablesFrom, m.mergeUpto, func(v []byte) *record {
				if len(v) < 8 {
					return nil
				}
				return &record{fp: fpOf(v)}
			})
			if err := x.applyTables(tx, chs, only(s)); err != nil {
				return err
			}
		} else if b := s - len(x.tables); b == x.bandSlice(exactBand) {
			if err := x.mergeExact(tx, m.bandsFrom, m.mergeUpto); err != nil {
				return err
			}
		} else if b < x.settings.Bands {
			if err := x.mergeBands(tx, b, b+1, m.bandsFrom, m.mergeUpto); err != nil {
				return err
			}
		} else if err := x.mergeBands(tx, x.settings.Bands, x.settings.bandSlots(), m.bandsFrom, m.mergeUpto); err != nil {
			return err
		}
		if m.mergeDone++; m.mergeDone >= x.mergeSlices() {
			m.tablesFrom = m.mergeUpto
			if x.settings.MinHash {
				m.bandsFrom = m.mergeUpto
			}
			m.merging, m.mergeUpto, m.mergeDone = false, 0, 0
			over = true
		}
		return x.writeMeta(tx, m)
	})
	if err != nil {
		return false, boltErr(err)
	}
	if tablesDone {
		// The merged tables, copied for queries (the slices of the bands
		// that follow do not change them). The slice is committed
		// whatever becomes of the copy: without one, queries read the
		// file.
		if err := x.rebuildTableMirror(); err != nil {
			x.setMirror(nil)
		}
	}
	if over {
		// Older first: a reader that loads merging before this and
		// retiring after sees the level twice, not never.
		x.lold.Store(x.lmrg.Load())
		x.lmrg.Store(nil)
		// Readers of snapshots from before the end of the merge need the
		// retired levels; without any, they go now (else at the start of
		// the next merge), and their memory with them.
		if x.readers.TryLock() {
			x.lold.Store(nil)
			x.readers.Unlock()
		}
	}
	return over, nil
}

// mergeExact writes the exact keys of the text documents numbered from
// `from` up to `to` in tx into the exact bucket, in key order: the exact
// slice of a merge. It costs a read of their records and a sorted pass
// over the bucket, which rewrites each of its pages at most once, where
// an add that wrote its key at once dirtied a page of its own.
func (x *Index) mergeExact(tx *bolt.Tx, from, to uint32) error {
	exb := tx.Bucket(bucketExact)
	if x.exact.grouped() {
		var ops []hashOp
		for n, v := range docRange(tx, from, to) {
			if h, ok := bandOf(v, x.lay, exactBand); ok {
				ops = append(ops, hashOp{h: h, n: n})
			}
		}
		return x.exact.update(exb, ops)
	}
	var keys [][]byte
	for n, v := range docRange(tx, from, to) {
		if h, ok := bandOf(v, x.lay, exactBand); ok {
			keys = append(keys, exactKey(h, n))
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	for _, k := range keys {
		if err := exb.Put(k, []byte{}); err != nil {
			return err
		}
	}
	return nil
}

// mergeBands writes bands lo to hi-1 of the text documents numbered from
// `from` up to `to` in tx into the bands bucket, in key order: a band
// slice of a merge (one band of the signature, or all those of the
// short-text layer). It costs a read of their records (and, for a compact
// record, the computation of its bands, once for all of them), a sort of
// their hashes and, per key, a lookup of its posting and a write: a new
// posting of one document (most keys) is written without building a
// bitmap. In a grouped bands bucket (see bandgroups.go) it is a read and a
// write per group. It holds 16 bytes per document and band in memory. It
// writes what applyBands writes for the same documents added as new, with
// these bands alone below the watermark, without a posting operation, key
// string or record per band.
func (x *Index) mergeBands(tx *bolt.Tx, lo, hi int, from, to uint32) error {
	ps := make([][]bandPost, hi-lo)
	if hi-lo == 1 {
		ps[0] = make([]bandPost, 0, to-from)
	}
	var all [64]uint64
	for n, v := range docRange(tx, from, to) {
		if hi-lo == 1 {
			if h, ok := bandOf(v, x.lay, lo); ok && h != 0 { // 0: a band the text does not have
				ps[0] = append(ps[0], bandPost{h, n})
			}
			continue
		}
		// The bands of a compact record are computed, the short set's
		// from its MinHash signature: once for all of them.
		for i, h := range appendBandsOf(all[:0], v, x.lay) {
			if i >= lo && i < hi && h != 0 {
				ps[i-lo] = append(ps[i-lo], bandPost{h, n})
			}
		}
	}
	for i := range ps {
		if err := x.mergeBand(tx, lo+i, ps[i]); err != nil {
			return err
		}
	}
	return nil
}

// bandPost is a document n with band hash h, of a merge.
type bandPost struct {
	h uint64
	n uint32
}

// mergeBand writes the postings of band b of a merge, ps (one per
// document that has the band), into the bands bucket.
func (x *Index) mergeBand(tx *bolt.Tx, b int, ps []bandPost) error {
	if len(ps) == 0 {
		return nil
	}
	bk := tx.Bucket(bucketBands)
	if bk == nil {
		return fmt.Errorf("%w: band postings missing", ErrCorrupt)
	}
	if x.groups.g >= 0 {
		// The filter holds every key of the bucket: it gets these.
		ops := make([]postingOp, len(ps))
		f := x.filter.Load()
		for i, p := range ps {
			ops[i] = postingOp{b: uint8(b), h: p.h, n: p.n}
			if f != nil {
				f.add(b, p.h)
			}
		}
		return x.updateBandGroups(bk, ops)
	}
	slices.SortFunc(ps, func(p, q bandPost) int {
		if c := cmp.Compare(p.h, q.h); c != 0 {
			return c
		}
		return cmp.Compare(p.n, q.n)
	})
	f := x.filter.Load()
	// The keys and the new postings of one document, cut from two
	// buffers: bbolt keeps both until the commit.
	keys := make([]byte, 0, 9*len(ps))
	ones := make([]byte, 0, 18*len(ps))
	for i := 0; i < len(ps); {
		h := ps[i].h
		j := i + 1
		for j < len(ps) && ps[j].h == h {
			j++
		}
		keys = binary.BigEndian.AppendUint64(append(keys, byte(b)), h)
		key := keys[len(keys)-9:]
		// A key the filter has never seen has no posting; the filter
		// holds every key of the bucket, so it gets this one.
		var v []byte
		if f == nil || f.has(b, h) {
			v = bk.Get(key)
		}
		if f != nil {
			f.add(b, h)
		}
		var err error
		if v == nil && j == i+1 {
			ones = appendSingletonPosting(ones, ps[i].n)
			err = bk.Put(key, ones[len(ones)-singletonSize:])
		} else {
			bm := roaring.New()
			if v != nil {
				if err := readPosting(bm, v); err != nil {
					return fmt.Errorf("%w: band posting: %v", ErrCorrupt, err)
				}
				bm = bm.Clone()
			}
			for _, p := range ps[i:j] {
				bm.Add(p.n)
			}
			bm.RunOptimize()
			if v, err = bm.ToBytes(); err != nil {
				return err
			}
			err = bk.Put(key, v)
		}
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// mergeChanges returns the changes that write, as new, the records of the
// documents numbered from `from` up to `to` in tx, each decoded by decode
// (nil to leave the document out).
func mergeChanges(tx *bolt.Tx, from, to uint32, decode func(v []byte) *record) []change {
	var chs []change
	for n, v := range docRange(tx, from, to) {
		if r := decode(v); r != nil {
			chs = append(chs, change{n: n, new: r})
		}
	}
	return chs
}

// only returns the watermark function of a write of table or band s alone
// into its bucket.
func only(s int) func(int) uint32 {
	return func(i int) uint32 {
		if i == s {
			return ^uint32(0)
		}
		return 0
	}
}
