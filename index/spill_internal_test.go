package index

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPostingSorterMerge adds postings to a sorter that writes a run
// every few hundred entries, with hashes from a small range so that a
// hash's documents are spread over many runs and memory, and checks what
// each gives for every slot against a stable sort of the same entries.
func TestPostingSorterMerge(t *testing.T) {
	for _, c := range []struct{ slots, docs, hashes, max int }{
		{1, 1, 1, 1},
		{3, 2000, 50, 300},       // long postings across every run
		{5, 3000, 100000, 700},   // mostly one document a hash
		{2, 5000, 1000, 1 << 20}, // no run: memory only
		{1, 60000, 5000, 40000},  // runs of more than a block (runBlock)
	} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.docs), uint64(c.max)))
			s := newPostingSorter(c.slots, 0, t.TempDir())
			s.max = c.max
			defer s.close()
			want := make([][]entry, c.slots)
			for n := range uint32(c.docs) {
				for range rng.IntN(4) {
					i, h := rng.IntN(c.slots), rng.Uint64N(uint64(c.hashes))
					if i == 0 && c.slots > 1 {
						continue // a slot with few entries
					}
					if err := s.add(i, h, n); err != nil {
						t.Fatal(err)
					}
					want[i] = append(want[i], entry{p: h, n: n})
				}
			}
			if c.max < c.docs && len(s.runs) < 2 {
				t.Fatalf("%d runs", len(s.runs))
			}
			s.finish()
			for i := range c.slots {
				slices.SortStableFunc(want[i], func(a, b entry) int { return cmp.Compare(a.p, b.p) })
				var got []entry
				last, first := uint64(0), true
				err := s.each(i, func(h uint64, ns []uint32) error {
					if !first && h <= last {
						return fmt.Errorf("hash %d after %d", h, last)
					}
					if len(ns) == 0 {
						return fmt.Errorf("hash %d without documents", h)
					}
					last, first = h, false
					for _, n := range ns {
						got = append(got, entry{p: h, n: n})
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want[i]) {
					t.Fatalf("slot %d: %d entries, want %d", i, len(got), len(want[i]))
				}
			}
		})
	}
}

// TestWritePostingsReadError truncates a run of a sorter of several slots
// under writePostings: the write fails with the read's error, and every
// goroutine it started has ended when it returns.
func TestWritePostingsReadError(t *testing.T) {
	x, _, _ := openNew(t, Settings{Text: TextSettings{Method: MethodNshash}})
	defer x.Close()
	s := newPostingSorter(6, 0, t.TempDir())
	s.max = 50000
	defer s.close()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range uint32(30000) {
		for i := range 6 {
			if err := s.add(i, rng.Uint64(), n); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(s.runs) < 2 {
		t.Fatalf("%d runs", len(s.runs))
	}
	// The last slots of the first run are cut off.
	r := s.runs[0]
	if err := r.f.Truncate(r.off[4]); err != nil {
		t.Fatal(err)
	}
	l := &loader{x: x}
	w := &bulkWriter{x: x}
	key := func(dst []byte, i int, h uint64) []byte { return appendSetKey(append(dst, byte(i)), h) } // in key order
	err := l.writePostings(w, s, bucketSets, key, groupCodec{g: -1}, nil)
	w.rollback()
	if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		t.Fatalf("writePostings: %v, want the read's error", err)
	}
	noPostingGoroutines(t)
}

// noPostingGoroutines fails t if a goroutine runs the code of
// writePostings, which waits for its goroutines before it returns.
func noPostingGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, f := range []string{"(*postingProducer).slot", "(*loader).writePostings.func"} {
		if strings.Contains(stacks, f) {
			t.Errorf("a goroutine in %s after writePostings returned:\n%s", f, stacks)
		}
	}
}

