package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// bulkLoader returns a loader of a bulk load into x, empty, whose
// documents the test hands over with run and whose phase-1 transactions
// it starts with phase1.
func bulkLoader(t *testing.T, x *Index, o *LoadOptions) *loader {
	t.Helper()
	if o == nil {
		o = &LoadOptions{}
	}
	o.Workers, o.BatchSize, o.Memory, o.TempDir = 1, 20000, DefaultLoadMemory, t.TempDir()
	l := x.newLoader(o)
	if !l.bulk {
		t.Fatal("a bulk loader of an index that is not empty")
	}
	return l
}

// writeRecords runs the first phase of bulk load l over docs: reads them,
// and writes and waits for the transaction of their records.
func writeRecords(t *testing.T, l *loader, docs []Doc) {
	t.Helper()
	if err := l.run(context.Background(), docSeq(docs)); err != nil {
		t.Fatal(err)
	}
	if err := l.phase1(); err != nil {
		t.Fatal(err)
	}
	if err := l.waitPhase1(); err != nil {
		t.Fatal(err)
	}
}

func fingerprintDocs(ids ...string) []Doc {
	docs := make([]Doc, len(ids))
	for i, id := range ids {
		docs[i] = Doc{ID: id, Fingerprint: uint64(i) * 0x9e3779b97f4a7c15, Precomputed: true}
	}
	return docs
}

// nearlyFull returns an empty index whose next document number leaves
// room for 98 documents, and 110 documents with fingerprints to load.
func nearlyFull(t *testing.T) (*Index, []Doc) {
	t.Helper()
	x, _, _ := openNew(t, Settings{NoMinHash: true})
	if err := x.update(func(tx *bolt.Tx) error {
		m := x.readMeta(tx)
		m.next = 1<<32 - 100 // room for 98 documents
		return x.writeMeta(tx, m)
	}); err != nil {
		x.Close()
		t.Fatal(err)
	}
	var ids []string
	for i := range 110 {
		ids = append(ids, "d"+strconv.Itoa(i))
	}
	return x, fingerprintDocs(ids...)
}

