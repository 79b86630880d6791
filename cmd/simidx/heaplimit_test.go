package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestHeapLimit checks the soft memory limit of loads: half as much again
// as the footprint a load states, raised with the documents read, never
// below half as much again as the live heap, the largest of two loads at
// once, and lifted when the last stops (an update after its stop changes
// nothing); GOMEMLIMIT in the environment wins.
func TestHeapLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	before := limit() // the runtime's, from the environment the test began with
	const m = 64 << 20
	a := startHeapLimit(m)
	if got, want := limit(), int64(heapLimitFactor*float64(index.LoadFootprint(0, m))); got < want {
		t.Fatalf("limit %d at the start, want at least %d", got, want)
	}
	a.update(10_000_000)
	if got, want := limit(), int64(heapLimitFactor*float64(index.LoadFootprint(10_000_000, m))); got < want {
		t.Fatalf("limit %d after 10^7 documents, want at least %d", got, want)
	}

	// A live heap above the footprint raises the limit with it.
	big := make([]byte, 300<<20) // live, if untouched
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := int64(s[0].Value.Uint64())
	b := startHeapLimit(m)
	if live < index.LoadFootprint(0, m) {
		t.Fatalf("live heap %d", live)
	}
	if got, want := limit(), int64(heapLimitFactor*float64(live)); got < want {
		t.Fatalf("limit %d with a live heap of %d, want at least %d", got, live, want)
	}
	runtime.KeepAlive(big)
	big = nil
	runtime.GC()

	// The first to stop leaves the other's limit. Its ticker may set it
	// again meanwhile: the lock makes the limit and its want one reading.
	b.stop()
	b.stop() // a second stop changes nothing
	heapLimits.Lock()
	got, want := limit(), a.want
	heapLimits.Unlock()
	if got != want {
		t.Fatalf("limit %d with one load left, want its %d", got, want)
	}
	a.stop()
	if got := limit(); got != before {
		t.Fatalf("limit %d after the loads, want the one before, %d", got, before)
	}
	a.update(20_000_000)
	if got := limit(); got != before {
		t.Fatalf("limit %d after an update of a stopped load, want %d", got, before)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	c := startHeapLimit(m)
	c.update(1000)
	if got := limit(); got != before {
		t.Fatalf("limit %d with GOMEMLIMIT set in the environment", got)
	}
	c.stop()
}

// TestHeapLimitGOGC checks the GOGC of loads: loadGCPercent while a load
// holds the limit, the one before once the last stops, and left alone
// when the environment sets GOGC or GOMEMLIMIT.
func TestHeapLimitGOGC(t *testing.T) {
	gogc := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	before := gogc()
	defer debug.SetGCPercent(before)
	const m = 64 << 20
	for _, env := range []struct{ gogc, memlimit string }{{"", ""}, {"50", ""}, {"", "1GiB"}} {
		t.Setenv("GOGC", env.gogc)
		t.Setenv("GOMEMLIMIT", env.memlimit)
		debug.SetGCPercent(before)
		want := loadGCPercent
		if env != (struct{ gogc, memlimit string }{}) {
			want = before
		}
		a := startHeapLimit(m)
		b := startHeapLimit(m)
		if got := gogc(); got != want {
			t.Fatalf("GOGC %q, GOMEMLIMIT %q: GOGC %d during two loads, want %d", env.gogc, env.memlimit, got, want)
		}
		a.stop()
		if got := gogc(); got != want {
			t.Fatalf("GOGC %q, GOMEMLIMIT %q: GOGC %d with one load left, want %d", env.gogc, env.memlimit, got, want)
		}
		b.stop()
		if got := gogc(); got != before {
			t.Fatalf("GOGC %q, GOMEMLIMIT %q: GOGC %d after the loads, want the one before, %d", env.gogc, env.memlimit, got, before)
		}
	}
}
