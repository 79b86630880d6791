package index_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	bolt "go.etcd.io/bbolt"
)

func TestNotAnIndex(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(path string) error{
		"text": func(p string) error {
			return os.WriteFile(p, []byte(strings.Repeat("not an index\n", 1000)), 0o644)
		},
		"short": func(p string) error { return os.WriteFile(p, []byte("x"), 0o644) },
		"bolt-without-meta": func(p string) error {
			db, err := bolt.Open(p, 0o644, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			return db.Update(func(tx *bolt.Tx) error {
				_, err := tx.CreateBucket([]byte("other"))
				return err
			})
		},
		"directory": func(p string) error { return os.Mkdir(p, 0o755) },
	}
	for name, make := range cases {
		path := filepath.Join(dir, name)
		if err := make(path); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(path)
		for _, ro := range []bool{false, true} {
			x, err := index.Open(path, &index.Options{ReadOnly: ro})
			if !errors.Is(err, index.ErrNotIndex) {
				if x != nil {
					x.Close()
				}
				t.Fatalf("%s (read-only %v): %v, want ErrNotIndex", name, ro, err)
			}
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Fatalf("%s: file changed", name)
		}
	}
}

func TestNewerSchema(t *testing.T) {
	path := populated(t)
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("version"), binary.BigEndian.AppendUint32(nil, index.SchemaVersion+1))
	})
	db.Close()
	_, err = index.Open(path, nil)
	if !errors.Is(err, index.ErrVersion) {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestTruncated(t *testing.T) {
	path := populated(t)
	// The pages in use: a file may be longer (bbolt grows it ahead of
	// its data), and cutting only unused pages damages nothing.
	db, err := bolt.Open(path, 0o644, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var used int64
	db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil })
	db.Close()
	for _, size := range []int64{used / 2, 4096 * 3, 100} {
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		for _, ro := range []bool{true, false} {
			x, err := index.Open(path, &index.Options{ReadOnly: ro})
			if !errors.Is(err, index.ErrNotIndex) {
				if x != nil {
					x.Close()
				}
				t.Fatalf("truncated to %d: %v, want ErrNotIndex", size, err)
			}
		}
	}
}

func TestCorruptRecordIsReported(t *testing.T) {
	path := populated(t)
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		// Drop the first key of the docs bucket, one document's record
		// or a group of them, behind the index's back.
		b := tx.Bucket([]byte("docs"))
		k, _ := b.Cursor().First()
		return b.Delete(bytes.Clone(k))
	})
	db.Close()
	x, err := index.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Check(); !errors.Is(err, index.ErrCorrupt) {
		t.Fatalf("Check: %v, want ErrCorrupt", err)
	}
}

func TestBadDocuments(t *testing.T) {
	x := newIndex(t, nil)
	if err := x.Add(index.Doc{ID: "keep", Text: []byte("some text that stays")}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []index.Doc{
		{ID: "", Text: []byte("x")},
		{ID: strings.Repeat("a", index.MaxIDLen+1), Text: []byte("x")},
		{ID: "bad\xff", Text: []byte("x")},
	} {
		// A bad document fails the whole batch.
		if err := x.Add(index.Doc{ID: "new", Text: []byte("y")}, d); !errors.Is(err, index.ErrInvalidID) {
			t.Fatalf("ID %.20q: %v", d.ID, err)
		}
	}
	big := index.Doc{ID: "big", Text: make([]byte, index.MaxDocSize+1)}
	if err := x.Add(big); !errors.Is(err, index.ErrTooLarge) {
		t.Fatalf("big document: %v", err)
	}
	if _, err := x.Query(big.Text, nil); !errors.Is(err, index.ErrTooLarge) {
		t.Fatalf("big query: %v", err)
	}
	if err := x.Add(index.Doc{ID: strings.Repeat("a", index.MaxIDLen), Text: []byte("ok")}); err != nil {
		t.Fatalf("longest ID: %v", err)
	}
	if _, err := x.Get("new"); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("document of a failed batch stored: %v", err)
	}
	if x.Len() != 2 {
		t.Fatalf("Len = %d, want 2", x.Len())
	}
	if _, err := x.QueryFingerprint(1, &index.QueryOptions{MaxDistance: 4}); !errors.Is(err, index.ErrSettings) {
		t.Fatalf("distance above k: %v", err)
	}
	if _, err := x.QueryFingerprint(1, &index.QueryOptions{MinSimilarity: 0.5}); !errors.Is(err, index.ErrSettings) {
		t.Fatalf("similarity without MinHash: %v", err)
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestSettingsConflict checks that an Open whose settings differ from the
// stored ones says so with ErrSettingsConflict (which is ErrSettings), and
// invalid settings with ErrSettings alone: a command that found no file
// and lost the race to create it reports a conflict, not bad flags.
func TestSettingsConflict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.simidx")
	x, err := index.Open(path, &index.Options{Settings: &index.Settings{MaxDistance: 3}})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	_, err = index.Open(path, &index.Options{Settings: &index.Settings{MaxDistance: 5}})
	if !errors.Is(err, index.ErrSettingsConflict) || !errors.Is(err, index.ErrSettings) {
		t.Fatalf("Open with another k: %v, want ErrSettingsConflict", err)
	}
	_, err = index.Open(filepath.Join(t.TempDir(), "new.simidx"), &index.Options{Settings: &index.Settings{MaxDistance: 99}})
	if !errors.Is(err, index.ErrSettings) || errors.Is(err, index.ErrSettingsConflict) {
		t.Fatalf("Open with an invalid k: %v, want ErrSettings alone", err)
	}
}
