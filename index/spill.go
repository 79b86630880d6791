package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// runEntrySize is the size of a posting entry in a run file: the hash and
// the document number, big-endian.
const runEntrySize = 12

// postingSorter gathers the postings of a bulk load, (slot, hash,
// document) triples added in increasing document order, and gives them
// back grouped by key in key order: an external sort. It holds entries in
// memory up to its budget (16 bytes an entry, and as much again while it
// sorts), then sorts them by hash, a slot at a time on all cores, and
// writes them as a run to a temporary file; the runs and what remains in
// memory are merged when the postings are written. Sorting is a stable
// radix sort, so the documents of a hash stay in increasing order.
type postingSorter struct {
	buf  [][]entry // by slot; entry.p is the hash
	n    int       // entries in buf
	max  int       // entries held before a run is written
	dir  string    // of the run files
	runs []*sortRun
	// memory is the budget; mergers the number of calls of each that run
	// at once, which share half of it for their read blocks (see each).
	memory  int64
	mergers int
	sorting chan struct{} // closed when the sort of sortAhead ends; nil without
}

// sortRun is one run file: each slot's entries, sorted, one after another.
type sortRun struct {
	f    *os.File
	name string // removed at close if it could not be removed at once
	off  []int64
	cnt  []int
}

// newPostingSorter returns a sorter of slots slots that holds at most
// memory/32 entries (16 bytes each, and room for the growth of the slices
// and the sort's scratch) before it writes a run in dir.
func newPostingSorter(slots int, memory int64, dir string) *postingSorter {
	return &postingSorter{buf: make([][]entry, slots), max: max(int(memory/32), 1<<16), dir: dir, memory: memory, mergers: 1}
}

// add adds document n to the posting of hash h of slot i.
func (s *postingSorter) add(i int, h uint64, n uint32) error {
	s.buf[i] = append(s.buf[i], entry{p: h, n: n})
	if s.n++; s.n >= s.max {
		return s.spill()
	}
	return nil
}

// sortBuf sorts every slot's entries in memory, on up to GOMAXPROCS
// goroutines.
func (s *postingSorter) sortBuf() {
	next := make(chan int, len(s.buf))
	for i := range s.buf {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(s.buf)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tmp []entry
			for i := range next {
				es := s.buf[i]
				if cap(tmp) < len(es) {
					tmp = make([]entry, len(es))
				}
				radixSortIn(es, tmp[:len(es)], 1) // on this goroutine: the sorts of the slots run at once
			}
		}()
	}
	wg.Wait()
}

// spill sorts the entries in memory and writes them as a run.
func (s *postingSorter) spill() error {
	s.sortBuf()
	f, err := os.CreateTemp(s.dir, ".simidx-load-*.run")
	if err != nil {
		return fmt.Errorf("index: load: a sorted run of postings: %w", err)
	}
	r := &sortRun{f: f, off: make([]int64, len(s.buf)), cnt: make([]int, len(s.buf))}
	// Unlinked at once where the system allows it, so that a crash leaves
	// nothing behind.
	if os.Remove(f.Name()) != nil {
		r.name = f.Name()
	}
	s.runs = append(s.runs, r)
	w := bufio.NewWriterSize(f, 1<<20)
	var off int64
	var b [runEntrySize]byte
	for i, es := range s.buf {
		r.off[i], r.cnt[i] = off, len(es)
		for _, e := range es {
			binary.BigEndian.PutUint64(b[:8], e.p)
			binary.BigEndian.PutUint32(b[8:], e.n)
			if _, err := w.Write(b[:]); err != nil {
				return fmt.Errorf("index: load: writing a sorted run of postings: %w", err)
			}
		}
		off += int64(len(es)) * runEntrySize
		s.buf[i] = s.buf[i][:0]
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("index: load: writing a sorted run of postings: %w", err)
	}
	s.n = 0
	return nil
}

// runReader reads the entries of one slot of a run in order, a block of
// at most blockLen entries at a time, decoded into ents.
type runReader struct {
	r        io.Reader
	left     int    // entries not yet read
	blockLen int    // entries read at a time, at most
	block    []byte // encoded
	ents     []entry
}

// runBlock is the most entries a runReader reads at a time, and
// minRunBlock the fewest (see each).
const (
	runBlock    = 16 << 10
	minRunBlock = 256
)