// TestLoadPhase1Failure makes the second phase-1 transaction of a bulk
// load fail (the index full): the load ends with the error and commits
// nothing, not the documents of the first transaction.
func TestLoadPhase1Failure(t *testing.T) {
	x, docs := nearlyFull(t)
	defer x.Close()
	l := bulkLoader(t, x, nil)
	defer l.closeSorters()
	if err := l.run(context.Background(), docSeq(docs[:50])); err != nil {
		t.Fatal(err)
	}
	if err := l.phase1(); err != nil {
		t.Fatal(err)
	}
	if err := l.run(context.Background(), docSeq(docs[50:])); err != nil {
		t.Fatal(err)
	}
	if err := l.phase1(); err != nil {
		t.Fatal(err)
	}
	if err := l.waitPhase1(); !errors.Is(err, ErrFull) {
		t.Fatalf("the second transaction: %v, want ErrFull", err)
	}
	if err := l.flush(); !errors.Is(err, ErrFull) {
		t.Errorf("flush after the failed transaction: %v, want ErrFull", err)
	}
	if n := x.Len(); n != 0 {
		t.Errorf("%d documents committed", n)
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestLoadPendingFailure makes the documents of a bulk load not yet
// handed to phase 1 fail as phase 2 writes them (the index full): the load
// ends with the error and commits nothing, not the documents of the
// phase-1 transaction, and so does a second phase 2 (a flush after one
// that failed at maxBulk), which must not number them again.
func TestLoadPendingFailure(t *testing.T) {
	x, docs := nearlyFull(t)
	defer x.Close()
	l := bulkLoader(t, x, nil)
	defer l.closeSorters()
	writeRecords(t, l, docs[:50])
	if err := l.run(context.Background(), docSeq(docs[50:])); err != nil {
		t.Fatal(err)
	}
	if len(l.pending) != 60 {
		t.Fatalf("%d documents pending, want 60", len(l.pending))
	}
	if err := l.phase2(); !errors.Is(err, ErrFull) {
		t.Fatalf("phase 2: %v, want ErrFull", err)
	}
	if err := l.phase2(); !errors.Is(err, ErrFull) {
		t.Errorf("phase 2 again: %v, want ErrFull", err)
	}
	if n := x.Len(); n != 0 {
		t.Errorf("%d documents committed", n)
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestPhase2Corrupt damages a record a bulk load wrote before it reads it
// back (to compare the IDs of a replaced document): the load fails with
// ErrCorrupt, leaves the index empty and usable.
func TestPhase2Corrupt(t *testing.T) {
	for _, how := range []string{"group", "checksum"} {
		t.Run(how, func(t *testing.T) {
			x, _, _ := openNew(t, Settings{NoMinHash: true})
			defer x.Close()
			var ids []string
			for i := range 300 {
				ids = append(ids, "d"+strconv.Itoa(i%200)) // 250 replaces 50
			}
			docs := fingerprintDocs(ids...)
			l := bulkLoader(t, x, nil)
			writeRecords(t, l, docs)
			if err := x.db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketDocs)
				k, v := b.Cursor().Seek(docKey(l.base + 250))
				if !isDocGroupKey(k) {
					return fmt.Errorf("document 250 in no group: %x", k)
				}
				v = bytes.Clone(v)
				if how == "group" {
					v = v[:len(v)-1]
				} else {
					v[len(v)-1] ^= 0xff // the last record's checksum
				}
				return b.Put(k, v)
			}); err != nil {
				t.Fatal(err)
			}
			if err := l.phase2(); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("phase2: %v, want ErrCorrupt", err)
			}
			if err := l.closeSorters(); err != nil {
				t.Fatal(err)
			}
			if n := x.Len(); n != 0 {
				t.Fatalf("%d documents after the failed load", n)
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			if _, err := x.Load(context.Background(), docSeq(docs), nil); err != nil || x.Len() != 200 {
				t.Fatalf("a load after it: %v, %d documents", err, x.Len())
			}
		})
	}
}

// TestForgedIDCollision gives the IDs of a bulk load one 64-bit hash, as
// if they all collided: the documents are told apart by the IDs in their
// records, and the last document of each ID is kept.
func TestForgedIDCollision(t *testing.T) {
	x, _, _ := openNew(t, Settings{NoMinHash: true})
	defer x.Close()
	rng := rand.New(rand.NewPCG(8, 8))
	var ids []string
	last := map[string]int{}
	for i := range 400 {
		id := "c" + strconv.Itoa(rng.IntN(5))
		if i >= 200 {
			id = "u" + strconv.Itoa(i)
		}
		last[id] = i
		ids = append(ids, id)
	}
	docs := fingerprintDocs(ids...)
	replaced := 0
	l := bulkLoader(t, x, &LoadOptions{Replaced: func(string) { replaced++ }})
	defer l.closeSorters()
	writeRecords(t, l, docs)
	for i := range 200 {
		l.idh.set(i, 12345)
	}
	if err := l.phase2(); err != nil {
		t.Fatal(err)
	}
	if x.Len() != len(last) || replaced != len(docs)-len(last) {
		t.Fatalf("%d documents, %d replaced; want %d and %d", x.Len(), replaced, len(last), len(docs)-len(last))
	}
	// The kept documents, by their records (the ids bucket holds the
	// forged hashes, so Get would not find them).
	kept := map[string]uint64{}
	if err := x.Members(context.Background(), func(m Member) error {
		kept[m.ID] = m.Fingerprint
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id, i := range last {
		if fp, ok := kept[id]; !ok || fp != docs[i].Fingerprint {
			t.Errorf("%q: fingerprint %x kept, want that of document %d", id, fp, i)
		}
	}
}

// TestLoadManyBatches loads texts (near copies among them, and IDs given
// twice) in phase-1 transactions of 97 documents, on two workers, so that
// batches and chunks of work reuse the memory of earlier ones: every
// bucket but the records' (grouped by transaction) holds what a load in
// one transaction writes, and the documents and the load's figures are
// the same.
func TestLoadManyBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var docs []Doc
	for i := range 8000 {
		id := "t" + strconv.Itoa(i)
		if i > 0 && rng.IntN(10) == 0 {
			id = docs[rng.IntN(len(docs))].ID // replaces an earlier document
		}
		var text string
		if i > 0 && rng.IntN(3) == 0 {
			w := strings.Fields(string(docs[rng.IntN(len(docs))].Text))
			w[rng.IntN(len(w))] = "edit"
			text = strings.Join(w, " ")
		} else {
			w := make([]string, 8+rng.IntN(40))
			for j := range w {
				w[j] = "w" + strconv.Itoa(rng.IntN(500))
			}
			text = strings.Join(w, " ")
		}
		docs = append(docs, Doc{ID: id, Text: []byte(text)})
	}
	x1, _, _ := openNew(t, Settings{})
	defer x1.Close()
	l := bulkLoader(t, x1, nil)
	l.opts.Workers, l.batchDocs = 2, 97
	if err := l.run(context.Background(), docSeq(docs)); err != nil {
		t.Fatal(err)
	}
	if err := l.flush(); err != nil {
		t.Fatal(err)
	}
	if err := l.closeSorters(); err != nil {
		t.Fatal(err)
	}
	x2, _, _ := openNew(t, Settings{})
	defer x2.Close()
	st, err := x2.Load(context.Background(), docSeq(docs), nil)
	if err != nil {
		t.Fatal(err)
	}
	var bytes int64
	ids := map[string]bool{}
	for _, d := range docs {
		bytes += int64(len(d.Text))
		ids[d.ID] = true
	}
	for _, got := range []LoadStats{l.st, st} {
		if got.Docs != int64(len(docs)) || got.Bytes != bytes || got.Replaced != int64(len(docs)-len(ids)) || got != st {
			t.Errorf("load stats %+v, want %d documents, %d bytes, %d replaced, as %+v", got, len(docs), bytes, len(docs)-len(ids), st)
		}
	}
	buckets := func(x *Index) map[string][]string {
		kv := map[string][]string{}
		if err := x.db.View(func(tx *bolt.Tx) error {
			return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
				if string(name) == string(bucketDocs) {
					return nil
				}
				return b.ForEach(func(k, v []byte) error {
					kv[string(name)] = append(kv[string(name)], fmt.Sprintf("%x=%x", k, v))
					return nil
				})
			})
		}); err != nil {
			t.Fatal(err)
		}
		return kv
	}
	b1, b2 := buckets(x1), buckets(x2)
	if len(b1) != len(b2) {
		t.Fatalf("buckets with entries: %v, want %v", slices.Sorted(maps.Keys(b1)), slices.Sorted(maps.Keys(b2)))
	}
	for name, kv := range b2 {
		if !slices.Equal(b1[name], kv) {
			t.Errorf("bucket %s: %d entries unlike the load in one transaction (%d)", name, len(b1[name]), len(kv))
		}
	}
	members := func(x *Index) []Member {
		var ms []Member
		if err := x.Members(context.Background(), func(m Member) error {
			ms = append(ms, m)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return ms
	}
	if m1, m2 := members(x1), members(x2); !slices.Equal(m1, m2) || len(m1) == 0 {
		t.Fatalf("%d documents unlike the %d of the load in one transaction", len(m1), len(m2))
	}
	if err := x1.Check(); err != nil {
		t.Fatal(err)
	}
}
