package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// kill sends SIGKILL to the server and waits for it to die.
func (b *binaryServer) kill(t *testing.T) {
	t.Helper()
	b.cmd.Process.Signal(syscall.SIGKILL)
	if code := b.wait(t); code != -int(syscall.SIGKILL) {
		t.Fatalf("exit %d, want killed", code)
	}
}

// TestServeKillSustained kills the server with SIGKILL while clients add
// documents as fast as it answers, and checks after a restart that every
// document whose add was answered 200 is there, with its text.
func TestServeKillSustained(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	// A long apply interval: most acknowledged adds are only in the journal.
	bs := startBinary(t, db, "--apply-interval", "300ms")
	var acked sync.Map // id -> text
	var n atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 6 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("c%d-%d", c, i)
				text := fmt.Sprintf("client %d wrote document %d, number %d of its kind", c, i, c*100003+i*7)
				r, err := tryDo("POST", bs.url+"/v1/documents", docsJSON([2]string{id, text}))
				if err != nil {
					return // the server is gone
				}
				if r.status == 200 {
					acked.Store(id, text)
					n.Add(1)
				}
			}
		})
	}
	// Kill once enough adds are acknowledged; the bound only catches a
	// hang.
	for deadline := time.Now().Add(2 * time.Minute); n.Load() < 300; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d adds acknowledged in two minutes", n.Load())
		}
	}
	bs.kill(t)
	close(stop)
	wg.Wait()
	// A read-only open reads the journal without applying it.
	ro, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d adds acknowledged, %d operations in the journal after the kill", n.Load(), ro.Replayed())
	ro.Close()
	bs = startBinary(t, db)
	missing := 0
	acked.Range(func(k, v any) bool {
		r := do(t, "GET", bs.url+"/v1/documents/"+k.(string), "", "")
		if r.status != 200 {
			missing++
			if missing < 5 {
				t.Errorf("acknowledged %s lost: %d %s", k, r.status, r.body)
			}
		}
		return true
	})
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged adds lost", missing, n.Load())
	}
	h := mustDo(t, "GET", bs.url+"/healthz", "", 200).json(t)
	if int64(h["documents"].(float64)) < n.Load() {
		t.Errorf("healthz %v, want at least %d documents", h, n.Load())
	}
	bs.cmd.Process.Signal(syscall.SIGTERM)
	if code := bs.wait(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, bs.stderr)
	}
	if _, err := os.Stat(index.LogDir(db)); !os.IsNotExist(err) {
		t.Errorf("journal left after a clean stop: %v", err)
	}
}

// TestServeTornJournal damages the tail of the journal left by SIGKILL, as
// a crash in the middle of an append would, and checks that the server
// starts with every acknowledged document.
func TestServeTornJournal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	bs := startBinary(t, db, "--apply-interval", "1h")
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{"a", "the first acknowledged document"}), 200)
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{"b", "the second acknowledged document"}), 200)
	bs.kill(t)
	seg := lastSegmentFile(t, index.LogDir(db))
	f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Half a record: a length and a checksum, then less than promised.
	f.Write([]byte{200, 0, 0, 0, 1, 2, 3, 4, 1, 1, 'c'})
	f.Close()
	bs = startBinary(t, db)
	for _, id := range []string{"a", "b"} {
		mustDo(t, "GET", bs.url+"/v1/documents/"+id, "", 200)
	}
	if !strings.Contains(bs.stderr.String(), "applied 2 journaled operations") {
		t.Errorf("stderr: %s", bs.stderr)
	}
}

// lastSegmentFile returns the newest segment holding records in dir.
func lastSegmentFile(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, e := range ents {
		if fi, _ := e.Info(); fi != nil && fi.Size() > 16 {
			last = filepath.Join(dir, e.Name())
		}
	}
	if last == "" {
		t.Fatalf("no segment with records in %s", dir)
	}
	return last
}

