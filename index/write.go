package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
)

// addDirect adds docs in one bbolt transaction of their own, synced
// unless Options.NoSync: all of them or, on error, none. A document whose
// ID is already stored replaces it; if docs holds an ID more than once,
// the last one wins. It costs, per document, an analysis, a record and an
// insertion per table (and, with MinHash, per band) into the in-memory
// levels, and its share of the next merge of the levels into the file
// (see Options.RecentBands).
func (x *Index) addDirect(docs ...Doc) error {
	if err := x.checkWritable(); err != nil {
		return err
	}
	recs := make([]record, len(docs))
	a := x.getAnalyzer()
	defer x.pool.Put(a)
	for i := range docs {
		r, err := x.analyzeDoc(a, &docs[i])
		if err != nil {
			return err
		}
		recs[i] = r
	}
	return x.addRecs(recs)
}

// probedDoc is a document to add whose text is already analyzed: probe
// is what probeText of this index returned for its text, or
// probeFingerprint for a precomputed fingerprint.
type probedDoc struct {
	ID    string
	probe docProbe
}

// addProbed is addDirect for documents analyzed beforehand (the operations
// of the log, analyzed by the callers of Add): it stores what addDirect
// stores for their texts without analyzing them again. A probe made under
// other text settings than the index's, a fingerprint probe under a method
// of word sets, or the zero probe gives an error wrapping ErrSettings, and
// nothing is added.
func (x *Index) addProbed(docs ...probedDoc) error {
	if err := x.checkWritable(); err != nil {
		return err
	}
	recs := make([]record, len(docs))
	for i := range docs {
		r, err := x.probedRecord(&docs[i])
		if err != nil {
			return err
		}
		recs[i] = r
	}
	return x.addRecs(recs)
}

// addRecs commits recs, the records of Add or AddProbed, in one
// transaction. Cost: that of the transaction (see Add).
func (x *Index) addRecs(recs []record) error {
	x.wmu.Lock()
	defer x.wmu.Unlock()
	if err := x.checkOpen(); err != nil {
		return err
	}
	var count int64
	err := x.update(func(tx *bolt.Tx) error {
		var err error
		count, _, _, err = x.addRecords(tx, recs, nil)
		return err
	})
	if err != nil {
		return boltErr(err)
	}
	x.count.Store(count)
	// The documents are committed; if the larger filter cannot be built,
	// the full one stays, correct but with more false positives.
	_ = x.growBandFilter()
	// A merge that fails leaves the level as it is; the next commit
	// retries it.
	_ = x.maybeMergeLevels()
	return nil
}

// AddFingerprint adds (or replaces) the document id with a precomputed
// fingerprint, like Add(Doc{ID: id, Fingerprint: fp, Precomputed: true}).
func (x *Index) AddFingerprint(id string, fp uint64) error {
	return x.Add(Doc{ID: id, Fingerprint: fp, Precomputed: true})
}

