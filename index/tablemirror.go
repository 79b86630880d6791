package index

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// tableMirror is an in-memory copy of the tables bucket as one snapshot
// holds it (Options.TableMirror): a query of that snapshot, or of a later
// one whose tables bucket is the same, reads each table's group from it
// with a binary search instead of a B+tree descent into the file (a cache
// and TLB miss per level, in a bucket of tens of megabytes). It is
// immutable; a new one replaces it. Its arrays are carved from one block
// of memory outside the Go heap (mirrorAlloc), freed once no reader can
// hold it (Index.setMirror).
//
// Whether a snapshot's tables bucket is the mirror's: every write
// transaction that changes the tables bucket stores its ID in
// Index.tablesTx before it commits (applyTables, the bulk loader,
// recover). A reader's snapshot t, whose transaction began before it
// reads tablesTx, is the mirror's if t is at least the mirror's snapshot
// and no change was announced after it: a change that committed before t
// began was announced before that.
type tableMirror struct {
	txid uint64     // the snapshot copied
	keys [][]uint32 // per table: the group prefixes, sorted
	offs [][]uint32 // per table: len(keys)+1 offsets of the groups in data
	data [][]byte   // per table: the groups' values, in key order
	mem  []byte     // the block the arrays are carved from
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

// setMirror makes m (nil for none) the table mirror and frees the memory
// of the mirrors it replaced once no reader can be using them: a reader
// loads the mirror inside a read transaction, with x.readers held (read),
// so they are freed when x.readers.TryLock succeeds, now or at a later
// call, or at Close. The caller holds x.wmu, or is Open.
func (x *Index) setMirror(m *tableMirror) {
	if old := x.mirror.Swap(m); old != nil {
		x.retired = append(x.retired, old)
	}
	if len(x.retired) > 0 && x.readers.TryLock() {
		for _, r := range x.retired {
			mirrorFree(r.mem)
		}
		x.retired = nil
		x.readers.Unlock()
	}
}

// rebuildTableMirror replaces the table mirror with a copy of the tables
// bucket of a new snapshot, with Options.TableMirror, unless the tables
// have not changed since the last copy. The caller holds x.wmu, or is
// Open: no write commits during the copy. Cost: two scans of the tables
// bucket, and memory for its groups (about 10 bytes per document and
// table).
func (x *Index) rebuildTableMirror() error {
	if !x.useMirror {
		return nil
	}
	if old := x.mirror.Load(); old != nil {
		if x.tablesTx.Load() <= old.txid {
			return nil // the tables have not changed since
		}
		x.setMirror(nil) // useless already: its memory goes before the copy's comes
	}
	nt := len(x.tables)
	m := &tableMirror{keys: make([][]uint32, nt), offs: make([][]uint32, nt), data: make([][]byte, nt)}
	err := x.view(func(tx *bolt.Tx) error {
		m.txid = uint64(tx.ID())
		kb := uint(64 - x.settings.Design.KeyBits)
		b := tx.Bucket(bucketTables)
		if b == nil {
			return fmt.Errorf("%w: no tables bucket", ErrCorrupt)
		}
		// Sized first, so that the copy takes its size and no more.
		groups, bytes := make([]int, nt), make([]int, nt)
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if t := x.keyTable(k); t >= 0 {
				groups[t]++
				bytes[t] += len(v)
			}
		}
		size := 0
		for t := range nt {
			if bytes[t] > math.MaxUint32 {
				return fmt.Errorf("index: table %d has %d bytes, too many for its copy in memory", t, bytes[t])
			}
			size += 4*(2*groups[t]+1) + bytes[t]
		}
		mem, err := mirrorAlloc(size)
		if err != nil {
			return fmt.Errorf("index: memory for the copy of the tables: %w", err)
		}
		m.mem = mem
		// The arrays of 4-byte values first, aligned as the block is.
		off := 0
		carve := func(n int) []uint32 {
			if n == 0 {
				return nil
			}
			s := unsafe.Slice((*uint32)(unsafe.Pointer(&mem[off])), n)
			off += 4 * n
			return s[:0]
		}
		for t := range nt {
			m.keys[t] = carve(groups[t])
			m.offs[t] = carve(groups[t] + 1)
		}
		for t := range nt {
			m.data[t] = mem[off : off : off+bytes[t]]
			off += bytes[t]
		}
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if t := x.keyTable(k); t >= 0 {
				m.keys[t] = append(m.keys[t], uint32(x.keyValue(k)>>kb))
				m.offs[t] = append(m.offs[t], uint32(len(m.data[t])))
				m.data[t] = append(m.data[t], v...)
			}
		}
		for t := range nt {
			m.offs[t] = append(m.offs[t], uint32(len(m.data[t])))
		}
		return nil
	})
	if err != nil {
		mirrorFree(m.mem)
		return boltErr(err)
	}
	x.setMirror(m)
	return nil
}