// TestJournalReplayIdempotent simulates a crash after the index commit and
// before the journal's removal: the journal a killed server left is
// applied twice, and the index ends the same, without duplicates or
// losses.
func TestJournalReplayIdempotent(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	x, err := index.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(index.Doc{ID: "old", Text: []byte("a document that was there before")},
		index.Doc{ID: "gone", Text: []byte("a document deleted by the journal")}); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	// The journal: operations a server acknowledged, and was killed
	// before it committed them to the index.
	bs := startBinary(t, db, "--apply-interval", "1h")
	steps := []struct{ method, id, text string }{
		{"POST", "new", "first version of a new document"},
		{"DELETE", "gone", ""},
		{"POST", "old", "the replacement of the old document"},
		{"POST", "new", "second and final version of the new document"},
		{"POST", "tmp", "added and deleted"},
		{"DELETE", "tmp", ""},
	}
	for _, s := range steps {
		if s.method == "DELETE" {
			mustDo(t, "DELETE", bs.url+"/v1/documents/"+s.id, "", 200)
		} else {
			mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{s.id, s.text}), 200)
		}
	}
	mustDo(t, "DELETE", bs.url+"/v1/documents/never-existed", "", 404)
	bs.kill(t)
	saved := filepath.Join(dir, "saved.journal")
	copyDir(t, index.LogDir(db), saved)
	fpr, _ := index.NewFingerprinter(nil)
	want := map[string]uint64{
		"old": fpr.Sum64([]byte("the replacement of the old document")),
		"new": fpr.Sum64([]byte("second and final version of the new document")),
	}
	check := func(when string, x *index.Index) {
		t.Helper()
		if n := x.Replayed(); n != len(steps) {
			t.Errorf("%s: %d operations replayed, want %d", when, n, len(steps))
		}
		if x.Len() != len(want) {
			t.Errorf("%s: %d documents, want %d", when, x.Len(), len(want))
		}
		for id, fp := range want {
			if d, err := x.Get(id); err != nil || d.Fingerprint != fp {
				t.Errorf("%s: %s = %+v, %v; want fingerprint %x", when, id, d, err, fp)
			}
		}
	}
	// The first application: the commit lands, and the journal is
	// removed.
	x, err = openExisting(db, false, false)
	if err != nil {
		t.Fatal(err)
	}
	check("after the first replay", x)
	x.Close()
	if _, err := os.Stat(index.LogDir(db)); !os.IsNotExist(err) {
		t.Errorf("journal left after it was applied: %v", err)
	}
	// The crash before the removal: the journal is there again.
	copyDir(t, saved, index.LogDir(db))
	// The second: as the next open does.
	r := simidx(t, "", "stats", "--db", db)
	if r.code == 0 || !strings.Contains(r.stderr, "not yet in the index") {
		t.Errorf("read-only open with a journal: %v", r)
	}
	x, err = openExisting(db, false, false)
	if err != nil {
		t.Fatal(err)
	}
	check("after the second replay", x)
	x.Close()
	if _, err := os.Stat(index.LogDir(db)); !os.IsNotExist(err) {
		t.Errorf("journal left after it was applied: %v", err)
	}
	mustRun(t, "", "stats", "--db", db)
}

// copyDir copies the files of the directory src to a new directory dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeDeletesOrdered checks that deletes and adds of one ID apply in
// the order they were answered: before the index commits them to its file
// (pending in its log), after a SIGKILL and a replay, and after a clean
// stop.
func TestServeDeletesOrdered(t *testing.T) {
	db := filepath.Join(t.TempDir(), "d.db")
	bs := startBinary(t, db, "--apply-interval", "1h")
	u := bs.url
	steps := []struct{ method, id, text string }{
		{"POST", "a", "alpha first version of the text"},
		{"POST", "b", "bravo, a document that gets deleted"},
		{"DELETE", "a", ""},
		{"POST", "a", "alpha comes back with other words entirely"},
		{"DELETE", "b", ""},
		{"POST", "c", "charlie is added and stays"},
	}
	for _, s := range steps {
		if s.method == "DELETE" {
			mustDo(t, "DELETE", u+"/v1/documents/"+s.id, "", 200)
		} else {
			mustDo(t, "POST", u+"/v1/documents", docsJSON([2]string{s.id, s.text}), 200)
		}
	}
	mustDo(t, "DELETE", u+"/v1/documents/b", "", 404) // already deleted, pending
	fpr, _ := index.NewFingerprinter(nil)
	check := func(when, u string) {
		t.Helper()
		r := mustDo(t, "GET", u+"/v1/documents/a", "", 200)
		if want := hex16(fpr.Sum64([]byte("alpha comes back with other words entirely"))); !strings.Contains(r.body, want) {
			t.Errorf("%s: a = %s, want fingerprint %s", when, r.body, want)
		}
		mustDo(t, "GET", u+"/v1/documents/b", "", 404)
		mustDo(t, "GET", u+"/v1/documents/b/similar", "", 404)
		mustDo(t, "GET", u+"/v1/documents/c", "", 200)
		r = mustDo(t, "POST", u+"/v1/query?k=0", `{"text":"alpha first version of the text"}`, 200)
		if strings.TrimSpace(r.body) != `{"matches":[]}` {
			t.Errorf("%s: the replaced text still matches: %s", when, r.body)
		}
		r = mustDo(t, "POST", u+"/v1/query?k=0", `{"text":"Alpha comes back, with other words entirely."}`, 200)
		if strings.TrimSpace(r.body) != `{"matches":[{"id":"a","distance":0,"similarity":1,"exact":true}]}` {
			t.Errorf("%s: query for a: %s", when, r.body)
		}
		if h := strings.TrimSpace(mustDo(t, "GET", u+"/healthz", "", 200).body); h != `{"documents":2,"status":"ok"}` {
			t.Errorf("%s: healthz %s", when, h)
		}
	}
	check("pending", u)
	bs.kill(t)
	bs = startBinary(t, db)
	check("after SIGKILL and replay", bs.url)
	bs.cmd.Process.Signal(syscall.SIGTERM)
	if code := bs.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, bs.stderr)
	}
	r := mustRun(t, "", "stats", "--db", db)
	if !strings.Contains(r.stdout, "2") {
		t.Errorf("stats after the stop: %s", r.stdout)
	}
}

