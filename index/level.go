package index

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// level is an in-memory level: the keys of documents whose entries are not
// in the file's buckets yet, so that a reader finds them without a scan.
// It holds, for each document (a slot: a document number in the levels of
// the file, an operation's number in the pending level of the log):
//
//   - its entry in each permuted table, by group (see groupID), with its
//     fingerprint (not permuted);
//   - its MinHash band keys and its exact key (the pseudo-band exactBand),
//     by key.
//
// The levels of the file (Index.levels) hold the table entries of the
// documents numbered from the index's table watermark (meta key
// "tablesfrom") on, and, with MinHash, the band and exact keys of those
// numbered from its band watermark ("bandsfrom") on. An add writes a new
// document's entries there and into its record only; a merge
// (maybeMergeLevels) moves them into the buckets in one sorted pass, which
// rewrites each page of a bucket once instead of once per commit: a new
// document's entries (one per table) and 14 band keys fall at random
// among all the others, and would each dirty a page of their own. They
// are rebuilt from the records at Open. Such a level is a superset: it
// gains entries before the commit that makes them visible and keeps those
// of documents since replaced or deleted; readers verify every entry
// against the document's record in their transaction (verifyRecent,
// recentKeyDocs).
//
// The pending level of the log (pending) holds the operations acknowledged
// and not yet committed to the file, in levels of this type whose slots
// number the operations; readers verify a candidate against the
// operation's probe (matcher.Match).
type level struct {
	mu     sync.RWMutex
	tables map[uint64][]levelEnt  // by groupID
	one    map[recentKey]uint32   // the first slot of each key
	more   map[recentKey][]uint32 // the further slots of keys with more than one
	tdocs  int                    // documents added to the tables
	bdocs  int                    // documents added to the bands
}

// recentKey is a band number and band hash.
type recentKey struct {
	h uint64
	b uint8
}

// levelEnt is a document of a level under one table group: its slot and
// fingerprint (not permuted).
type levelEnt struct {
	fp uint64
	n  uint32
}

// groupID names the group of key (the leading KeyBits bits of a permuted
// fingerprint) in table ti; KeyBits is at most 32.
func groupID(ti int, key uint64) uint64 { return uint64(ti)<<32 | key }

func newLevel() *level {
	return &level{tables: make(map[uint64][]levelEnt), one: make(map[recentKey]uint32), more: make(map[recentKey][]uint32)}
}

// addTables adds slot n with fingerprint fp to every table. It costs a map
// insertion per table.
func (r *level) addTables(x *Index, n uint32, fp uint64) {
	kb := uint(64 - x.settings.Design.KeyBits)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tdocs++
	for ti := range x.tables {
		id := groupID(ti, x.tables[ti].permute(fp)>>kb)
		r.tables[id] = append(r.tables[id], levelEnt{fp: fp, n: n})
	}
}

// addExact adds slot n under its exact hash h (the pseudo-band exactBand).
// It costs a map insertion.
func (r *level) addExact(n uint32, h uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addKey(n, recentKey{h: h, b: exactBand})
}

// addBands adds slot n under each of its bands. It costs a map insertion
// per band.
func (r *level) addBands(n uint32, bands []uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bdocs++
	for i, h := range bands {
		if h != 0 { // 0: a band the text does not have
			r.addKey(n, recentKey{h: h, b: uint8(i)})
		}
	}
}

// addKey adds slot n under k. The caller holds r.mu.
func (r *level) addKey(n uint32, k recentKey) {
	if first, ok := r.one[k]; !ok {
		r.one[k] = n
	} else if first != n && !containsDoc(r.more[k], n) {
		r.more[k] = append(r.more[k], n)
	}
}

func containsDoc(ns []uint32, n uint32) bool {
	for _, m := range ns {
		if m == n {
			return true
		}
	}
	return false
}

// keyDoc is slot n under the key at index k of a lookup's keys.
type keyDoc struct{ n, k uint32 }