// TestWritePostingsPutError makes a put of writePostings fail (an empty
// key) in the first, a middle and the last slot, alone and with a read
// error in another slot, on 1, 2 and 16 goroutines: the write fails with
// an error, without a hang, and leaves no goroutine behind.
func TestWritePostingsPutError(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const slots = 6
	for _, procs := range []int{1, 2, 16} {
		for _, c := range []struct{ putSlot, putAt, readSlot int }{
			{0, 0, -1}, {2, 5000, -1}, {slots - 1, 100, -1}, {1, 100, 4}, {4, 100, 1},
		} {
			t.Run(fmt.Sprint(procs, c), func(t *testing.T) {
				runtime.GOMAXPROCS(procs)
				x, _, _ := openNew(t, Settings{Text: TextSettings{Method: MethodNshash}})
				defer x.Close()
				s := newPostingSorter(slots, 0, t.TempDir())
				s.max = 60000
				defer s.close()
				rng := rand.New(rand.NewPCG(3, 4))
				for n := range uint32(40000) {
					for i := range slots {
						if err := s.add(i, rng.Uint64N(20000), n); err != nil {
							t.Fatal(err)
						}
					}
				}
				if c.readSlot >= 0 {
					s.runs[1].off[c.readSlot] = 1 << 40 // past the end of the run
				}
				var seen [slots]int // keys made per slot, each slot's on one goroutine
				key := func(dst []byte, i int, h uint64) []byte {
					if seen[i]++; i == c.putSlot && seen[i] == c.putAt+1 {
						return dst // an empty key, which bbolt refuses
					}
					return appendSetKey(append(dst, byte(i)), h)
				}
				done := make(chan error, 1)
				w := &bulkWriter{x: x}
				go func() { done <- (&loader{x: x}).writePostings(w, s, bucketSets, key, groupCodec{g: -1}, nil) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(5 * time.Minute): // a hang
					buf := make([]byte, 1<<20)
					t.Fatalf("writePostings hangs:\n%s", buf[:runtime.Stack(buf, true)])
				}
				w.rollback()
				if err == nil {
					t.Fatal("writePostings: no error")
				}
				noPostingGoroutines(t)
			})
		}
	}
}

// TestMergeBlocksWithinBudget merges a slot of 100 runs: the read blocks
// of the merge take no more than its share of half the sorter's memory.
func TestMergeBlocksWithinBudget(t *testing.T) {
	const memory = 8 << 20
	s := newPostingSorter(2, memory, t.TempDir())
	s.max = 5000
	s.mergers = 2
	defer s.close()
	for n := range uint32(500000) {
		if err := s.add(int(n%2), uint64(n)*0x9e3779b97f4a7c15, n); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.runs) < 90 {
		t.Fatalf("%d runs", len(s.runs))
	}
	s.finish()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := s.each(0, func(uint64, []uint32) error { return nil }); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got, share := after.TotalAlloc-before.TotalAlloc, uint64(memory/2/s.mergers); got > share+share/4 {
		t.Errorf("the merge of a slot allocated %d bytes, its share of the memory is %d", got, share)
	}
}

// BenchmarkPostingSorterMerge merges the postings of a million documents
// in 8 slots, with 34 band hashes each as a load of short texts makes
// them, from the runs of a sorter that holds 4 million entries in memory
// (8 runs and the memory): the cost of each per entry merged.
func BenchmarkPostingSorterMerge(b *testing.B) {
	const slots, docs, perDoc = 8, 1 << 20, 34
	s := newPostingSorter(slots, 0, b.TempDir())
	s.max = 4 << 20
	defer s.close()
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range uint32(docs) {
		for j := range perDoc {
			if err := s.add(j%slots, rng.Uint64()&^(1<<26-1), n); err != nil {
				b.Fatal(err)
			}
		}
	}
	s.finish()
	b.SetBytes(docs * perDoc * 16) // the entries, 16 bytes each
	b.ReportAllocs()
	for b.Loop() {
		for i := range slots {
			if err := s.each(i, func(uint64, []uint32) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(s.runs)), "runs")
}
