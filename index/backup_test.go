package index_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/simidx/simidx/index"
)

// backupText is the text of document i of the backup tests: near
// duplicates in groups of three.
func backupText(i int) []byte {
	return []byte(fmt.Sprintf("Notice %d of the harbour board. The pier of berth %d closes for repairs on day %d; ships wait at anchor.", i/3, i/3, i%3))
}

// checkCopy writes b to a file, opens it read-only and checks it: a valid
// index of want documents (want < 0: any), which it returns.
func checkCopy(t *testing.T, b []byte, want int) int {
	t.Helper()
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	y, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("opening the copy: %v", err)
	}
	defer y.Close()
	if err := y.Check(); err != nil {
		t.Fatalf("the copy fails the check: %v", err)
	}
	if want >= 0 && y.Len() != want {
		t.Fatalf("the copy has %d documents, want %d", y.Len(), want)
	}
	return y.Len()
}

// TestBackup copies an open index while a writer adds to it: the copy is
// the index as of the backup's start, valid and complete.
func TestBackup(t *testing.T) {
	x := newIndex(t, nil)
	var docs []index.Doc
	for i := range 300 {
		docs = append(docs, index.Doc{ID: fmt.Sprint("d", i), Text: backupText(i)})
	}
	if err := x.Add(docs...); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := x.Backup(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Errorf("Backup said %d bytes, wrote %d", n, buf.Len())
	}
	checkCopy(t, buf.Bytes(), 300)

	// With a writer committing meanwhile.
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 300; i < 400; i++ {
			if err := x.Add(index.Doc{ID: fmt.Sprint("d", i), Text: backupText(i)}); err != nil {
				t.Error(err)
				return
			}
		}
	})
	buf.Reset()
	if _, err := x.Backup(&buf); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if got := checkCopy(t, buf.Bytes(), -1); got < 300 || got > 400 {
		t.Errorf("the copy has %d documents", got)
	}
}

// TestCopyFile copies the file of an index held open for writing while a
// writer commits one document at a time: every copy CopyFile says is
// whole is a valid index, the others fail with ErrChanged; once the
// writer stops, the copy has every document.
func TestCopyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.db")
	x, err := index.Open(path, &index.Options{Log: directLog, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	stop := make(chan struct{})
	added := make(chan int, 1)
	go func() {
		i := 0
		defer func() { added <- i }()
		for ; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := x.Add(index.Doc{ID: fmt.Sprint("d", i), Text: backupText(i)}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	whole, changed := 0, 0
	var buf bytes.Buffer
	for whole+changed < 200 && (whole < 3 || changed < 3) {
		buf.Reset()
		_, err := index.CopyFile(path, &buf)
		switch {
		case err == nil:
			whole++
			checkCopy(t, buf.Bytes(), -1)
		case errors.Is(err, index.ErrChanged):
			changed++
		default:
			t.Fatal(err)
		}
	}
	close(stop)
	n := <-added
	t.Logf("while writing: %d whole copies, %d changed", whole, changed)
	buf.Reset()
	if _, err := index.CopyFile(path, &buf); err != nil {
		t.Fatal(err)
	}
	checkCopy(t, buf.Bytes(), n)

	// Not an index.
	junk := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("junk"), 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := index.CopyFile(junk, &buf); !errors.Is(err, index.ErrNotIndex) {
		t.Errorf("copy of a file that is not an index: %v", err)
	}
}
