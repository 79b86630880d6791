package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// serveGCPercent is the GOGC of simidx serve when the environment does not
// set one.
const serveGCPercent = 400

// tuneRuntime sets up the Go runtime for serving and returns a function
// that restores it. Settings given in the environment (GOMAXPROCS, GOGC)
// are left alone.
//
//   - One P more than GOMAXPROCS: the index's background commits of its
//     write-ahead log to its file hold a P for tenths of a second at a
//     time, much of it waiting on page faults of the mapped file that do
//     not release the P; the extra P keeps one P per CPU for requests.
//   - GOGC 400: the index is memory-mapped, not on the heap, so the live heap
//     is small and the default GOGC (100) collects after every few MB of
//     allocation, which a large index commit makes quickly. The heap may
//     grow to five times its live size instead of twice.
//
// The load test of docs/server.md (cd bench && go run . serve) measures
// their effect on durable adds.
//
// Servers running together in one process (tests) share one tuning: the
// first sets it, the last to stop restores it.
func tuneRuntime() (restore func()) {
	tuning.Lock()
	defer tuning.Unlock()
	if tuning.n++; tuning.n == 1 {
		tuning.undo = nil
		if os.Getenv("GOMAXPROCS") == "" {
			prev := runtime.GOMAXPROCS(0)
			runtime.GOMAXPROCS(prev + 1)
			tuning.undo = append(tuning.undo, func() { runtime.GOMAXPROCS(prev) })
		}
		if os.Getenv("GOGC") == "" {
			prev := debug.SetGCPercent(serveGCPercent)
			tuning.undo = append(tuning.undo, func() { debug.SetGCPercent(prev) })
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			tuning.Lock()
			defer tuning.Unlock()
			if tuning.n--; tuning.n == 0 {
				for _, f := range tuning.undo {
					f()
				}
			}
		})
	}
}

// tuning is the runtime tuning of the servers running in this process.
var tuning struct {
	sync.Mutex
	n    int      // servers running
	undo []func() // restores the runtime
}