// tryDo sends a request and reads the answer, returning transport errors
// (a killed server) rather than failing the test.
func tryDo(method, url, body string) (response, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return response{}, err
	}
	resp, err := testClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}, nil
}

// TestServeBackpressure checks that adds waiting for room in the journal
// wake the background commits at once (not at the next --apply-interval),
// and that a server stops while adds wait.
func TestServeBackpressure(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bp.db")
	ts := startServer(t, db, "--max-pending", "1", "--apply-docs", "100000", "--apply-interval", "1h")
	start := time.Now()
	for i := range 6 {
		mustDo(t, "POST", ts.url+"/v1/documents", docsJSON([2]string{fmt.Sprint("d", i), fmt.Sprint("document number ", i, " of the backpressure test")}), 200)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("6 adds at --max-pending 1 took %s", el)
	}
	if code := ts.stop(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, ts.stderr)
	}
	x, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Len() != 6 {
		t.Errorf("%d documents after the stop, want 6", x.Len())
	}
	if err := x.Sync(); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("Sync of a read-only index: %v", err)
	}
}

// TestServeDamagedJournal damages the journal a killed server left (a byte
// of its first acknowledged add flipped, with two good adds after it): the
// server and the other commands refuse the index, saying how many
// operations can be read, and change nothing; --salvage-journal applies
// those and keeps the journal aside.
func TestServeDamagedJournal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "d.db")
	bs := startBinary(t, db, "--apply-interval", "1h")
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{"a", "the first acknowledged document"}), 200)
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{"b", "the second acknowledged document"}), 200)
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{"c", "the third acknowledged document"}), 200)
	bs.kill(t)
	seg := lastSegmentFile(t, index.LogDir(db))
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("first acknowledged"))
	if i < 0 {
		t.Fatalf("no first add in %s", seg)
	}
	b[i] ^= 0x20
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"serve", "--db", db, "--addr", "127.0.0.1:0"},
		{"stats", "--db", db},
		{"delete", "--db", db, "b"},
	} {
		r := runBinary(t, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "damaged") || !strings.Contains(r.stderr, "2 acknowledged operations can be read") ||
			!strings.Contains(r.stderr, "--salvage-journal") {
			t.Fatalf("simidx %s on a damaged journal: %v", args[0], r)
		}
	}
	r := runBinary(t, "", "delete", "--db", db, "--salvage-journal", "nothing-by-this-id")
	if !strings.Contains(r.stderr, "salvaged 2 journaled operations") {
		t.Fatalf("delete --salvage-journal: %v", r)
	}
	if _, err := os.Stat(index.LogDir(db) + ".damaged"); err != nil {
		t.Fatalf("the damaged journal is not kept aside: %v", err)
	}
	bs = startBinary(t, db)
	for id, code := range map[string]int{"a": 404, "b": 200, "c": 200} {
		mustDo(t, "GET", bs.url+"/v1/documents/"+id, "", code)
	}
}
