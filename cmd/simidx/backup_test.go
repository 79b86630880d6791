package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// waitCommitted waits until the server at u has committed n documents
// to its index, its journal applied. The bound only catches a hang.
func waitCommitted(t *testing.T, u string, n int) {
	t.Helper()
	want := "\nsimidx_journal_pending_operations 0\n"
	docs := fmt.Sprintf("\nsimidx_documents %d\n", n)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		m := mustDo(t, "GET", u+"/metrics", "", 200).body
		if strings.Contains(m, want) && strings.Contains(m, docs) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d documents not committed within 2 minutes:\n%s", n, m)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBackupLive backs up the index of a running simidx serve, a process
// that holds it open for writing, first idle, then while documents are
// added: each copy opens and passes stats --check. Stopped, the server's
// index is backed up in a read transaction.
func TestBackupLive(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "live.db")
	bs := startBinary(t, db)
	var docs [][2]string
	for _, name := range []string{"MIT.txt", "X11.txt", "Apache-2.0.txt", "ECL-2.0.txt", "ISC.txt"} {
		docs = append(docs, [2]string{name, licenseText(t, name)})
	}
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON(docs...), 200)
	waitCommitted(t, bs.url, len(docs))

	// The index is in use: query refuses it and points to backup.
	r := runBinary(t, "", "query", "--db", db, "--id", "MIT.txt")
	if r.code != 1 || !strings.Contains(r.stderr, "is in use by another simidx process; wait for it to finish, or make a consistent copy with simidx backup --db "+db+" COPY") {
		t.Errorf("query of an index in use: %v", r)
	}

	copy1 := filepath.Join(dir, "copy1.db")
	r = runBinary(t, "", "backup", "--db", db, copy1)
	if r.code != 0 || !strings.HasPrefix(r.stderr, "backed up 5 documents, ") || !strings.Contains(r.stderr, "(in use by another process: the copy is its last commit)") {
		t.Fatalf("backup of an index in use: %v", r)
	}
	r = runBinary(t, "", "stats", "--check", "--db", copy1, "-f", "jsonl")
	if r.code != 0 || !strings.Contains(r.stdout, `"docs":5,`) || !strings.Contains(r.stdout, `"check":true`) {
		t.Errorf("stats --check of the copy: %v", r)
	}
	q := runBinary(t, "", "query", "--db", copy1, "--id", "Apache-2.0.txt", "-f", "jsonl")
	if q.code != 0 || !strings.Contains(q.stdout, `"id":"ECL-2.0.txt"`) {
		t.Errorf("query of the copy: %v", q)
	}

	// While documents are added, one a request.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{fmt.Sprint("n", i), fmt.Sprintf("news item %d: the ferry to island %d leaves at dawn", i, i%17)}), 200)
		}
	})
	copy2 := filepath.Join(dir, "copy2.db")
	r = runBinary(t, "", "backup", "--db", db, copy2)
	close(stop)
	wg.Wait()
	switch {
	case r.code == 0:
		c := runBinary(t, "", "stats", "--check", "--db", copy2)
		if c.code != 0 {
			t.Errorf("stats --check of the copy made during adds: %v", c)
		}
	case strings.Contains(r.stderr, "and a commit came during each of 20 copies"):
		// Possible on a machine so slow that no copy fits between two
		// commits; nothing was written.
		t.Logf("backup during adds: %v", r)
		if _, err := os.Stat(copy2); err == nil {
			t.Errorf("a failed backup left %s", copy2)
		}
	default:
		t.Errorf("backup during adds: %v", r)
	}

	// Stopped: a read transaction's copy.
	bs.cmd.Process.Signal(syscall.SIGTERM)
	if code := bs.wait(t); code != 0 {
		t.Fatalf("serve exit %d:\n%s", code, bs.stderr)
	}
	r = runBinary(t, "", "backup", "--db", db, copy1) // replaces the first copy
	if r.code != 0 || !strings.HasPrefix(r.stderr, "backed up ") || strings.Contains(r.stderr, "in use") {
		t.Fatalf("backup of a closed index: %v", r)
	}
	r = runBinary(t, "", "stats", "--check", "--db", copy1)
	if r.code != 0 {
		t.Errorf("stats --check of the copy: %v", r)
	}
	// No temporary file is left.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left %s", e.Name())
		}
	}
}

// TestBackupUsage checks what backup refuses.
func TestBackupUsage(t *testing.T) {
	db := buildIndex(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(db, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(index.LogDir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"backup", filepath.Join(dir, "x.db")}, 2, "--db PATH is required"},
		{[]string{"backup", "--db", db}, 2, "give one OUT"},
		{[]string{"backup", "--db", db, "a", "b"}, 2, "give one OUT"},
		{[]string{"backup", "--db", db, "-"}, 2, "backup writes a file"},
		{[]string{"backup", "--db", db, db}, 2, "is the index --db " + db + " itself"},
		{[]string{"backup", "--db", db, link}, 2, "is the index --db " + db + " itself"},
		{[]string{"backup", "--db", db, filepath.Join(index.LogDir(db), "x")}, 2, "is in the journal"},
		{[]string{"backup", "--db", db, dir}, 2, "is a directory"},
		{[]string{"backup", "--db", filepath.Join(dir, "none.db"), filepath.Join(dir, "x.db")}, 1, "no index at"},
	} {
		if r := simidx(t, "", tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("simidx %q: want exit %d and %q, got %v", tc.args, tc.code, tc.msg, r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		t.Error("a refused backup wrote its OUT")
	}
}
