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
	return binary.BigEndian.AppendUint32(dst, c.prefix(h))
}

// prefix returns the key of the group of hash h as a number.
func (c hashGroups) prefix(h uint64) uint32 {
	p := uint32(h >> 32)
	if c.g < 32 {
		p &^= 1<<(32-c.g) - 1
	}
	return p
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
		return 0, fmt.Errorf("%w: %s", ErrCorrupt, c.problem(v))
	}
	return len(v) / c.size(), nil
}

// problem describes what is wrong with group value v, "" if it is a
// sequence of entries in increasing order. It costs a pass over v.
func (c hashGroups) problem(v []byte) string {
	if len(v)%c.size() != 0 {
		return fmt.Sprintf("hash group of %d bytes, not a whole number of %d-byte entries", len(v), c.size())
	}
	for i := 1; i < len(v)/c.size(); i++ {
		if cmpHashEntry(c.entryAt(v, i-1), c.entryAt(v, i)) >= 0 {
			return fmt.Sprintf("hash group out of order at entry %d", i)
		}
	}
	return ""
}

// search returns the index of the first entry of group value v (a whole
// number of entries) not below e, and whether it is e: a binary search.
func (c hashGroups) search(v []byte, e hashEntry) (int, bool) {
	m := len(v) / c.size()
	lo, hi := 0, m
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cmpHashEntry(c.entryAt(v, mid), e) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < m && c.entryAt(v, lo) == e
}

// candidates calls fn with the number of each entry of group value v
// whose bits are bits, in increasing order, until fn returns false. It
// costs a binary search of the group and a step per such entry. It fails
// with ErrCorrupt if v is not a whole number of entries.
func (c hashGroups) candidates(v []byte, bits uint64, fn func(n uint32) bool) error {
	m, err := c.entries(v)
	if err != nil {
		return err
	}
	lo, _ := c.search(v, hashEntry{bits: bits})
	for i := lo; i < m; i++ {
		e := c.entryAt(v, i)
		if e.bits != bits || !fn(e.n) {
			break
		}
	}
	return nil
}

// each calls fn with each entry of the grouped bucket b and the key of
// its group, in order, until fn returns an error. A key that is no
// group's, a damaged group or an empty one is told to bad and skipped.
// It costs a pass over the bucket.
func (c hashGroups) each(b *bolt.Bucket, bad func(key []byte, what string), fn func(key []byte, e hashEntry) error) error {
	return b.ForEach(func(k, v []byte) error {
		if len(k) != 4 || c.prefix(uint64(binary.BigEndian.Uint32(k))<<32) != binary.BigEndian.Uint32(k) {
			bad(k, "no group's key")
			return nil
		}
		if p := c.problem(v); p != "" {
			bad(k, p)
			return nil
		}
		if len(v) == 0 {
			bad(k, "empty group")
			return nil
		}
		for i := range len(v) / c.size() {
			if err := fn(k, c.entryAt(v, i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// hashOp is a change of a grouped bucket: the entry of the document n
// under hash h is added or, with del, removed.
type hashOp struct {
	h   uint64
	n   uint32
	del bool
}

// update applies ops to the grouped bucket b: it reads each group that
// ops change and, if they change it, rewrites it once, merging its
// entries with the ops in one pass. It sorts ops by entry, keeping the
// order of the ops of one entry: the last wins. An entry to add that is
// there, or to remove that is not, is no error. Cost: for each group, a
// pass over it and, if changed, a write of it.
func (c hashGroups) update(b *bolt.Bucket, ops []hashOp) error {
	slices.SortStableFunc(ops, func(x, y hashOp) int {
		if d := cmp.Compare(c.prefix(x.h), c.prefix(y.h)); d != 0 {
			return d
		}
		return cmpHashEntry(hashEntry{c.bits(x.h), x.n}, hashEntry{c.bits(y.h), y.n})
	})
	var kb [4]byte
	var ents []hashEntry
	for i := 0; i < len(ops); {
		key := c.key(kb[:0], ops[i].h)
		j := i + 1
		for j < len(ops) && c.prefix(ops[j].h) == c.prefix(ops[i].h) {
			j++
		}
		old := b.Get(key)
		if p := c.problem(old); p != "" {
			return fmt.Errorf("%w: group %x: %s", ErrCorrupt, key, p)
		}
		ents = ents[:0]
		changed := false
		k, m := 0, len(old)/c.size()
		for o := i; o < j; o++ {
			e := hashEntry{c.bits(ops[o].h), ops[o].n}
			if o+1 < j && (hashEntry{c.bits(ops[o+1].h), ops[o+1].n}) == e {
				continue // a later op of the same entry wins
			}
			for ; k < m && cmpHashEntry(c.entryAt(old, k), e) < 0; k++ {
				ents = append(ents, c.entryAt(old, k))
			}
			there := k < m && c.entryAt(old, k) == e
			if there {
				k++
			}
			if !ops[o].del {
				ents = append(ents, e)
			}
			changed = changed || there == ops[o].del
		}
		if !changed {
			i = j
			continue
		}
		for ; k < m; k++ {
			ents = append(ents, c.entryAt(old, k))
		}
		if len(ents) == 0 {
			if err := b.Delete(key); err != nil {
				return err
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
	var kb [4]byte
	var ents []hashEntry
	for i := 0; i < len(es); {
		key := c.key(kb[:0], es[i].p)
		ents = ents[:0]
		j := i
		for ; j < len(es) && c.prefix(es[j].p) == c.prefix(es[i].p); j++ {
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