// fill reads the next block into rr.ents, empty at the end of the slot.
func (rr *runReader) fill() error {
	k := min(rr.left, rr.blockLen)
	if rr.block == nil { // no larger than the slot's part of the run
		rr.block = make([]byte, k*runEntrySize)
		rr.ents = make([]entry, 0, k)
	}
	b := rr.block[:k*runEntrySize]
	if _, err := io.ReadFull(rr.r, b); err != nil {
		return fmt.Errorf("index: load: reading a sorted run of postings: %w", err)
	}
	rr.left -= k
	rr.ents = rr.ents[:k]
	for j := range rr.ents {
		e := b[j*runEntrySize : (j+1)*runEntrySize]
		rr.ents[j] = entry{p: binary.BigEndian.Uint64(e), n: binary.BigEndian.Uint32(e[8:])}
	}
	return nil
}

// mergeSource is one sorted source of entries of a merge: a run of a slot
// (rr), or the entries in memory. es is what is left of its current block.
type mergeSource struct {
	es []entry
	rr *runReader // nil for the entries in memory
}

// mergeHead is a source of a merge in its heap, with the hash at its head
// and its order, so that a comparison reads the heap alone.
type mergeHead struct {
	p   uint64
	ord int // its order among the sources: earlier runs hold earlier documents
	src *mergeSource
}

// mergeHeap is a min-heap of sources by the hash at their head, then by
// their order, so that the documents of a hash come in increasing order.
type mergeHeap []mergeHead

func (h mergeHeap) less(i, j int) bool {
	a, b := &h[i], &h[j]
	return a.p < b.p || a.p == b.p && a.ord < b.ord
}

func (h mergeHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// each calls fn with every hash of slot i, in increasing order, and its
// documents, in increasing order (ns is reused between calls). It sorts
// what is in memory first (finish does it for every slot at once). The
// runs and the memory are merged through a heap: a step of about log2 of
// the number of sources per hash and source. Each run is read a block at
// a time, 28 bytes an entry: the blocks of the s.mergers calls that run at
// once take about half of s.memory (the entries in memory, sorted, the
// other half), and from minRunBlock to runBlock entries each.
func (s *postingSorter) each(i int, fn func(h uint64, ns []uint32) error) error {
	block := runBlock
	if n := int64(len(s.runs) * max(s.mergers, 1)); n > 0 {
		block = int(min(int64(runBlock), max(int64(minRunBlock), s.memory/2/(28*n))))
	}
	var h mergeHeap
	for k, r := range s.runs {
		if r.cnt[i] == 0 {
			continue
		}
		rr := &runReader{r: io.NewSectionReader(r.f, r.off[i], int64(r.cnt[i])*runEntrySize), left: r.cnt[i], blockLen: block}
		if err := rr.fill(); err != nil {
			return err
		}
		h = append(h, mergeHead{p: rr.ents[0].p, ord: k, src: &mergeSource{es: rr.ents, rr: rr}})
	}
	if es := s.buf[i]; len(es) > 0 {
		h = append(h, mergeHead{p: es[0].p, ord: len(s.runs), src: &mergeSource{es: es}})
	}
	for k := len(h)/2 - 1; k >= 0; k-- {
		h.down(k)
	}
	var ns []uint32
	for len(h) > 0 {
		p := h[0].p
		ns = ns[:0]
		for len(h) > 0 && h[0].p == p {
			src := h[0].src
			es := src.es
			for len(es) > 0 && es[0].p == p {
				ns = append(ns, es[0].n)
				es = es[1:]
				if len(es) == 0 && src.rr != nil && src.rr.left > 0 {
					if err := src.rr.fill(); err != nil {
						return err
					}
					es = src.rr.ents
				}
			}
			src.es = es
			if len(es) == 0 {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			} else {
				h[0].p = es[0].p
			}
			h.down(0)
		}
		if err := fn(p, ns); err != nil {
			return err
		}
	}
	return nil
}

// sortAhead starts sorting what is in memory on a goroutine of its own,
// unless it has; finish then waits for it. Nothing may be added after it.
func (s *postingSorter) sortAhead() {
	if s.sorting != nil {
		return
	}
	done := make(chan struct{})
	s.sorting = done
	go func() {
		defer close(done)
		s.sortBuf()
	}()
}

// finish sorts what is in memory, for each, or waits for sortAhead's sort.
func (s *postingSorter) finish() {
	if s.sorting != nil {
		<-s.sorting
		s.sorting = nil
		return
	}
	s.sortBuf()
}

// close removes the run files and frees the memory.
func (s *postingSorter) close() error {
	if s.sorting != nil {
		<-s.sorting // the sort of sortAhead ends before its memory goes
		s.sorting = nil
	}
	var errs []error
	for _, r := range s.runs {
		errs = append(errs, r.f.Close())
		if r.name != "" {
			errs = append(errs, os.Remove(r.name))
		}
	}
	s.runs, s.buf = nil, nil
	return errors.Join(errs...)
}
