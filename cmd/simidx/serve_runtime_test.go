package main

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestTuneRuntime checks that servers in one process share one tuning,
// restored when the last one stops, and that the environment wins.
func TestTuneRuntime(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	t.Setenv("GOGC", "")
	procs := runtime.GOMAXPROCS(0)
	gc := debug.SetGCPercent(100)
	defer debug.SetGCPercent(gc)
	a := tuneRuntime()
	b := tuneRuntime()
	if got := runtime.GOMAXPROCS(0); got != procs+1 {
		t.Errorf("GOMAXPROCS %d while serving, want %d", got, procs+1)
	}
	a()
	a() // a second call changes nothing
	if got := debug.SetGCPercent(serveGCPercent); got != serveGCPercent {
		t.Errorf("GOGC %d with a server still running, want %d", got, serveGCPercent)
	}
	b()
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d after the servers stopped, want %d", got, procs)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after the servers stopped, want 100", got)
	}

	t.Setenv("GOGC", "50")
	t.Setenv("GOMAXPROCS", "1")
	c := tuneRuntime()
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d with GOMAXPROCS set in the environment, want %d", got, procs)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC changed to %d with GOGC set in the environment", got)
	}
	c()
}
