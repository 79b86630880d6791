package index_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// TestTruncatedUnderOpenIndex truncates the file of an open index, as a
// command writing its output onto the index did: bbolt then faults as it
// begins a transaction, holding its locks. Every later call, Close
// included, must return an error wrapping ErrCorrupt instead of waiting
// for those locks forever.
func TestTruncatedUnderOpenIndex(t *testing.T) {
	for _, ro := range []bool{true, false} {
		path := populated(t)
		x, err := index.Open(path, &index.Options{ReadOnly: ro})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			ctx := context.Background()
			_, err := x.QueryFingerprint(childFP(3), nil)
			if !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("read-only %v: query of a truncated index: %v, want ErrCorrupt", ro, err)
			}
			// The next calls fail at once.
			if _, err := x.QueryFingerprint(childFP(4), nil); !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("read-only %v: second query: %v, want ErrCorrupt", ro, err)
			}
			if err := x.Pairs(ctx, nil, func(index.Pair) error { return nil }); !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("read-only %v: pairs: %v, want ErrCorrupt", ro, err)
			}
			if !ro {
				if err := x.Add(index.Doc{ID: "new", Text: []byte("a text added to a truncated index")}); !errors.Is(err, index.ErrCorrupt) {
					t.Errorf("add: %v, want ErrCorrupt", err)
				}
			}
			if err := x.Close(); !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("read-only %v: close: %v, want ErrCorrupt", ro, err)
			}
		}()
		// A bound that only catches a hang.
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Fatalf("read-only %v: a call on the truncated index did not return", ro)
		}
	}
}

// TestTruncatedBeforeWrite truncates an index opened for writing before its
// first write: the write fails with ErrCorrupt and Close returns.
func TestTruncatedBeforeWrite(t *testing.T) {
	path := populated(t)
	x, err := index.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := x.Delete("nothing"); !errors.Is(err, index.ErrCorrupt) {
			t.Errorf("delete: %v, want ErrCorrupt", err)
		}
		if err := x.Close(); !errors.Is(err, index.ErrCorrupt) {
			t.Errorf("close: %v, want ErrCorrupt", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("a call on the truncated index did not return")
	}
}