// appendKeyDocs appends to dst the slots of each key ks[i], tagged with i,
// unverified. It takes the level's lock once, and costs a map lookup per
// key.
func (r *level) appendKeyDocs(dst []keyDoc, ks []recentKey) []keyDoc {
	if r == nil {
		return dst
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for i, k := range ks {
		if n, ok := r.one[k]; ok {
			dst = append(dst, keyDoc{n: n, k: uint32(i)})
			for _, m := range r.more[k] {
				dst = append(dst, keyDoc{n: m, k: uint32(i)})
			}
		}
	}
	return dst
}

// keys returns every band and exact key of the level.
func (r *level) keys() []recentKey {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	ks := make([]recentKey, 0, len(r.one))
	for k := range r.one {
		ks = append(ks, k)
	}
	return ks
}

// tableEnt is an entry of the level found under table t.
type tableEnt struct {
	levelEnt
	t int
}

// appendNearGroups appends to dst the entries within distance d of
// fingerprint fp of group ids[t] of each table t, tagged with t,
// unverified. It takes the level's lock once, and costs a map lookup per
// table and a popcount per entry of the groups.
func (r *level) appendNearGroups(dst []tableEnt, ids []uint64, fp uint64, d int) []tableEnt {
	if r == nil {
		return dst
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for t, id := range ids {
		for _, e := range r.tables[id] {
			if bits.OnesCount64(e.fp^fp) <= d {
				dst = append(dst, tableEnt{levelEnt: e, t: t})
			}
		}
	}
	return dst
}

// groups returns the IDs of the groups of table ti in the level, sorted.
func (r *level) groups(ti int) []uint64 {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var ids []uint64
	for id := range r.tables {
		if int(id>>32) == ti {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// group appends to dst the entries of group id, unverified.
func (r *level) group(dst []levelEnt, id uint64) []levelEnt {
	if r == nil {
		return dst
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append(dst, r.tables[id]...)
}

// size returns the number of documents added (to the tables or the bands,
// whichever holds more).
func (r *level) size() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return max(r.tdocs, r.bdocs)
}

// tableSize returns the number of documents added to the tables.
func (r *level) tableSize() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tdocs
}

// levels are the in-memory levels of the file a reader consults: the
// current one, the one a merge under way is moving into the buckets and,
// until no reader of a snapshot older than the last merge is left, the
// one that merge moved.
type levels [3]*level

// levels returns the levels for a read transaction. The caller holds
// x.readers (read) from before it began the transaction until it is done
// with them: the level a merge retires stays until then. Each level is
// loaded before the next older one, which a merge stores first when it
// moves a level along, so a reader sees a level twice rather than not at
// all.
func (x *Index) levels() levels {
	return levels{x.lcur.Load(), x.lmrg.Load(), x.lold.Load()}
}

// bandsEmpty reports whether the levels hold no document's bands: no
// level, or none given a document's bands (addBands). A document
// committed before a reader's snapshot was given its bands before the
// commit (applyBands), so a reader that finds them empty once its
// snapshot has begun finds every band of the snapshot in the bands
// bucket, provided it holds x.readers from before its snapshot began (as
// view does): a merge that wrote a level's bands into the bucket after
// the snapshot began retires that level only once no such reader is
// left.
func (l levels) bandsEmpty() bool {
	for _, r := range l {
		if r == nil {
			continue
		}
		r.mu.RLock()
		n := r.bdocs
		r.mu.RUnlock()
		if n > 0 {
			return false
		}
	}
	return true
}

// tablesEmpty reports whether no reader needs the levels' tables: nothing
// in the current one, none merging and none retiring.
func (l levels) tablesEmpty() bool { return l[0].tableSize() == 0 && l[1] == nil && l[2] == nil }

// verifyRecent returns the entries of es that belong to the snapshot of
// docs (a cursor of the docs bucket), whose table watermark is w: those of
// documents numbered from w on (below it, the tables bucket of the
// snapshot holds them) whose record has the entry's fingerprint
// (committed, not replaced or deleted since), each once, in document
// order; es is reordered. Cost: a sort of es and a cursor seek per
// distinct entry.
func verifyRecent(es []levelEnt, docs *bolt.Cursor, w uint32) []levelEnt {
	// Sorted, the repeats (an entry in two levels, an upsert of the same
	// fingerprint) are neighbours, and the seeks go forward.
	slices.SortFunc(es, func(a, b levelEnt) int {
		if c := cmp.Compare(a.n, b.n); c != 0 {
			return c
		}
		return cmp.Compare(a.fp, b.fp)
	})
	es = slices.Compact(es)
	out := es[:0] // writes behind the reads
	for _, e := range es {
		if e.n < w {
			continue
		}
		if v := seekRecord(docs, e.n); len(v) >= 8 && fpOf(v) == e.fp {
			out = append(out, e)
		}
	}
	return out
}

// tableWatermarks returns the watermark of each table in tx (see
// meta.tableFrom).
func (x *Index) tableWatermarks(tx *bolt.Tx) []uint32 {
	m := x.readMeta(tx)
	ws := make([]uint32, len(x.tables))
	for t := range ws {
		ws[t] = m.tableFrom(t)
	}
	return ws
}

// buildLevel returns a level of the documents in tx: the table entries of
// those numbered from tfrom up to to, and with MinHash the band and exact
// keys of those numbered from bfrom up to to. It costs a read of their
// records.
func (x *Index) buildLevel(tx *bolt.Tx, tfrom, bfrom, to uint32) *level {
	r := newLevel()
	from := tfrom
	if x.settings.MinHash {
		from = min(tfrom, bfrom)
	}
	for n, v := range docRange(tx, from, to) {
		if n >= tfrom && len(v) >= 8 {
			r.addTables(x, n, fpOf(v))
		}
		if !x.settings.MinHash || n < bfrom {
			continue
		}
		if bands := bandsOf(v, x.lay); bands != nil {
			r.addBands(n, bands)
		}
		if h, ok := bandOf(v, x.lay, exactBand); ok {
			r.addExact(n, h)
		}
	}
	return r
}

// recentDocs appends to dst the documents of band b with hash h in the
// levels lv whose record in tx has that band: documents committed in tx's
// snapshot, not replaced since, each once, in document order. docs is a
// cursor of the docs bucket. Cost: as recentKeyDocs for one key.
func (x *Index) recentDocs(dst []uint32, lv levels, docs *bolt.Cursor, b int, h uint64) []uint32 {
	for _, d := range x.recentKeyDocs(lv, docs, []recentKey{{h: h, b: uint8(b)}}) {
		dst = append(dst, d.n)
	}
	return dst
}

// recentKeyDocs returns the documents of the band keys ks in the levels lv
// whose record in tx has that band (documents committed in tx's snapshot,
// not replaced since), each once per key, tagged with the key's index in
// ks and sorted by it, then by document. docs is a cursor of the docs
// bucket. Cost: a map lookup per key and level, a sort of the documents
// found, and one seek per distinct document, however many of the keys it
// is under (a near copy is under most of a query's bands).
func (x *Index) recentKeyDocs(lv levels, docs *bolt.Cursor, ks []recentKey) []keyDoc {
	var ds []keyDoc
	for _, r := range lv {
		ds = r.appendKeyDocs(ds, ks)
	}
	if len(ds) == 0 {
		return nil
	}
	// By document, so that each record is read once and the seeks go
	// forward; a document in two levels is found once.
	slices.SortFunc(ds, func(a, b keyDoc) int {
		if c := cmp.Compare(a.n, b.n); c != 0 {
			return c
		}
		return cmp.Compare(a.k, b.k)
	})
	ds = slices.Compact(ds)
	out := ds[:0] // writes behind the reads
	for i := 0; i < len(ds); {
		n, j := ds[i].n, i+1
		for j < len(ds) && ds[j].n == n {
			j++
		}
		v := seekRecord(docs, n)
		for _, d := range ds[i:j] {
			if bh, ok := bandOf(v, x.lay, int(ks[d.k].b)); ok && bh == ks[d.k].h {
				out = append(out, d)
			}
		}
		i = j
	}
	slices.SortFunc(out, func(a, b keyDoc) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	return out
}