// deleteDirect removes the documents with the given IDs in one bbolt
// transaction, from every table and posting, and returns how many were
// found. IDs not found are skipped.
func (x *Index) deleteDirect(ids ...string) (int, error) {
	if err := x.checkWritable(); err != nil {
		return 0, err
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	if err := x.checkOpen(); err != nil {
		return 0, err
	}
	var found int
	var count int64
	err := x.update(func(tx *bolt.Tx) error {
		m := x.readMeta(tx)
		idb := tx.Bucket(bucketIDs)
		docs := tx.Bucket(bucketDocs)
		var chs []change
		seen := make(map[uint32]bool)
		for _, id := range ids {
			n, v, ok, err := x.docRecord(idb, docs, id)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if seen[n] {
				continue
			}
			seen[n] = true
			if v == nil {
				v = getRecord(docs, n)
			}
			old, err := decodeRecord(v, x.lay, true)
			if err != nil {
				return err
			}
			chs = append(chs, change{n: n, old: &old})
		}
		found = len(chs)
		m.count -= int64(found)
		count = m.count
		if err := x.apply(tx, chs); err != nil {
			return err
		}
		return x.writeMeta(tx, m)
	})
	if err != nil {
		return 0, boltErr(err)
	}
	x.count.Store(count)
	return found, nil
}

// validID reports whether id can be stored.
func validID(id string) error {
	if id == "" || len(id) > MaxIDLen || !utf8.ValidString(id) {
		s := id
		if len(s) > 40 {
			s = s[:40] + "..."
		}
		return fmt.Errorf("%w: %q (%d bytes; IDs are 1 to %d bytes of UTF-8)", ErrInvalidID, s, len(id), MaxIDLen)
	}
	return nil
}

func (x *Index) getAnalyzer() *analyzer {
	if a, ok := x.pool.Get().(*analyzer); ok {
		return a
	}
	return analyzerFor(&x.settings)
}

// analyzeDoc validates d and returns its record, with slices it owns.
func (x *Index) analyzeDoc(a *analyzer, d *Doc) (record, error) {
	if err := validID(d.ID); err != nil {
		return record{}, err
	}
	if d.Precomputed {
		return x.fingerprintRecord(d.ID, d.Fingerprint)
	}
	if len(d.Text) > MaxDocSize {
		return record{}, fmt.Errorf("%w: document %q has %d bytes, more than %d", ErrTooLarge, d.ID, len(d.Text), MaxDocSize)
	}
	an := a.analyze(d.Text)
	r := record{id: d.ID, fp: an.fp, text: true, exact: an.exact, shingles: slices.Clone(an.shingles)}
	if x.lay.sets {
		r.set = slices.Clone(an.set[:min(len(an.set), MaxSetSize)])
	}
	if x.settings.MinHash {
		r.sig = slices.Clone(an.sig)
		r.bands = slices.Clone(an.bands)
		r.short = slices.Clone(an.short)
		if len(r.sig) != x.settings.MinHashK || len(r.bands) != x.settings.bandSlots() {
			return record{}, fmt.Errorf("index: analyzer returned %d MinHash values and %d bands, want %d and %d",
				len(r.sig), len(r.bands), x.settings.MinHashK, x.settings.bandSlots())
		}
	}
	return r, nil
}

// probedRecord validates d and returns its record, with slices it owns.
// Cost: copies of the probe's signature, bands and set.
func (x *Index) probedRecord(d *probedDoc) (record, error) {
	if err := validID(d.ID); err != nil {
		return record{}, err
	}
	p := &d.probe
	if !p.valid {
		return record{}, fmt.Errorf("%w: document %q has the zero docProbe", ErrSettings, d.ID)
	}
	if !p.p.text {
		return x.fingerprintRecord(d.ID, p.p.fp)
	}
	if p.akey != x.akey {
		return record{}, fmt.Errorf("%w: the probe of document %q was made under other text settings than the index's", ErrSettings, d.ID)
	}
	r := record{id: d.ID, fp: p.p.fp, text: true, exact: p.p.exact, shingles: slices.Clone(p.p.shingles)}
	if x.lay.sets {
		r.set = slices.Clone(p.p.set[:min(len(p.p.set), MaxSetSize)])
	}
	if x.settings.MinHash { // of the index's shape: the key says so
		r.sig = slices.Clone(p.p.sig)
		r.bands = slices.Clone(p.p.bands)
		r.short = slices.Clone(p.p.short)
	}
	return r, nil
}

// fingerprintRecord returns the record of the document id with only a
// fingerprint, which an index of a set method refuses.
func (x *Index) fingerprintRecord(id string, fp uint64) (record, error) {
	if x.lay.sets {
		return record{}, fmt.Errorf("%w: document %q has only a fingerprint, but the index's %s method needs text", ErrSettings, id, x.settings.Text.Method)
	}
	return record{id: id, fp: fp}, nil
}

// addRecords stores recs (the last of equal IDs wins) in tx, replacing
// documents with the same IDs, and returns the new document count, the
// number of replaced documents and of exact duplicates. If names is not
// nil, the ID of each replaced document is appended to it.
func (x *Index) addRecords(tx *bolt.Tx, recs []record, names *[]string) (count, replaced, exact int64, err error) {
	m := x.readMeta(tx)
	if m.loading {
		return 0, 0, 0, fmt.Errorf("index: an interrupted bulk load is pending; reopen the index")
	}
	last := make(map[string]int, len(recs))
	for i := range recs {
		if _, ok := last[recs[i].id]; ok {
			replaced++
			if names != nil {
				*names = append(*names, recs[i].id)
			}
		}
		last[recs[i].id] = i
	}
	idb := tx.Bucket(bucketIDs)
	docs := tx.Bucket(bucketDocs)
	exb := tx.Bucket(bucketExact)
	f := x.filter.Load()
	chs := make([]change, 0, len(last))
	var batch map[uint64]bool // the exact hashes of the texts of recs stored so far
	for i := range recs {
		r := &recs[i]
		if last[r.id] != i {
			continue
		}
		self := int64(-1) // the stored document r replaces
		n, selfRec, ok, err := x.docRecord(idb, docs, r.id)
		if err != nil {
			return 0, 0, 0, err
		}
		if ok {
			self = int64(n)
		}
		if r.text && !x.emptyProbe(true, r.exact) {
			// An exact duplicate of another stored document, or of an
			// earlier text of recs; not of the document it replaces.
			// (Empty texts are no one's copies.)
			if batch[r.exact] {
				exact++
			} else if exb != nil && (f == nil || f.has(exactBand, r.exact)) {
				for _, n := range x.appendExact(nil, tx, docs.Cursor(), r.exact) {
					if int64(n) != self {
						exact++
						break
					}
				}
			}
			if batch == nil {
				batch = make(map[uint64]bool)
			}
			batch[r.exact] = true
		}
		if self >= 0 {
			if selfRec == nil {
				selfRec = getRecord(docs, n)
			}
			old, err := decodeRecord(selfRec, x.lay, true)
			if err != nil {
				return 0, 0, 0, err
			}
			chs = append(chs, change{n: n, old: &old, new: r})
			replaced++
			if names != nil {
				*names = append(*names, r.id)
			}
			continue
		}
		if m.next == math.MaxUint32 {
			return 0, 0, 0, fmt.Errorf("index: add: %w", ErrFull)
		}
		chs = append(chs, change{n: m.next, new: r})
		m.next++
		m.count++
	}
	if err := x.apply(tx, chs); err != nil {
		return 0, 0, 0, err
	}
	return m.count, replaced, exact, x.writeMeta(tx, m)
}

// change is a write of one document number: old is its stored record (nil
// if new), new its new record (nil to delete).
type change struct {
	n        uint32
	old, new *record
}

// tableOp is an entry to delete from or add to a table.
type tableOp struct {
	key uint64 // leading KeyBits bits of the permuted fingerprint
	ent [12]byte
	del bool
}

// apply writes chs to every bucket.
func (x *Index) apply(tx *bolt.Tx, chs []change) error {
	if len(chs) == 0 {
		return nil
	}
	idb := tx.Bucket(bucketIDs)
	docs := tx.Bucket(bucketDocs)
	exb := tx.Bucket(bucketExact)
	f := x.filter.Load()
	// The watermarks, when the levels exist (they do once Open is done).
	var m meta
	cur := x.lcur.Load() // nil until Open has built the levels
	if cur != nil {
		m = x.readMeta(tx)
	}
	// The exact keys of the documents at or above the exact watermark go
	// to the band level, a merge writes them into the bucket; those below
	// go into the bucket now (see meta.exactFrom).
	var ecur *level
	ew := inBucket(0)
	if x.settings.MinHash && cur != nil {
		ecur, ew = cur, m.exactFrom(x)
	}
	var buf []byte
	var ids, exact []hashOp // the changes of grouped ids and exact buckets
	for _, c := range chs {
		nk := binary.BigEndian.AppendUint32(nil, c.n)
		if c.old != nil {
			if c.new == nil || c.old.id != c.new.id {
				if x.ids.grouped() {
					ids = append(ids, hashOp{h: idHash(c.old.id), n: c.n, del: true})
				} else if err := idb.Delete([]byte(c.old.id)); err != nil {
					return err
				}
			}
			if c.old.text {
				// Whatever the watermark: a key from before the level
				// took them (schema 3) must not outlive its text.
				if x.exact.grouped() {
					exact = append(exact, hashOp{h: c.old.exact, n: c.n, del: true})
				} else if err := exb.Delete(exactKey(c.old.exact, c.n)); err != nil {
					return err
				}
			}
		}
		if err := x.putShingles(tx, c.n, c.new); err != nil {
			return err
		}
		if c.new == nil {
			if err := deleteRecord(docs, c.n); err != nil {
				return err
			}
			continue
		}
		if c.old == nil || c.old.id != c.new.id {
			if x.ids.grouped() {
				ids = append(ids, hashOp{h: idHash(c.new.id), n: c.n})
			} else if err := idb.Put([]byte(c.new.id), nk); err != nil {
				return err
			}
		}
		if c.new.text {
			// Into the filter before the commit that makes the key
			// visible, as the band keys.
			if f != nil {
				f.add(exactBand, c.new.exact)
			}
			switch {
			case ecur != nil && c.n >= ew:
				ecur.addExact(c.n, c.new.exact)
			case x.exact.grouped():
				exact = append(exact, hashOp{h: c.new.exact, n: c.n})
			default:
				if err := exb.Put(exactKey(c.new.exact, c.n), []byte{}); err != nil {
					return err
				}
			}
		}
		buf = encodeRecord(nil, c.new, x.lay)
		var err error
		if c.old == nil {
			err = docs.Put(nk, buf) // a new number, past every group of records
		} else {
			err = putRecord(docs, c.n, buf)
		}
		if err != nil {
			return err
		}
	}
	if err := x.ids.update(idb, ids); err != nil {
		return err
	}
	if err := x.exact.update(exb, exact); err != nil {
		return err
	}
	tw := inBucket
	if cur != nil {
		tw = m.tableFrom
		// The documents at or above the lowest table watermark have
		// their entries in the level: their new fingerprints go there
		// (for a table whose watermark is above them, a merge under way
		// has done, into its group in the bucket too), and their old
		// entries, there too, are left for readers to skip (see
		// recentTables).
		for _, c := range chs {
			if c.n >= m.tablesFrom && c.new != nil {
				cur.addTables(x, c.n, c.new.fp)
			}
		}
	}
	if err := x.applyTables(tx, chs, tw); err != nil {
		return err
	}
	if x.settings.MinHash {
		bw, from := inBucket, ^uint32(0)
		if cur != nil {
			bw = func(i int) uint32 { return m.bandFrom(x, i) }
			from = m.bandsFrom
		}
		if err := x.applyBands(tx, chs, bw, from); err != nil {
			return err
		}
	}
	if x.lay.sets {
		return x.applySets(tx, chs)
	}
	return nil
}

// inBucket is the watermark function of a write of every entry or posting
// into its bucket.
func inBucket(int) uint32 { return ^uint32(0) }

// applyTables updates the table groups of the bucket for the documents
// of chs numbered below w(t) in table t: their old entries out, their new
// ones in, in one sorted pass per table.
func (x *Index) applyTables(tx *bolt.Tx, chs []change, w func(t int) uint32) error {
	ops := make([]tableOp, 0, 2*len(chs))
	es := x.entrySize()
	kb := uint(64 - x.settings.Design.KeyBits)
	b := tx.Bucket(bucketTables)
	for ti := range x.tables {
		t := &x.tables[ti]
		ops = ops[:0]
		wt := w(ti)
		for _, c := range chs {
			if c.n >= wt {
				continue
			}
			for _, r := range [2]*record{c.old, c.new} {
				if r == nil {
					continue
				}
				p := t.permute(r.fp)
				op := tableOp{key: p >> kb, del: r == c.old}
				x.appendEntry(op.ent[:0], p, c.n)
				ops = append(ops, op)
			}
		}
		slices.SortFunc(ops, func(a, b tableOp) int {
			if a.key != b.key {
				if a.key < b.key {
					return -1
				}
				return 1
			}
			return bytes.Compare(a.ent[:es], b.ent[:es])
		})
		if len(ops) > 0 {
			// Before the commit: a table mirror of an older snapshot no
			// longer serves the snapshots this commit makes.
			x.tablesTx.Store(uint64(tx.ID()))
		}
		var del, add []byte
		for i := 0; i < len(ops); {
			j := i
			del, add = del[:0], add[:0]
			for ; j < len(ops) && ops[j].key == ops[i].key; j++ {
				if ops[j].del {
					del = append(del, ops[j].ent[:es]...)
				} else {
					add = append(add, ops[j].ent[:es]...)
				}
			}
			key := x.tableKey(nil, ti, ops[i].key<<kb)
			g := mergeGroup(b.Get(key), del, add, es)
			var err error
			if len(g) == 0 {
				err = b.Delete(key)
			} else {
				err = b.Put(key, g)
			}
			if err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

// postingOp adds document n to, or removes it from, the posting of key.
type postingOp struct {
	// The key: band b (0 in the sets bucket) and hash h, compared as
	// numbers, which orders them as their bytes (bandKey, setKey).
	b   uint8
	h   uint64
	n   uint32
	del bool
	// new says the key has no posting yet (the band filter has never
	// seen it): the posting need not be read.
	new bool
}

// applyBands updates the band postings for chs: band i of the documents
// numbered below w(i) in the bands bucket; the documents numbered from
// from on (the band watermark, at most every w(i)) are given their new
// bands in the current in-memory level (see recentBands) as well.
func (x *Index) applyBands(tx *bolt.Tx, chs []change, w func(i int) uint32, from uint32) error {
	var ops []postingOp
	f := x.filter.Load()
	cur := x.lcur.Load()
	var ws [256]uint32
	for i := range x.settings.bandSlots() {
		ws[i] = w(i)
	}
	for _, c := range chs {
		if c.n >= from {
			if r := c.new; r != nil && r.text {
				for i, h := range r.bands {
					if f != nil && h != 0 {
						f.add(i, h)
					}
				}
				cur.addBands(c.n, r.bands)
			}
		}
		for _, r := range [2]*record{c.old, c.new} {
			if r == nil || !r.text {
				continue
			}
			for i, h := range r.bands {
				if c.n >= ws[i] || h == 0 { // 0: a band the text does not have
					continue
				}
				op := postingOp{b: uint8(i), h: h, n: c.n, del: r == c.old}
				if f != nil && r == c.new {
					// A key the filter has never seen has no posting. It
					// goes into the filter before the commit that makes
					// its posting visible; a second add of it in this
					// commit then reads the (absent) posting, as it must.
					op.new = !f.has(i, h)
					f.add(i, h)
				}
				ops = append(ops, op)
			}
		}
	}
	if x.groups.g >= 0 {
		return x.updateBandGroups(tx.Bucket(bucketBands), ops)
	}
	return updatePostings(tx.Bucket(bucketBands), ops, "band")
}

// applySets updates the set postings for chs.
func (x *Index) applySets(tx *bolt.Tx, chs []change) error {
	var ops []postingOp
	for _, c := range chs {
		for _, r := range [2]*record{c.old, c.new} {
			if r == nil || !r.text {
				continue
			}
			for _, h := range r.set {
				ops = append(ops, postingOp{h: h, n: c.n, del: r == c.old})
			}
		}
	}
	return updatePostings(tx.Bucket(bucketSets), ops, "set")
}

// updatePostings applies ops to the roaring postings of bucket b (the
// bands bucket, or with what "set" the sets bucket): each posting changed
// is read, updated, run-optimized and written once, and removed when it
// becomes empty. Cost: a sort of ops by numeric key (no string keys, no
// stable sort), then a read and a write per posting changed.
func updatePostings(b *bolt.Bucket, ops []postingOp, what string) error {
	if len(ops) == 0 {
		return nil
	}
	if b == nil {
		return fmt.Errorf("%w: %s postings missing", ErrCorrupt, what)
	}
	sortPostingOps(ops)
	sameKey := func(a, b *postingOp) bool { return a.b == b.b && a.h == b.h }
	var kb [9]byte
	for i := 0; i < len(ops); {
		var key []byte
		if what == "set" {
			key = appendSetKey(kb[:0], ops[i].h)
		} else {
			key = appendBandKey(kb[:0], int(ops[i].b), ops[i].h)
		}
		// The posting is read unless every op of the key is an add of a
		// key the band filter has never seen.
		read := false
		j := i
		for ; j < len(ops) && sameKey(&ops[j], &ops[i]); j++ {
			read = read || !ops[j].new
		}
		if !read && j == i+1 {
			// The common case of a new document's band: a new posting
			// of one document, written without building a bitmap.
			if err := b.Put(key, singletonPosting(ops[i].n)); err != nil {
				return err
			}
			i = j
			continue
		}
		var v []byte
		if read {
			v = b.Get(key)
		}
		if v == nil && j == i+1 && !ops[i].del {
			// A key with no posting yet, added one document: as above,
			// the case of most keys of a band merge, whose keys the
			// filter has all seen.
			if err := b.Put(key, singletonPosting(ops[i].n)); err != nil {
				return err
			}
			i = j
			continue
		}
		bm := roaring.New()
		if v != nil {
			if err := readPosting(bm, v); err != nil {
				return fmt.Errorf("%w: %s posting: %v", ErrCorrupt, what, err)
			}
			bm = bm.Clone()
		}
		for first := ops[i]; i < len(ops) && sameKey(&ops[i], &first); i++ {
			if ops[i].del {
				bm.Remove(ops[i].n)
			} else {
				bm.Add(ops[i].n)
			}
		}
		if bm.IsEmpty() {
			if err := b.Delete(key); err != nil {
				return err
			}
			continue
		}
		bm.RunOptimize()
		v, err := bm.ToBytes()
		if err != nil {
			return err
		}
		if err := b.Put(key, v); err != nil {
			return err
		}
	}
	return nil
}

// sortPostingOps sorts ops in key order; of one key and number, the
// deletion first (a replace by a text with the same band).
func sortPostingOps(ops []postingOp) {
	slices.SortFunc(ops, func(a, b postingOp) int {
		if c := cmp.Compare(a.b, b.b); c != 0 {
			return c
		}
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		if c := cmp.Compare(a.n, b.n); c != 0 {
			return c
		}
		if a.del != b.del {
			if a.del {
				return -1
			}
			return 1
		}
		return 0
	})
}
