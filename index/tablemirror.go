package index

import (
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// tableMirror is an in-memory copy of the tables bucket as one snapshot
// holds it (Options.TableMirror): a query of that snapshot, or of a later
// one whose tables bucket is the same, reads each table's group from it
// with a binary search instead of a B+tree descent into the file (a cache
// and TLB miss per level, in a bucket of tens of megabytes). It is
// immutable; a new one replaces it.
//
// Whether a snapshot's tables bucket is the mirror's: every write
// transaction that changes the tables bucket stores its ID in
// Index.tablesTx before it commits (applyTables), and a Load drops the
// mirror before it writes. A reader's snapshot t, whose transaction began
// before it reads tablesTx, is the mirror's if t is at least the
// mirror's snapshot and no change was announced after it: a change that
// committed before t began was announced before that.
type tableMirror struct {
	txid uint64     // the snapshot copied
	keys [][]uint32 // per table: the group prefixes, sorted
	offs [][]int    // per table: len(keys)+1 offsets of the groups in data
	data [][]byte   // per table: the groups' values, in key order
}

// group returns the value of group prefix of table t, or nil. Cost: a
// binary search of the table's prefixes.
func (m *tableMirror) group(t int, prefix uint32) []byte {
	i, ok := slices.BinarySearch(m.keys[t], prefix)
	if !ok {
		return nil
	}
	return m.data[t][m.offs[t][i]:m.offs[t][i+1]]
}

// mirrorFor returns the table mirror that holds what the tables bucket of
// tx holds, or nil (read the bucket). Cost: two atomic loads.
func (x *Index) mirrorFor(tx *bolt.Tx) *tableMirror { return x.mirrorAt(uint64(tx.ID())) }

// mirrorAt is mirrorFor of the snapshot with ID txid, loaded by a
// transaction that began before the call.
func (x *Index) mirrorAt(txid uint64) *tableMirror {
	m := x.mirror.Load()
	if m == nil || txid < m.txid || x.tablesTx.Load() > m.txid {
		return nil
	}
	return m
}

// rebuildTableMirror replaces the table mirror with a copy of the tables
// bucket of a new snapshot, with Options.TableMirror. The caller holds
// x.wmu, or is Open: no write commits during the copy. Cost: a scan of the
// tables bucket, and memory for its groups (about 10 bytes per document
// and table).
func (x *Index) rebuildTableMirror() error {
	if !x.useMirror {
		return nil
	}
	if old := x.mirror.Load(); old != nil {
		if x.tablesTx.Load() <= old.txid {
			return nil // the tables have not changed since
		}
		x.mirror.Store(nil) // useless already: its memory goes before the copy's comes
	}
	nt := len(x.tables)
	m := &tableMirror{keys: make([][]uint32, nt), offs: make([][]int, nt), data: make([][]byte, nt)}
	err := x.view(func(tx *bolt.Tx) error {
		m.txid = uint64(tx.ID())
		kb := uint(64 - x.settings.Design.KeyBits)
		b := tx.Bucket(bucketTables)
		if b == nil {
			return fmt.Errorf("%w: no tables bucket", ErrCorrupt)
		}
		table := func(k []byte) int {
			if len(k) != 2+x.keyBytes {
				return -1
			}
			if t := int(k[0])<<8 | int(k[1]); t < nt {
				return t
			}
			return -1
		}
		// Sized first, so that the copy takes its size and no more.
		groups, bytes := make([]int, nt), make([]int, nt)
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if t := table(k); t >= 0 {
				groups[t]++
				bytes[t] += len(v)
			}
		}
		for t := range nt {
			m.keys[t] = make([]uint32, 0, groups[t])
			m.offs[t] = make([]int, 0, groups[t]+1)
			m.data[t] = make([]byte, 0, bytes[t])
		}
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if t := table(k); t >= 0 {
				m.keys[t] = append(m.keys[t], uint32(x.keyValue(k)>>kb))
				m.offs[t] = append(m.offs[t], len(m.data[t]))
				m.data[t] = append(m.data[t], v...)
			}
		}
		return nil
	})
	if err != nil {
		return boltErr(err)
	}
	for t := range nt {
		m.offs[t] = append(m.offs[t], len(m.data[t]))
	}
	x.mirror.Store(m)
	return nil
}
