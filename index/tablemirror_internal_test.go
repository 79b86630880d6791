package index

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestTableMirrorSnapshots checks which snapshots the table mirror
// serves: one at least as new as the mirror's, with no change of the
// tables announced since; not an older one, not one after a replace of a
// merged document changed the tables, until the next merge copies them
// again. And the mirror holds every group of the bucket.
func TestTableMirrorSnapshots(t *testing.T) {
	x, err := Open(filepath.Join(t.TempDir(), "m.simidx"), &Options{Log: directLogInternal, NoSync: true, RecentBands: 1 << 20, TableMirror: true,
		Settings: &Settings{NoMinHash: true, ExpectedDocs: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rng := rand.New(rand.NewPCG(17, 18))
	for i := range 50 {
		if err := x.AddFingerprint(fmt.Sprint("f", i), rng.Uint64()); err != nil {
			t.Fatal(err)
		}
	}
	served := func() bool {
		tx, err := x.db.Begin(false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		return x.mirrorFor(tx) != nil
	}
	// The adds went to the table level, not the bucket: the mirror of
	// Open still holds the bucket.
	if !served() {
		t.Fatal("adds into the level: the mirror no longer served")
	}
	// (An older snapshot by its ID: a read transaction held open across
	// a write that grows the file would block it.)
	var old uint64
	if err := x.db.View(func(tx *bolt.Tx) error { old = uint64(tx.ID()); return nil }); err != nil {
		t.Fatal(err)
	}
	// A merge of the level copies the tables again.
	x.recentMax = -1
	if err := x.AddFingerprint("f50", rng.Uint64()); err != nil {
		t.Fatal(err)
	}
	if !served() {
		t.Fatal("after a merge: the mirror not served")
	}
	if x.mirrorAt(old) != nil {
		t.Fatal("a snapshot from before the merge served by the mirror of after it")
	}
	// A replace of a merged document changes the tables in the file.
	x.recentMax = 1 << 20
	if err := x.AddFingerprint("f3", rng.Uint64()); err != nil {
		t.Fatal(err)
	}
	if served() {
		t.Fatal("after a replace of a merged document: the mirror still served")
	}
	if st, err := x.Stats(); err != nil || st.TableMirrorInUse || st.TableMirrorBytes == 0 {
		t.Fatalf("after a replace of a merged document: stats %+v, %v", st, err)
	}
	if err := x.rebuildTableMirror(); err != nil {
		t.Fatal(err)
	}
	if !served() {
		t.Fatal("rebuilt: the mirror not served")
	}
	if st, err := x.Stats(); err != nil || !st.TableMirrorInUse || st.TableMirrorBytes == 0 {
		t.Fatalf("rebuilt: stats %+v, %v", st, err)
	}
	// Every group of the bucket, and nothing else.
	tx, err := x.db.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	m := x.mirrorFor(tx)
	groups := 0
	kb := uint(64 - x.settings.Design.KeyBits)
	c := tx.Bucket(bucketTables).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		groups++
		ti := int(k[0])<<8 | int(k[1])
		if g := m.group(ti, uint32(x.keyValue(k)>>kb)); string(g) != string(v) {
			t.Fatalf("group %x: mirror %x, bucket %x", k, g, v)
		}
	}
	n := 0
	for ti := range m.keys {
		n += len(m.keys[ti])
	}
	if n != groups || groups == 0 {
		t.Fatalf("mirror of %d groups, bucket of %d", n, groups)
	}
}

// TestTableMirrorNoBucket checks that Open with the table mirror of a file
// whose tables bucket is gone fails with ErrCorrupt, and releases the
// file.
func TestTableMirrorNoBucket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nb.simidx")
	x, err := Open(path, &Options{Log: directLogInternal, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.AddFingerprint("a", 1); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	updateFile(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketTables) })
	if _, err := Open(path, &Options{Log: directLogInternal, TableMirror: true}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open with the mirror: %v, want ErrCorrupt", err)
	}
	x, err = Open(path, &Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the file is still held: %v", err)
	}
	x.Close()
}

// TestCheckTableMirror checks that Check compares the table mirror, when
// queries use it, with the tables bucket.
func TestCheckTableMirror(t *testing.T) {
	x, err := Open(filepath.Join(t.TempDir(), "cm.simidx"), &Options{Log: directLogInternal, NoSync: true, RecentBands: -1, TableMirror: true,
		Settings: &Settings{NoMinHash: true, ExpectedDocs: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for i := range 20 {
		if err := x.AddFingerprint(fmt.Sprint("f", i), uint64(i)*0x9e3779b97f4a7c15); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	m := x.mirror.Load()
	if m == nil || len(m.data[0]) == 0 {
		t.Fatal("no mirror of the merged tables")
	}
	m.data[0][0] ^= 1
	if err := x.Check(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Check with a changed copy: %v, want ErrCorrupt", err)
	}
	m.data[0][0] ^= 1
}
