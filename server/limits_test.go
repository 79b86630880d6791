package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// TestBodyBudget checks the budget of body bytes: first come first
// served, a release grants the waiters that fit, a cancelled wait takes
// nothing.
func TestBodyBudget(t *testing.T) {
	b := newBodyBudget(100)
	ctx := context.Background()
	if err := b.acquire(ctx, 60); err != nil {
		t.Fatal(err)
	}
	got := make(chan int64, 2)
	go func() { b.acquire(ctx, 50); got <- 50 }()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 1 })
	// 30 would fit, but the 50 came first.
	go func() { b.acquire(ctx, 30); got <- 30 }()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 2 })
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- b.acquire(cctx, 10) }()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 3 })
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled wait acquired its bytes")
	}
	// 50 free: the 50 that came first gets them, the 30 waits.
	b.release(10)
	if n := <-got; n != 50 {
		t.Fatalf("granted %d first, want 50", n)
	}
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 1 && b.free == 0 })
	b.release(50)
	if n := <-got; n != 30 {
		t.Fatalf("granted %d, want 30", n)
	}
	b.release(80)
	if b.free != 100 || len(b.waiters) != 0 {
		t.Fatalf("after every release: %d free, %d waiting", b.free, len(b.waiters))
	}
}

// waitFor waits until cond holds; the bound only catches a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// serveLimited serves a Server of opts on a loopback port and returns its
// address; the server stops when the test ends.
func serveLimited(t *testing.T, opts *Options) (*Server, string) {
	t.Helper()
	x := openIndex(t, filepath.Join(t.TempDir(), "lim.db"), nil, index.LogOptions{}, nil)
	s := must(New(x, opts))
	ctx, cancel := context.WithCancel(context.Background())
	addr, served := serveOn(t, ctx, s)
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	return s, addr
}

// TestBodyLimits checks that a body announced over MaxBody is refused
// before it is sent, and the limits Serve gives its http.Server.
func TestBodyLimits(t *testing.T) {
	s, addr := serveLimited(t, &Options{MaxBody: 1 << 20, MaxHeaderBytes: 4 << 10, WriteTimeout: time.Minute})
	// The body never comes: the answer must not wait for it.
	code, body := rawRequest(t, addr, "POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n", true)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "1000000000 bytes") {
		t.Fatalf("a body announced at 1 GB: %d %s", code, body)
	}
	hs := s.httpServer()
	if hs.MaxHeaderBytes != 4<<10 || hs.WriteTimeout != time.Minute || hs.ReadTimeout != DefaultReadTimeout {
		t.Fatalf("http.Server limits: headers %d, write timeout %s, read timeout %s", hs.MaxHeaderBytes, hs.WriteTimeout, hs.ReadTimeout)
	}
}

// TestMaxConnections opens more connections at once than MaxConnections
// allows: every request is answered, and no more connections than the
// limit are ever open.
func TestMaxConnections(t *testing.T) {
	s, addr := serveLimited(t, &Options{MaxConnections: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
			resp, err := c.Get("http://" + addr + "/healthz")
			if err != nil {
				errs <- fmt.Errorf("client %d: %v", i, err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if p := s.ln.Load().peak.Load(); p > 2 || p < 1 {
		t.Fatalf("%d connections open at once, want at most 2", p)
	}
}

// TestBackupEndpoint adds documents, some still in the log, and checks that
// GET /v1/backup answers a copy of the index that opens with every one of
// them.
func TestBackupEndpoint(t *testing.T) {
	_, addr := serveLimited(t, nil)
	u := "http://" + addr
	mustDo(t, "POST", u+"/v1/documents", docsJSON([2]string{"a", "the first document of the backup"}, [2]string{"b", "and the second one, a little longer"}), 200)
	resp, err := http.Get(u + "/v1/backup")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("GET /v1/backup: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	f, err := os.Create(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		t.Fatal(err)
	}
	f.Close()
	y, err := index.Open(copyPath, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	if err := y.Check(); err != nil || y.Len() != 2 {
		t.Fatalf("the copy: %d documents, Check %v", y.Len(), err)
	}
	mustDo(t, "POST", u+"/v1/backup", "", 405)
}

// TestApplyErrorLog checks that failing applies are logged once per change
// of state, however often the index retries them.
func TestApplyErrorLog(t *testing.T) {
	m := NewMetrics()
	var b strings.Builder
	m.SetErrorLog(&b)
	ev := m.LogEvents()
	full := errors.New("write: no space left on device")
	for range 50 {
		ev.Apply(index.ApplyInfo{Err: full})
	}
	ev.Apply(index.ApplyInfo{Err: errors.New("open: too many open files")})
	ev.Apply(index.ApplyInfo{Err: errors.New("open: too many open files")})
	ev.Apply(index.ApplyInfo{Ops: 10})
	ev.Apply(index.ApplyInfo{Ops: 10})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "no space left") || !strings.Contains(lines[1], "after 50 failures, now with: open: too many") ||
		!strings.Contains(lines[2], "works again, after 52 failures") {
		t.Fatalf("logged:\n%s", b.String())
	}
	if m.applyErrors.Load() != 52 || m.applies.Load() != 2 {
		t.Fatalf("counted %d failed and %d applies", m.applyErrors.Load(), m.applies.Load())
	}
}
