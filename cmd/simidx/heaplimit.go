package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simidx/simidx/index"
)

// heapLimit holds the Go heap of a load (simidx index, simidx dedup) near
// the memory the load says it holds (index.LoadFootprint), when the
// environment sets no GOMEMLIMIT: a soft limit (debug.SetMemoryLimit) of
// half as much again as the larger of that footprint and the live heap
// after the last collection, set again at each progress report of the
// load and every heapLimitEvery. As the limit follows the live heap, the
// collector runs at most about twice as often as GOGC 100 has it run,
// whatever the corpus, but for a live heap that grows past the limit
// between two settings.
//
// Unless the environment sets GOGC, a load also sets the GOGC, at the same
// times, so that the heap may grow by loadHeadroom between collections
// (loadGCPercent): from 100, the default, for a live heap of loadHeadroom
// or more, to maxLoadGCPercent for one of a quarter of that or less. A
// load of long texts holds a small live heap while it analyses (its
// postings are packed in large blocks) and allocates each text as it
// reads it: GOGC 100 collects it after every few MB read, a few percent
// of its CPU. The heap then peaks at about loadHeadroom more than
// the live heap, within the limit. The limit and the GOGC are restored
// when the last load stops.
//
// Loads running together in one process (tests) share the limit: the
// largest of theirs, lifted when the last one stops.
type heapLimit struct {
	memory int64        // LoadOptions.Memory
	want   int64        // this load's limit
	docs   atomic.Int64 // documents read
	done   chan struct{}
	closed sync.Once // of done
	wg     sync.WaitGroup
}

// heapLimitEvery is how often a load's limit is set again besides its
// progress reports, which stop while it writes the postings.
const heapLimitEvery = 100 * time.Millisecond

// heapLimitFactor is the limit's multiple of the footprint or live heap.
const heapLimitFactor = 1.5

// loadHeadroom is the growth of the heap between collections that a
// load's GOGC allows, and maxLoadGCPercent its largest GOGC.
const (
	loadHeadroom     = 64 << 20
	maxLoadGCPercent = 400
)

// loadGCPercent returns the GOGC of loads in a process of live bytes of
// live heap: the percentage of it that loadHeadroom is, from 100 to
// maxLoadGCPercent.
func loadGCPercent(live int64) int {
	if live <= loadHeadroom/maxLoadGCPercent*100 {
		return maxLoadGCPercent
	}
	return int(min(max(loadHeadroom*100/live, 100), maxLoadGCPercent))
}

// heapLimits are the loads holding the limit in this process.
var heapLimits struct {
	sync.Mutex
	on     map[*heapLimit]bool
	prev   int64 // the limit before the first
	ownGC  bool  // the loads set the GOGC (the environment sets none)
	gc     int   // the GOGC they set, 0 before they set one
	prevGC int   // the GOGC before they set one
}

// startHeapLimit sets the limit of a load with LoadOptions.Memory memory
// and returns it, or nil if GOMEMLIMIT is set.
func startHeapLimit(memory int64) *heapLimit {
	if os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	h := &heapLimit{memory: memory, done: make(chan struct{})}
	heapLimits.Lock()
	if len(heapLimits.on) == 0 {
		heapLimits.on = make(map[*heapLimit]bool)
		heapLimits.prev = debug.SetMemoryLimit(-1)
		heapLimits.ownGC, heapLimits.gc = os.Getenv("GOGC") == "", 0
	}
	heapLimits.on[h] = true
	h.setLocked()
	heapLimits.Unlock()
	h.wg.Go(func() {
		t := time.NewTicker(heapLimitEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				h.set()
			case <-h.done:
				return
			}
		}
	})
	return h
}

// update sets the limit of a load that has read docs documents.
func (h *heapLimit) update(docs int64) {
	if h == nil {
		return
	}
	h.docs.Store(docs)
	h.set()
}

// set sets h's limit, if h still holds one. Cost: a read of the runtime's
// live heap metric.
func (h *heapLimit) set() {
	heapLimits.Lock()
	defer heapLimits.Unlock()
	if heapLimits.on[h] {
		h.setLocked()
	}
}

// setLocked sets h's limit for the documents it has read, the process's
// to the largest of the loads', and the loads' GOGC for the live heap.
func (h *heapLimit) setLocked() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	var live int64
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = int64(min(s[0].Value.Uint64(), math.MaxInt64/2))
	}
	h.want = int64(heapLimitFactor * float64(max(index.LoadFootprint(h.docs.Load(), h.memory), live)))
	setHeapLimitLocked()
	if g := loadGCPercent(live); heapLimits.ownGC && g != heapLimits.gc {
		prev := debug.SetGCPercent(g)
		if heapLimits.gc == 0 {
			heapLimits.prevGC = prev
		}
		heapLimits.gc = g
	}
}

// setHeapLimitLocked sets the process's limit to the largest of the
// loads', or to the one before the first when none is left.
func setHeapLimitLocked() {
	if len(heapLimits.on) == 0 {
		debug.SetMemoryLimit(heapLimits.prev)
		if heapLimits.ownGC && heapLimits.gc != 0 {
			debug.SetGCPercent(heapLimits.prevGC)
		}
		heapLimits.ownGC, heapLimits.gc = false, 0
		return
	}
	limit := int64(0)
	for o := range heapLimits.on {
		limit = max(limit, o.want)
	}
	debug.SetMemoryLimit(limit)
}

// stop lifts h's limit: the process's is the largest of the other loads',
// or the one before the first.
func (h *heapLimit) stop() {
	if h == nil {
		return
	}
	h.closed.Do(func() { close(h.done) })
	h.wg.Wait()
	heapLimits.Lock()
	defer heapLimits.Unlock()
	if heapLimits.on[h] {
		delete(heapLimits.on, h)
		setHeapLimitLocked()
	}
}
