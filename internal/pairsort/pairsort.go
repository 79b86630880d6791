// Package pairsort sorts the pairs of near duplicates of an index by their
// IDs in bounded memory. index.Pairs gives the pairs in no order, and a
// group of n exact copies alone has n(n-1)/2 pairs (12.5 million for 5,000
// copies): Sorted holds a bounded number of them in memory, writes sorted
// runs of the rest to a temporary file, and merges the runs as the pairs
// are read.
package pairsort

import (
	"bufio"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/simidx/simidx/index"
)

// Sorted returns the pairs of x within opts, sorted by (A, B) in byte
// order, A < B; with limit above 0, only the first limit of them. run is
// how many pairs it holds in memory: RunPairs, or fewer in tests.
// index.Pairs gives them in no order, and a group of n exact copies alone
// has n(n-1)/2 pairs (12.5 million for 5,000 copies), so they are not
// all held in memory:
//
//   - with a limit of at most run, a max-heap keeps the limit smallest
//     pairs seen: memory O(limit);
//   - else each ID is kept once, each pair in 24 bytes, and every run
//     pairs are sorted and written to a temporary file (18 bytes a pair),
//     merged as they are read: memory O(run + documents in pairs), disk
//     18 bytes a pair once there are more than run.
//
// Time: what index.Pairs costs, and O(P log P) comparisons of IDs for P
// pairs. The list must be closed.
func Sorted(ctx context.Context, x *index.Index, opts *index.QueryOptions, limit, run int) (*List, error) {
	// Index.Pairs stops at opts.Limit pairs in its own order: the limit
	// is applied here, to the sorted pairs.
	all := *opts
	all.Limit = 0
	l := &List{limit: limit}
	if limit > 0 && limit <= run {
		var err error
		l.small, err = smallestPairs(ctx, x, &all, limit)
		return l, err
	}
	l.s = &pairSorter{num: make(map[string]uint32), run: run}
	err := x.Pairs(ctx, &all, func(p index.Pair) error {
		if p.A > p.B {
			p.A, p.B = p.B, p.A
		}
		return l.s.add(p)
	})
	if err != nil {
		l.Close()
		return nil, err
	}
	slices.SortFunc(l.s.buf, l.s.compare)
	if l.s.file != nil {
		err = l.s.w.Flush()
	}
	return l, err
}

// List is the sorted pairs of Sorted, which can be read more than once.
type List struct {
	limit int
	small []index.Pair // with a limit of at most run, sorted
	s     *pairSorter  // else
}

// Spilled reports whether the pairs did not fit in memory: they are read
// from the runs written to disk as they are merged.
func (l *List) Spilled() bool { return l.s != nil && l.s.file != nil }

// Each calls fn with every pair in order, until fn returns an error.
func (l *List) Each(ctx context.Context, fn func(index.Pair) error) error {
	if l.s == nil {
		for _, p := range l.small {
			if err := fn(p); err != nil {
				return err
			}
		}
		return nil
	}
	return l.s.merge(ctx, l.limit, fn)
}

// Close removes the runs written to disk.
func (l *List) Close() {
	if l.s != nil && l.s.file != nil {
		l.s.file.Close()
	}
}

// RunPairs is how many pairs Sorted holds in memory (24 bytes each)
// before it sorts them and writes them out as a run.
const RunPairs = 1 << 20

// pairCompare orders pairs by A, then B.
func pairCompare(p, q index.Pair) int {
	return cmp.Or(strings.Compare(p.A, q.A), strings.Compare(p.B, q.B))
}

// pairHeap is a max-heap of pairs by (A, B).
type pairHeap []index.Pair

