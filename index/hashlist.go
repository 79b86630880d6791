package index

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
)

// hashList is an immutable multimap from 64-bit hashes to the numbers of
// the operations of a chunk of the overlay: the pairs sorted by hash, and
// by number among equal hashes, in two arrays, with a directory of the
// first pair for each value of the hashes' top bits (one slot for every
// one or two pairs). A lookup reads two directory entries and searches the
// slot's pairs, about two for hashes spread evenly, as these are, and
// O(log n) however they fall, plus the copying of the numbers found. Building one from n pairs costs a sort, and
// merging two a pass over both, with no hashing and a few allocations: far
// less than the insertions of a Go map would cost the writer of simidx
// serve for every operation it publishes.
//
// The zero hashList is empty.
type hashList struct {
	hs    []uint64 // sorted
	ns    []int32  // ns[i] is the number paired with hs[i]
	dir   []int32  // dir[s]: the first pair whose hash>>shift is s or more; 1<<k + 1 entries
	shift uint8    // 64 - k
}

// hashPair is a hash and an operation's number, for building a hashList.
type hashPair struct {
	h uint64
	n int32
}

// newHashList returns the hashList of ps, which it sorts. Cost: O(n log n).
func newHashList(ps []hashPair) hashList {
	if len(ps) == 0 {
		return hashList{}
	}
	slices.SortFunc(ps, func(a, b hashPair) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	l := hashList{hs: make([]uint64, len(ps)), ns: make([]int32, len(ps))}
	for i, p := range ps {
		l.hs[i], l.ns[i] = p.h, p.n
	}
	l.index()
	return l
}

// mergeHashLists returns the pairs of a and those of b, with off added to
// b's numbers, which must then all exceed a's. a and b are not changed.
// Cost: O(len(a) + len(b)).
func mergeHashLists(a, b hashList, off int32) hashList {
	n := len(a.hs) + len(b.hs)
	if n == 0 {
		return hashList{}
	}
	l := hashList{hs: make([]uint64, n), ns: make([]int32, n)}
	i, j := 0, 0
	for k := range n {
		// Equal hashes: a's first, its numbers being the smaller.
		if j == len(b.hs) || i < len(a.hs) && a.hs[i] <= b.hs[j] {
			l.hs[k], l.ns[k] = a.hs[i], a.ns[i]
			i++
		} else {
			l.hs[k], l.ns[k] = b.hs[j], b.ns[j]+off
			j++
		}
	}
	l.index()
	return l
}

// index builds the directory of the sorted pairs, of which there is at
// least one. Cost: O(n).
func (l *hashList) index() {
	k := bits.Len(uint(len(l.hs))) - 1
	l.shift = uint8(64 - k)
	l.dir = make([]int32, 1<<k+1)
	s := 0
	for i, h := range l.hs {
		for top := int(h >> l.shift); s <= top; s++ {
			l.dir[s] = int32(i)
		}
	}
	for ; s < len(l.dir); s++ {
		l.dir[s] = int32(len(l.hs))
	}
}

// find returns the numbers paired with h, in increasing order, as a
// slice of the list's own (not to be changed). Cost: O(1) for hashes
// spread evenly over the slots, O(log n) at most.
func (l *hashList) find(h uint64) []int32 {
	if len(l.dir) == 0 {
		return nil
	}
	s := h >> l.shift
	lo, hi := int(l.dir[s]), int(l.dir[s+1])
	if hi-lo > 8 {
		// Hashes bunched in one slot (made to, or by chance), or a long
		// run of one hash (an ID added again and again, a text posted
		// many times): binary searches for the run's two ends.
		i, _ := slices.BinarySearch(l.hs[lo:hi], h)
		lo += i
		e := lo + sort.Search(hi-lo, func(j int) bool { return l.hs[lo+j] != h })
		return l.ns[lo:e:e]
	}
	for lo < hi && l.hs[lo] < h {
		lo++
	}
	e := lo
	for e < hi && l.hs[e] == h {
		e++
	}
	return l.ns[lo:e:e]
}
