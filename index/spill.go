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
	return &postingSorter{buf: make([][]entry, slots), max: max(int(memory/32), 1<<16), dir: dir}
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
// runBlock entries at a time.
type runReader struct {
	r     io.Reader
	left  int    // entries not yet in buf
	block []byte // runBlock entries
	buf   []byte // the entries of block read, not yet taken
	head  entry
}

// runBlock is the number of entries a runReader reads at a time.
const runBlock = 16 << 10

func (rr *runReader) next() (bool, error) {
	if len(rr.buf) == 0 {
		if rr.left == 0 {
			return false, nil
		}
		k := min(rr.left, runBlock)
		if rr.block == nil {
			rr.block = make([]byte, runBlock*runEntrySize)
		}
		rr.buf = rr.block[:k*runEntrySize]
		if _, err := io.ReadFull(rr.r, rr.buf); err != nil {
			return false, fmt.Errorf("index: load: reading a sorted run of postings: %w", err)
		}
		rr.left -= k
	}
	b := rr.buf[:runEntrySize]
	rr.head = entry{p: binary.BigEndian.Uint64(b[:8]), n: binary.BigEndian.Uint32(b[8:])}
	rr.buf = rr.buf[runEntrySize:]
	return true, nil
}

// each calls fn with every hash of slot i, in increasing order, and its
// documents, in increasing order (ns is reused between calls). It sorts
// what is in memory first (finish does it for every slot at once).
func (s *postingSorter) each(i int, fn func(h uint64, ns []uint32) error) error {
	mem := s.buf[i]
	var rs []*runReader
	for _, r := range s.runs {
		if r.cnt[i] == 0 {
			continue
		}
		rr := &runReader{r: io.NewSectionReader(r.f, r.off[i], int64(r.cnt[i])*runEntrySize), left: r.cnt[i]}
		if _, err := rr.next(); err != nil {
			return err
		}
		rs = append(rs, rr)
	}
	var ns []uint32
	for len(rs) > 0 || len(mem) > 0 {
		// The least hash among the heads. Runs hold earlier documents
		// than later runs and than memory: taking the sources in order
		// keeps a hash's documents in increasing order.
		var h uint64
		first := true
		for _, rr := range rs {
			if first || rr.head.p < h {
				h, first = rr.head.p, false
			}
		}
		if len(mem) > 0 && (first || mem[0].p < h) {
			h = mem[0].p
		}
		ns = ns[:0]
		for k := 0; k < len(rs); {
			rr := rs[k]
			ok := true
			for ok && rr.head.p == h {
				ns = append(ns, rr.head.n)
				var err error
				if ok, err = rr.next(); err != nil {
					return err
				}
			}
			if !ok {
				rs = append(rs[:k], rs[k+1:]...)
				continue
			}
			k++
		}
		for len(mem) > 0 && mem[0].p == h {
			ns = append(ns, mem[0].n)
			mem = mem[1:]
		}
		if err := fn(h, ns); err != nil {
			return err
		}
	}
	return nil
}

// finish sorts what is in memory, for each.
func (s *postingSorter) finish() { s.sortBuf() }

// close removes the run files and frees the memory.
func (s *postingSorter) close() error {
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
