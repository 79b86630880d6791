package index

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// recentTables is the in-memory level of the permuted tables: the table
// entries of the documents numbered from the index's table watermark (meta
// key "tablesfrom") on, which are not in the tables bucket yet. An online
// add writes a new document's entries there and its fingerprint into its
// record only; a merge (mergeLevels) moves them into the bucket in one
// sorted pass, which rewrites each group of the tables once instead of
// once per commit: a new document's four entries otherwise dirty four
// pages at random places in the file. The level is rebuilt from the
// records at Open.
//
// As the band level, it is a superset: it gains entries before the commit
// that makes them visible and keeps those of documents since replaced or
// deleted. Readers verify every entry they use against the document's
// record in their transaction (verifyRecent).
type recentTables struct {
	mu   sync.RWMutex
	ents map[uint64][]recentEnt // by groupID
	docs int                    // documents added
}

// recentEnt is a document of the level under one table group: its number
// and fingerprint (not permuted).
type recentEnt struct {
	fp uint64
	n  uint32
}

// groupID names the group of key (the leading KeyBits bits of a permuted
// fingerprint) in table ti; KeyBits is at most 32.
func groupID(ti int, key uint64) uint64 { return uint64(ti)<<32 | key }

func newRecentTables() *recentTables {
	return &recentTables{ents: make(map[uint64][]recentEnt)}
}

// add adds document n with fingerprint fp to every table. It costs a map
// insertion per table.
func (r *recentTables) add(x *Index, n uint32, fp uint64) {
	kb := uint(64 - x.settings.Design.KeyBits)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.docs++
	for ti := range x.tables {
		id := groupID(ti, x.tables[ti].permute(fp)>>kb)
		r.ents[id] = append(r.ents[id], recentEnt{fp: fp, n: n})
	}
}

// tableEnt is an entry of the level found under table t.
type tableEnt struct {
	recentEnt
	t int
}

// appendNearGroups appends to dst the entries within distance d of
// fingerprint fp of group ids[t] of each table t, tagged with t,
// unverified. It takes the level's lock once, and costs a map lookup per
// table and a popcount per entry of the groups.
func (r *recentTables) appendNearGroups(dst []tableEnt, ids []uint64, fp uint64, d int) []tableEnt {
	if r == nil {
		return dst
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for t, id := range ids {
		for _, e := range r.ents[id] {
			if bits.OnesCount64(e.fp^fp) <= d {
				dst = append(dst, tableEnt{recentEnt: e, t: t})
			}
		}
	}
	return dst
}

// groups returns the IDs of the groups of table ti in the level, sorted.
func (r *recentTables) groups(ti int) []uint64 {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var ids []uint64
	for id := range r.ents {
		if int(id>>32) == ti {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// group appends to dst the entries of group id, unverified.
func (r *recentTables) group(dst []recentEnt, id uint64) []recentEnt {
	if r == nil {
		return dst
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append(dst, r.ents[id]...)
}

// size returns the number of documents added.
func (r *recentTables) size() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.docs
}

// tableLevels are the in-memory table levels a reader consults, as levels
// are for the bands: the current one, the merging one and the retiring
// one.
type tableLevels [3]*recentTables

// recentTableLevels returns the table levels for a read transaction, under
// the same rule as recentLevels: the caller holds x.readers (read).
func (x *Index) recentTableLevels() tableLevels {
	return tableLevels{x.tcur.Load(), x.tmrg.Load(), x.told.Load()}
}

// verifyRecent returns the entries of es that belong to the snapshot of
// docs (a cursor of the docs bucket), whose table watermark is w: those of
// documents numbered from w on (below it, the tables bucket of the
// snapshot holds them) whose record has the entry's fingerprint
// (committed, not replaced or deleted since), each once, in document
// order; es is reordered. Cost: a sort of es and a cursor seek per
// distinct entry.
func verifyRecent(es []recentEnt, docs *bolt.Cursor, w uint32) []recentEnt {
	// Sorted, the repeats (an entry in two levels, an upsert of the same
	// fingerprint) are neighbours, and the seeks go forward.
	slices.SortFunc(es, func(a, b recentEnt) int {
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
		if v := seekRecord(docs, e.n); len(v) >= 8 && binary.BigEndian.Uint64(v) == e.fp {
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

// empty reports whether no reader needs the levels: nothing in the
// current one, none merging and none retiring.
func (l tableLevels) empty() bool { return l[0].size() == 0 && l[1] == nil && l[2] == nil }

// buildRecentTables returns the table level of the documents numbered
// from `from` up to `to` in tx. It costs a read of their records.
func (x *Index) buildRecentTables(tx *bolt.Tx, from, to uint32) *recentTables {
	r := newRecentTables()
	for n, v := range docRange(tx, from, to) {
		if len(v) >= 8 {
			r.add(x, n, binary.BigEndian.Uint64(v))
		}
	}
	return r
}
