package index

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// A hash group is the value of a key of a grouped ids or exact bucket
// (schema 11; see idgroups.go and exactgroups.go): the pairs (hash,
// document number) of the bucket whose hash starts with the key's bits.
// The key is the leading g bits of the hash as a big-endian uint32 with
// the other bits 0 (4 bytes), and the value the group's entries, each
// hashGroups.w bytes of the hash's bits after the key's and the document
// number (4 bytes), big-endian, in increasing order of the pair. A bulk
// load writes one key per group instead of one per pair, and an entry
// costs its bytes instead of a bbolt element (16 bytes) and a key. An
// online change reads and rewrites its group: about hashGroupTarget
// entries at the expected size, more in an index grown far beyond it.

// hashGroups is how a grouped bucket keys its pairs.
type hashGroups struct {
	g int // the group width, -1 for a bucket of an older schema, not grouped
	w int // bytes of an entry's hash bits: the leading 8w bits after the group's
}

// grouped reports whether the bucket is grouped.
func (c hashGroups) grouped() bool { return c.g >= 0 }

// hashGroupTarget is the mean number of entries of a hash group at the
// expected size.
const hashGroupTarget = 32

// hashGroupBits returns the group width of a grouped bucket of an index
// of n expected documents: about hashGroupTarget entries a group.
func hashGroupBits(n int) int {
	return max(0, min(int(math.Ceil(math.Log2(float64(n)/hashGroupTarget))), 32))
}

// size is the size of an entry.
func (c hashGroups) size() int { return c.w + 4 }

// key appends to dst the key of the group of hash h.
func (c hashGroups) key(dst []byte, h uint64) []byte {
	p := uint32(h >> 32)
	if c.g < 32 {
		p &^= 1<<(32-c.g) - 1
	}
	return binary.BigEndian.AppendUint32(dst, p)
}

// bits returns the bits of h that an entry holds: the leading 8w after
// the group's.
func (c hashGroups) bits(h uint64) uint64 { return h << c.g >> (64 - 8*c.w) }

// hash returns the hash of an entry's bits in the group of key, when the
// entry holds every bit after the group's (8w >= 64-g).
func (c hashGroups) hash(key []byte, bits uint64) uint64 {
	return uint64(binary.BigEndian.Uint32(key))<<32 | bits<<(64-8*c.w)>>c.g
}

// hashEntry is an entry of a hash group.
type hashEntry struct {
	bits uint64
	n    uint32
}

func cmpHashEntry(a, b hashEntry) int {
	if c := cmp.Compare(a.bits, b.bits); c != 0 {
		return c
	}
	return cmp.Compare(a.n, b.n)
}

func (c hashGroups) appendEntry(dst []byte, e hashEntry) []byte {
	for i := c.w - 1; i >= 0; i-- {
		dst = append(dst, byte(e.bits>>(8*i)))
	}
	return binary.BigEndian.AppendUint32(dst, e.n)
}

// entryAt returns entry i of group value v.
func (c hashGroups) entryAt(v []byte, i int) hashEntry {
	b := v[i*c.size():]
	var bits uint64
	for _, x := range b[:c.w] {
		bits = bits<<8 | uint64(x)
	}
	return hashEntry{bits, binary.BigEndian.Uint32(b[c.w:])}
}

// entries returns the number of entries of group value v, or an error
// wrapping ErrCorrupt if v is not a whole number of them.
func (c hashGroups) entries(v []byte) (int, error) {
	if len(v)%c.size() != 0 {
		return 0, fmt.Errorf("%w: hash group of %d bytes", ErrCorrupt, len(v))
	}
	return len(v) / c.size(), nil
}

// check returns an error wrapping ErrCorrupt if v is not a sequence of
// entries in increasing order.
func (c hashGroups) check(v []byte) error {
	m, err := c.entries(v)
	if err != nil {
		return err
	}
	for i := 1; i < m; i++ {
		if cmpHashEntry(c.entryAt(v, i-1), c.entryAt(v, i)) >= 0 {
			return fmt.Errorf("%w: hash group out of order at entry %d", ErrCorrupt, i)
		}
	}
	return nil
}

