package index_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	bolt "go.etcd.io/bbolt"
)

// TestRecordBitFlip flips one bit in the MinHash signature of a document's
// record in the file, where bbolt sees nothing: a query that reads the
// record, its ID and Check fail with ErrCorrupt instead of answering a
// similarity off by a step.
func TestRecordBitFlip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flip.simidx")
	x, err := index.Open(path, &index.Options{Log: directLog})
	if err != nil {
		t.Fatal(err)
	}
	text := []byte("a classified ad for a bright two-room flat near the station, newly renovated, nine hundred a month")
	near := []byte("a classified ad for a bright two room flat near the station, newly renovated: nine hundred a month!")
	// A bulk load: the records are below the watermarks, read by queries
	// only (not by Open, which reads those of the in-memory levels).
	if _, err := x.Load(context.Background(), func(yield func(index.Doc, error) bool) {
		_ = yield(index.Doc{ID: "victim-record", Text: text}, nil) && yield(index.Doc{ID: "other", Text: near}, nil)
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	damageRecord(t, path, "victim-record")
	x, err = index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.QueryID("other", &index.QueryOptions{MinSimilarity: 0.1}); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("a query that reads the damaged record: %v, want ErrCorrupt", err)
	}
	if _, err := x.Get("victim-record"); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("Get of the damaged record: %v, want ErrCorrupt", err)
	}
	if err := x.Check(); !errors.Is(err, index.ErrCorrupt) {
		t.Errorf("Check: %v, want ErrCorrupt", err)
	}
	if x.Err() != nil {
		t.Errorf("a damaged record fails its readers, not the index: %v", x.Err())
	}
}

// TestLevelRecordBitFlip flips a bit of a record in the in-memory levels
// (added online, not yet merged), which Open reads to rebuild them: Open
// fails with ErrCorrupt, naming the record.
func TestLevelRecordBitFlip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flip.simidx")
	x, err := index.Open(path, &index.Options{Log: directLog})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(index.Doc{ID: "victim-record", Text: []byte("a text long enough to hold a signature, of several words in a row")}); err != nil {
		t.Fatal(err)
	}
	x.Close()
	damageRecord(t, path, "victim-record")
	for _, ro := range []bool{true, false} {
		if _, err := index.Open(path, &index.Options{ReadOnly: ro}); !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), "checksum") {
			t.Errorf("read-only %v: Open: %v, want ErrCorrupt", ro, err)
		}
	}
}

// damageRecord flips a bit 100 bytes before the ID of every copy of the
// record of document id in the index file at path (see recordsAt): in its
// signature or short set, which bbolt does not check.
func damageRecord(t *testing.T, path, id string) {
	t.Helper()
	offs := recordsAt(t, path, id)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range offs {
		b[i-100] ^= 0x04
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordsAt returns the offsets in the index file at path of the ID at
// the end of every copy of the record of document id: its live record,
// read through bbolt, and the copies of the same bytes in pages bbolt has
// freed, which a test damages all alike.
func recordsAt(t *testing.T, path, id string) []int {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var rec []byte
	err = db.View(func(tx *bolt.Tx) error {
		// The record that ends with the ID and its checksum (the ids
		// bucket is keyed by ID hash from schema 11 on).
		return tx.Bucket([]byte("docs")).ForEach(func(k, gv []byte) error {
			for _, v := range index.StoredRecords(k, gv) {
				if len(v) >= len(id)+4 && string(v[len(v)-4-len(id):len(v)-4]) == id {
					if rec != nil {
						return fmt.Errorf("two records of %s", id)
					}
					rec = bytes.Clone(v)
				}
			}
			return nil
		})
	})
	db.Close()
	if err != nil || len(rec) < len(id)+4 {
		t.Fatalf("no record of %s in the file: %v", id, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var offs []int
	for off := 0; ; {
		i := bytes.Index(b[off:], rec)
		if i < 0 {
			break
		}
		offs = append(offs, off+i+len(rec)-4-len(id))
		off += i + 1
	}
	if len(offs) == 0 {
		t.Fatalf("the record of %s is not in the file", id)
	}
	return offs
}
