package index

import (
	"bytes"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// tables checks the tables: the entries of the documents below a table's
// watermark in the bucket, the others in the in-memory levels.
func (ck *checker) tables() error {
	x, m, pr, tx := ck.x, &ck.m, &ck.pr, ck.tx
	dense, fps := ck.dense, ck.fps
	stamp := make([]int32, len(fps))
	lv := x.levels()
	if lv[0] == nil {
		pr.add("no in-memory table level")
		return pr.err()
	}
	var ents []entry
	c := tx.Bucket(bucketTables).Cursor()
	if k, _ := c.Seek([]byte{byte(len(x.tables) >> 8), byte(len(x.tables))}); k != nil {
		pr.add("a group of table %d; there are %d tables", int(k[0])<<8|int(k[1]), len(x.tables))
	}
	if err := ck.tableMirror(c); err != nil {
		return err
	}
	for ti := range x.tables {
		t := &x.tables[ti]
		entries := 0
		w := m.tableFrom(ti)
		below := 0
		for n := range dense {
			if n < w {
				below++
			}
		}
		tp := []byte{byte(ti >> 8), byte(ti)}
		for key, v := c.Seek(tp); key != nil && bytes.HasPrefix(key, tp); key, v = c.Next() {
			if len(key) != 2+x.keyBytes || (x.keyBytes*8 > x.settings.Design.KeyBits && key[2]>>(x.settings.Design.KeyBits-8*(x.keyBytes-1)) != 0) {
				pr.add("table %d: malformed key %x", ti, key)
				return pr.err()
			}
			if err := x.checkGroup(v); err != nil {
				pr.add("table %d key %x: %v", ti, key, err)
				return pr.err()
			}
			ents = x.decodeGroup(ents[:0], x.keyValue(key), v)
			for _, e := range ents {
				entries++
				d, ok := dense[e.n]
				switch {
				case !ok:
					pr.add("table %d: entry for missing document %d", ti, e.n)
				case e.n >= w:
					pr.add("table %d: document %d in the bucket, at or above the table's watermark %d", ti, e.n, w)
				case t.permute(fps[d]) != e.p:
					pr.add("table %d: document %d under the wrong fingerprint", ti, e.n)
				case stamp[d] == int32(ti+1):
					pr.add("table %d: document %d twice", ti, e.n)
				default:
					stamp[d] = int32(ti + 1)
				}
			}
			if len(pr.list) >= maxProblems {
				return pr.err()
			}
		}
		if entries != below {
			pr.add("table %d: %d entries for %d documents below the table's watermark %d", ti, entries, below, w)
		}
		// The documents from the watermark on are in the level, under
		// their fingerprint's group.
		kb := uint(64 - x.settings.Design.KeyBits)
		for n, d := range dense {
			if n < w {
				continue
			}
			e := levelEnt{fp: fps[d], n: n}
			id := groupID(ti, t.permute(e.fp)>>kb)
			// (A merge moves them from level to level; a reader sees
			// each in one of them.)
			var es []levelEnt
			for _, r := range lv {
				es = r.group(es, id)
			}
			if !slices.Contains(es, e) {
				pr.add("table %d: document %d, at or above the table's watermark %d, not in the in-memory levels", ti, n, w)
			}
			if len(pr.list) >= maxProblems {
				return pr.err()
			}
		}
	}
	return pr.err()
}

// tableMirror checks that the table mirror, if this snapshot's queries
// use it, holds every group of the tables bucket (read with c) and
// nothing else. It returns an error once it has found too many problems.
func (ck *checker) tableMirror(c *bolt.Cursor) error {
	x, pr := ck.x, &ck.pr
	if mr := x.mirrorFor(ck.tx); mr != nil {
		groups := 0
		kb := uint(64 - x.settings.Design.KeyBits)
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if ti := x.keyTable(k); ti >= 0 {
				groups++
				if g := mr.group(ti, uint32(x.keyValue(k)>>kb)); !bytes.Equal(g, v) {
					if !pr.add("table group %x: the copy in memory differs from the bucket", k) {
						return pr.err()
					}
				}
			}
		}
		n := 0
		for ti := range mr.keys {
			n += len(mr.keys[ti])
		}
		if n != groups {
			pr.add("the copy of the tables in memory has %d groups, the bucket %d", n, groups)
		}
	}
	return nil
}
