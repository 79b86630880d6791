package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestRetryDelay checks the backoff of a failing applier: the interval
// while applies succeed, doubled per failure in a row, capped.
func TestRetryDelay(t *testing.T) {
	iv := 200 * time.Millisecond
	for _, c := range []struct {
		failures int
		want     time.Duration
	}{
		{0, iv}, {1, 2 * iv}, {2, 4 * iv}, {5, 32 * iv}, {8, maxRetryDelay}, {1000, maxRetryDelay},
	} {
		if got := retryDelay(iv, c.failures); got != c.want {
			t.Errorf("retryDelay(%s, %d) = %s, want %s", iv, c.failures, got, c.want)
		}
	}
	if got := retryDelay(time.Minute, 3); got != time.Minute {
		t.Errorf("an interval above the cap: %s, want the interval", got)
	}
}

// TestApplyBackoff fails the first applies of the log and checks that the
// applier retries them with growing waits, that the operations stay
// visible meanwhile and reach the file once an apply succeeds.
func TestApplyBackoff(t *testing.T) {
	const fails = 4
	iv := 20 * time.Millisecond
	var attempts []time.Time
	applyFault = func() error {
		attempts = append(attempts, time.Now())
		if len(attempts) <= fails {
			return errors.New("injected apply failure")
		}
		return nil
	}
	defer func() { applyFault = nil }()
	var failed atomic.Int32
	x, err := Open(filepath.Join(t.TempDir(), "b.simidx"), &Options{Log: &LogOptions{ApplyInterval: iv,
		Events: &LogEvents{Apply: func(a ApplyInfo) {
			if a.Err != nil {
				failed.Add(1)
			}
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for i := range 10 {
		if err := x.Add(Doc{ID: fmt.Sprint("d", i), Text: []byte(fmt.Sprint("a text of some words, number ", i))}); err != nil {
			t.Fatal(err)
		}
	}
	if x.Len() != 10 {
		t.Fatalf("Len %d while the applies fail, want 10", x.Len())
	}
	deadline := time.Now().Add(time.Minute) // only catches a hang
	for x.LogStats().Pending > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("operations still pending after a minute, %d applies tried", len(attempts))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if failed.Load() != fails {
		t.Errorf("%d failed applies reported, want %d", failed.Load(), fails)
	}
	// Timers never fire early: each retry waited at least its delay.
	for i := 1; i <= fails && i < len(attempts); i++ {
		if gap, want := attempts[i].Sub(attempts[i-1]), retryDelay(iv, i); gap < want {
			t.Errorf("retry %d after %s, want at least %s", i, gap, want)
		}
	}
	for i := range 10 {
		if _, err := x.getStored(fmt.Sprint("d", i)); err != nil {
			t.Errorf("d%d not in the file after the applies succeeded: %v", i, err)
		}
	}
}