// candidates calls fn with the number of each entry of group value v
// whose bits are bits, in increasing order, until fn returns false. It
// costs a binary search of the group. It fails with ErrCorrupt if v is
// not a whole number of entries.
func (c hashGroups) candidates(v []byte, bits uint64, fn func(n uint32) bool) error {
	m, err := c.entries(v)
	if err != nil {
		return err
	}
	lo, hi := 0, m
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if c.entryAt(v, mid).bits < bits {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for i := lo; i < m; i++ {
		e := c.entryAt(v, i)
		if e.bits != bits || !fn(e.n) {
			break
		}
	}
	return nil
}

// hashOp is a change of a grouped bucket: the entry of the document n
// under hash h is added or, with del, removed.
type hashOp struct {
	h   uint64
	n   uint32
	del bool
}

// update applies ops to the grouped bucket b: it reads and rewrites each
// group that ops change, once. It sorts ops, keeping the order of the ops
// of one entry: the last wins. An entry to add that is there, or to remove
// that is not, is no error.
func (c hashGroups) update(b *bolt.Bucket, ops []hashOp) error {
	slices.SortStableFunc(ops, func(a, b hashOp) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	var kb, ka [4]byte
	var ents []hashEntry
	for i := 0; i < len(ops); {
		key := c.key(kb[:0], ops[i].h)
		j := i + 1
		for j < len(ops) && string(c.key(ka[:0], ops[j].h)) == string(key) {
			j++
		}
		old := b.Get(key)
		if err := c.check(old); err != nil {
			return err
		}
		ents = ents[:0]
		for k := range len(old) / c.size() {
			ents = append(ents, c.entryAt(old, k))
		}
		for _, op := range ops[i:j] {
			e := hashEntry{c.bits(op.h), op.n}
			k, ok := slices.BinarySearchFunc(ents, e, cmpHashEntry)
			switch {
			case op.del && ok:
				ents = slices.Delete(ents, k, k+1)
			case !op.del && !ok:
				ents = slices.Insert(ents, k, e)
			}
		}
		if len(ents) == 0 {
			if old != nil {
				if err := b.Delete(key); err != nil {
					return err
				}
			}
		} else if err := b.Put(key, c.encode(ents)); err != nil { // Put copies the key
			return err
		}
		i = j
	}
	return nil
}

// encode returns a new group value of ents: bbolt keeps a value until the
// commit.
func (c hashGroups) encode(ents []hashEntry) []byte {
	v := make([]byte, 0, len(ents)*c.size())
	for _, e := range ents {
		v = c.appendEntry(v, e)
	}
	return v
}

// put writes the grouped bucket name of a bulk load, in key order, from
// es: the pairs (hash p, document number n) sorted by hash. An entry with
// n math.MaxUint32 is left out.
func (c hashGroups) put(w *bulkWriter, name []byte, es []entry) error {
	var kb, ka [4]byte
	var ents []hashEntry
	for i := 0; i < len(es); {
		key := c.key(kb[:0], es[i].p)
		ents = ents[:0]
		j := i
		for ; j < len(es) && string(c.key(ka[:0], es[j].p)) == string(key); j++ {
			if es[j].n != math.MaxUint32 {
				ents = append(ents, hashEntry{c.bits(es[j].p), es[j].n})
			}
		}
		// In hash order, which is the entries' order unless two hashes
		// share the group's bits and the entry's (an ID group's entries
		// hold 32 bits of the hash) or a hash repeats.
		if !slices.IsSortedFunc(ents, cmpHashEntry) {
			slices.SortFunc(ents, cmpHashEntry)
		}
		if len(ents) > 0 {
			if err := w.put(name, key, c.encode(ents)); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}
