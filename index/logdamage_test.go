package index_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// leftLog returns the path of an index whose log holds the adds of groups
// (one Add call each) not yet applied to its file: the state a process
// killed after acknowledging them leaves.
func leftLog(t *testing.T, groups [][]index.Doc) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "live.simidx")
	x, err := index.Open(path, &index.Options{Log: &index.LogOptions{ApplyInterval: time.Hour, ApplyDocs: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		if err := x.Add(g...); err != nil {
			t.Fatal(err)
		}
	}
	// The file and the log as a crash leaves them: nothing applied.
	crashed := filepath.Join(dir, "crashed.simidx")
	copyTree(t, path, crashed)
	copyTree(t, index.LogDir(path), index.LogDir(crashed))
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return crashed
}

// copyTree copies the file or directory from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	fi, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		copyTree(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
	}
}

// TestDamagedLog damages the log a crash left (a byte of the first group
// flipped): Open refuses it with ErrLogDamaged, naming what can be read,
// and changes nothing, read-only or not; with LogOptions.Salvage it applies
// the groups around the damage and keeps the log aside.
func TestDamagedLog(t *testing.T) {
	var groups [][]index.Doc
	for g := range 3 {
		var docs []index.Doc
		for i := range 5 {
			docs = append(docs, index.Doc{ID: fmt.Sprintf("g%d-%d", g, i), Text: crashText(uint64(g*10 + i))})
		}
		groups = append(groups, docs)
	}
	path := leftLog(t, groups)
	// Flip a byte in the middle of the segment's first group.
	ents, _ := os.ReadDir(index.LogDir(path))
	damaged := false
	for _, e := range ents {
		seg := filepath.Join(index.LogDir(path), e.Name())
		b, _ := os.ReadFile(seg)
		if i := strings.Index(string(b), "g0-2"); i > 0 {
			b[i] ^= 0x20
			os.WriteFile(seg, b, 0o644)
			damaged = true
		}
	}
	if !damaged {
		t.Fatal("no segment holds the first group")
	}
	for _, ro := range []bool{true, false} {
		_, err := index.Open(path, &index.Options{ReadOnly: ro})
		if !errors.Is(err, index.ErrLogDamaged) || !strings.Contains(err.Error(), "10 acknowledged operations can be read") {
			t.Fatalf("read-only %v: Open of an index with a damaged log: %v; want ErrLogDamaged, 10 operations readable", ro, err)
		}
		t.Log(err)
	}
	x, err := index.Open(path, &index.Options{Log: &index.LogOptions{Salvage: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	s := x.Salvaged()
	if s == nil || s.Operations != 10 || x.Len() != 10 {
		t.Fatalf("salvaged %+v, %d documents; want the 10 of the intact groups", s, x.Len())
	}
	if _, err := os.Stat(s.Aside); err != nil {
		t.Fatalf("the damaged log is not kept aside: %v", err)
	}
	for g := 1; g < 3; g++ {
		if _, err := x.Get(fmt.Sprintf("g%d-0", g)); err != nil {
			t.Errorf("group %d not salvaged: %v", g, err)
		}
	}
	if _, err := x.Get("g0-0"); err == nil {
		t.Error("a document of the damaged group was applied")
	}
}