func (h pairHeap) Len() int           { return len(h) }
func (h pairHeap) Less(i, j int) bool { return pairCompare(h[i], h[j]) > 0 }
func (h pairHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(v any)        { *h = append(*h, v.(index.Pair)) }
func (h *pairHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// smallestPairs returns the limit smallest pairs of x by (A, B), in
// order, keeping no more than limit pairs.
func smallestPairs(ctx context.Context, x *index.Index, opts *index.QueryOptions, limit int) ([]index.Pair, error) {
	h := make(pairHeap, 0, limit)
	err := x.Pairs(ctx, opts, func(p index.Pair) error {
		if p.A > p.B {
			p.A, p.B = p.B, p.A
		}
		switch {
		case len(h) < limit:
			heap.Push(&h, p)
		case pairCompare(p, h[0]) < 0:
			h[0] = p
			heap.Fix(&h, 0)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(h, pairCompare)
	return h, nil
}

// pairSorter sorts pairs in bounded memory (see Sorted).
type pairSorter struct {
	ids  []string // the IDs, by number
	num  map[string]uint32
	buf  []packedPair // pairs not yet in a run
	run  int          // pairs of a run
	file *os.File     // the runs, one after another; nil before the first
	runs []int64      // pairs in each run
	w    *bufio.Writer
}

// packedPair is a pair with its IDs by number.
type packedPair struct {
	sim   float64
	a, b  uint32
	dist  uint8
	exact bool
}

// packedSize is the size of a packedPair in a run: a, b, distance,
// exact, the similarity's bits.
const packedSize = 4 + 4 + 1 + 1 + 8

func (s *pairSorter) id(v string) uint32 {
	n, ok := s.num[v]
	if !ok {
		n = uint32(len(s.ids))
		s.ids = append(s.ids, v)
		s.num[v] = n
	}
	return n
}

func (s *pairSorter) compare(p, q packedPair) int {
	if p.a != q.a {
		if c := strings.Compare(s.ids[p.a], s.ids[q.a]); c != 0 {
			return c
		}
	}
	if p.b == q.b {
		return 0
	}
	return strings.Compare(s.ids[p.b], s.ids[q.b])
}

func (s *pairSorter) add(p index.Pair) error {
	s.buf = append(s.buf, packedPair{sim: p.Similarity, a: s.id(p.A), b: s.id(p.B), dist: uint8(p.Distance), exact: p.Exact})
	if len(s.buf) < s.run {
		return nil
	}
	return s.spill()
}

// spill sorts the pairs in memory and writes them out as a run.
func (s *pairSorter) spill() error {
	if s.file == nil {
		f, err := os.CreateTemp("", "simidx-pairs-")
		if err != nil {
			return err
		}
		// Unlinked at once: the runs go with the process, however it ends.
		os.Remove(f.Name())
		s.file, s.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	slices.SortFunc(s.buf, s.compare)
	var rec [packedSize]byte
	for _, p := range s.buf {
		encodePair(rec[:], p)
		if _, err := s.w.Write(rec[:]); err != nil {
			return err
		}
	}
	s.runs = append(s.runs, int64(len(s.buf)))
	s.buf = s.buf[:0]
	return nil
}

func encodePair(rec []byte, p packedPair) {
	le := binary.LittleEndian
	le.PutUint32(rec[0:], p.a)
	le.PutUint32(rec[4:], p.b)
	rec[8] = p.dist
	rec[9] = 0
	if p.exact {
		rec[9] = 1
	}
	le.PutUint64(rec[10:], math.Float64bits(p.sim))
}

func decodePair(rec []byte) packedPair {
	le := binary.LittleEndian
	return packedPair{a: le.Uint32(rec[0:]), b: le.Uint32(rec[4:]), dist: rec[8], exact: rec[9] == 1, sim: math.Float64frombits(le.Uint64(rec[10:]))}
}

// runReader reads the pairs of one run, or of the sorted pairs left in
// memory (rd nil).
type runReader struct {
	rd   *bufio.Reader
	left int64
	mem  []packedPair
	cur  packedPair
	rec  [packedSize]byte
}

// next reads the next pair into cur, and reports whether there was one.
func (r *runReader) next() (bool, error) {
	if r.rd == nil {
		if len(r.mem) == 0 {
			return false, nil
		}
		r.cur, r.mem = r.mem[0], r.mem[1:]
		return true, nil
	}
	if r.left == 0 {
		return false, nil
	}
	if _, err := io.ReadFull(r.rd, r.rec[:]); err != nil {
		return false, err
	}
	r.left--
	r.cur = decodePair(r.rec[:])
	return true, nil
}

// runHeap is a min-heap of runs by their current pair.
type runHeap struct {
	s  *pairSorter
	rs []*runReader
}

func (h *runHeap) Len() int           { return len(h.rs) }
func (h *runHeap) Less(i, j int) bool { return h.s.compare(h.rs[i].cur, h.rs[j].cur) < 0 }
func (h *runHeap) Swap(i, j int)      { h.rs[i], h.rs[j] = h.rs[j], h.rs[i] }
func (h *runHeap) Push(v any)         { h.rs = append(h.rs, v.(*runReader)) }
func (h *runHeap) Pop() any {
	v := h.rs[len(h.rs)-1]
	h.rs = h.rs[:len(h.rs)-1]
	return v
}

// merge calls emit with every pair in order (the first limit, with a
// limit above 0): the runs written and the pairs in memory (sorted),
// merged. It may be called more than once.
func (s *pairSorter) merge(ctx context.Context, limit int, emit func(index.Pair) error) error {
	h := &runHeap{s: s}
	if s.file != nil {
		var off int64
		for _, n := range s.runs {
			sr := io.NewSectionReader(s.file, off*packedSize, n*packedSize)
			h.rs = append(h.rs, &runReader{rd: bufio.NewReaderSize(sr, 64<<10), left: n})
			off += n
		}
	}
	h.rs = append(h.rs, &runReader{mem: s.buf})
	live := h.rs[:0]
	for _, r := range h.rs {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			live = append(live, r)
		}
	}
	h.rs = live
	heap.Init(h)
	for sent := 0; h.Len() > 0 && (limit <= 0 || sent < limit); sent++ {
		if sent%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r := h.rs[0]
		p := r.cur
		if err := emit(index.Pair{A: s.ids[p.a], B: s.ids[p.b], Distance: int(p.dist), Similarity: p.sim, Exact: p.exact}); err != nil {
			return err
		}
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}
