package index

import (
	"bytes"
	"math/bits"

	bolt "go.etcd.io/bbolt"
)

// tableHits appends to hits the documents of tx within maxDist of the
// probe's fingerprint, with their distance: those in the probe's group of
// each permuted table, read from the table mirror or else the tables
// bucket, and those in its groups of the in-memory levels that belong to
// tx's snapshot (verifyRecent). docs is the docs bucket. Cost: a lookup
// per table and a scan of the group found (see Design.Candidates); with
// levels, a map lookup per table and level, and for what they hold a read
// of the watermarks and a seek per document.
func (x *Index) tableHits(hits []hit, tx *bolt.Tx, docs *bolt.Bucket, pr *probe, maxDist int) []hit {
	var kbuf [8]byte
	mr := x.mirrorFor(tx) // nil: read the tables bucket
	var c *bolt.Cursor
	if mr == nil {
		c = tx.Bucket(bucketTables).Cursor()
	}
	tl := x.levels()
	levels := !tl.tablesEmpty()
	kb := uint(64 - x.settings.Design.KeyBits)
	var ids []uint64 // each table's group of the query, for the levels
	if levels {
		ids = make([]uint64, len(x.tables))
	}
	for i := range x.tables {
		t := &x.tables[i]
		p := t.permute(pr.fp)
		if mr != nil {
			if v := mr.group(i, uint32(p>>kb)); v != nil {
				hits = x.scanGroup(hits, p>>kb<<kb, p, maxDist, v)
			}
		} else {
			key := x.tableKey(kbuf[:0], i, p)
			if k, v := c.Seek(key); k != nil && bytes.Equal(k, key) {
				hits = x.scanGroup(hits, x.keyValue(key), p, maxDist, v)
			}
		}
		if levels {
			ids[i] = groupID(i, p>>kb)
		}
	}
	if levels {
		var tes []tableEnt
		for _, r := range tl {
			tes = r.appendNearGroups(tes, ids, pr.fp, maxDist)
		}
		if len(tes) > 0 {
			// Below its table's watermark the bucket has an entry. (The
			// watermarks are read only for a query that finds something
			// in the levels: most find nothing.)
			tw := x.tableWatermarks(tx)
			near := make([]levelEnt, 0, len(tes))
			for _, e := range tes {
				if e.n >= tw[e.t] {
					near = append(near, e.levelEnt)
				}
			}
			for _, e := range verifyRecent(near, docs.Cursor(), 0) {
				hits = append(hits, hit{n: e.n, d: bits.OnesCount64(e.fp ^ pr.fp)})
			}
		}
	}
	return hits
}
