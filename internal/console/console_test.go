package console

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestProgress checks that the progress line is redrawn in place, padded
// over a longer one, and cleared before a warning.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	con := New(&b, "index")
	con.Progress("indexing: 10 documents")
	con.Progress("indexing: 9")
	con.Warnf("cannot read x")
	con.Clear()
	want := "\rindexing: 10 documents\rindexing: 9           \rindexing: 9\r           \rsimidx index: cannot read x\n"
	if b.String() != want {
		t.Errorf("console wrote %q, want %q", b.String(), want)
	}
	b.Reset()
	con.Progress("x")
	con.Messagef("done: %d", 3)
	if want := "\rx\r \rdone: 3\n"; b.String() != want {
		t.Errorf("console wrote %q, want %q", b.String(), want)
	}
}

func TestWarningsCapped(t *testing.T) {
	var b bytes.Buffer
	con := New(&b, "index")
	for i := range 100 {
		con.Warnf("problem %d", i)
	}
	if n := strings.Count(b.String(), "\n"); n != MaxWarnings+1 {
		t.Errorf("%d lines of warnings, want %d", n, MaxWarnings+1)
	}
	if !strings.HasSuffix(b.String(), "simidx index: more problems; only counting them from now on\n") {
		t.Errorf("the last line does not say the rest are counted: %q", b.String())
	}
	b.Reset()
	con.ShowAll()
	con.Warnf("problem %d", 100)
	if b.String() != "simidx index: problem 100\n" {
		t.Errorf("with ShowAll: %q", b.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// TestStartProgress checks that the line is drawn while the progress runs
// and removed when it stops.
func TestStartProgress(t *testing.T) {
	var b syncBuffer
	con := New(&b, "index")
	stop := con.StartProgress(func() string { return "indexing" })
	time.Sleep(250 * time.Millisecond)
	stop()
	got := b.b.String()
	if !strings.HasPrefix(got, "\rindexing") || !strings.HasSuffix(got, "\r        \r") {
		t.Errorf("wrote %q", got)
	}
}
