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

// TestHeapLimitGOGC checks the GOGC of loads: one of loadGCPercent while
// a load holds the limit (which one depends on the live heap, which may
// change between two settings), the one before once the last stops, and
// left alone when the environment sets GOGC or GOMEMLIMIT.
func TestHeapLimitGOGC(t *testing.T) {
	gogc := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	before := gogc()
	defer debug.SetGCPercent(before)
	const m = 64 << 20
	const other = 70 // a GOGC no load sets
	for _, env := range []struct{ gogc, memlimit string }{{"", ""}, {"50", ""}, {"", "1GiB"}} {
		t.Setenv("GOGC", env.gogc)
		t.Setenv("GOMEMLIMIT", env.memlimit)
		debug.SetGCPercent(other)
		loads := env == (struct{ gogc, memlimit string }{})
		check := func(when string) {
			t.Helper()
			switch got := gogc(); {
			case loads && (got < 100 || got > maxLoadGCPercent):
				t.Fatalf("GOGC %d %s, want one of loadGCPercent, 100 to %d", got, when, maxLoadGCPercent)
			case !loads && got != other:
				t.Fatalf("GOGC %q, GOMEMLIMIT %q: GOGC %d %s, want %d", env.gogc, env.memlimit, got, when, other)
			}
		}
		a := startHeapLimit(m)
		b := startHeapLimit(m)
		check("during two loads")
		a.stop()
		check("with one load left")
		b.stop()
		if got := gogc(); got != other {
			t.Fatalf("GOGC %q, GOMEMLIMIT %q: GOGC %d after the loads, want the one before, %d", env.gogc, env.memlimit, got, other)
		}
		a.update(1000) // after its stop: changes nothing
		if got := gogc(); got != other {
			t.Fatalf("GOGC %q, GOMEMLIMIT %q: GOGC %d after an update of a stopped load, want %d", env.gogc, env.memlimit, got, other)
		}
	}

	// A large live heap brings the GOGC down to 100.
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	big := make([]byte, 2*loadHeadroom)
	runtime.GC()
	c := startHeapLimit(m)
	if got := gogc(); got != 100 {
		t.Fatalf("GOGC %d with a live heap of %d bytes, want 100", got, len(big))
	}
	runtime.KeepAlive(big)
	c.stop()
}

// TestLoadGCPercent checks the GOGC of loads by live heap: a growth of
// loadHeadroom between collections, from 100 to maxLoadGCPercent.
func TestLoadGCPercent(t *testing.T) {
	for _, tc := range []struct {
		live int64
		want int
	}{
		{0, maxLoadGCPercent}, {1 << 20, maxLoadGCPercent}, {loadHeadroom / 4, maxLoadGCPercent},
		{loadHeadroom / 2, 200}, {loadHeadroom, 100}, {10 * loadHeadroom, 100}, {1 << 62, 100},
	} {
		if got := loadGCPercent(tc.live); got != tc.want {
			t.Errorf("loadGCPercent(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}
