package index_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/testcorpus"
	bolt "go.etcd.io/bbolt"
)

var update = flag.Bool("update", false, "rewrite testdata/layout.txt and testdata/v1.simidx")

// goldenIndex builds, at path, an index of the multilingual sample with
// the given settings.
func goldenIndex(t *testing.T, path string, s *index.Settings) {
	t.Helper()
	docs, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.Open(path, &index.Options{Log: directLog, Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	var src iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
		for _, d := range docs {
			if !yield(index.Doc{ID: d.ID, Text: []byte(d.Text)}, nil) {
				return
			}
		}
	}
	if _, err := x.Load(context.Background(), src, nil); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
}

// dump describes every bucket of the bbolt file at path: its number of
// keys and a digest of its keys and values in order. It is the logical
// content of the file, whatever the page layout.
func dump(t *testing.T, path string) []byte {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out bytes.Buffer
	err = db.View(func(tx *bolt.Tx) error {
		var names []string
		tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, string(name))
			return nil
		})
		slices.Sort(names)
		for _, name := range names {
			h := sha256.New()
			n := 0
			tx.Bucket([]byte(name)).ForEach(func(k, v []byte) error {
				fmt.Fprintf(h, "%x=%x\n", k, v)
				n++
				return nil
			})
			fmt.Fprintf(&out, "%s %d %x\n", name, n, h.Sum(nil)[:12])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestGoldenLayout pins the on-disk content of an index: the keys and
// values of every bucket for the sample, with and without MinHash, with
// a set method and with the shingle sets stored, and after online adds with a merge of the in-memory levels
// under way. A change is a format change: it needs a new schema version
// and a way to open the old one.
func TestGoldenLayout(t *testing.T) {
	var out bytes.Buffer
	for _, c := range []struct {
		name string
		s    *index.Settings
	}{
		{"no-minhash", &index.Settings{NoMinHash: true}},
		{"default (minhash)", nil},
		{"nshash", &index.Settings{Text: index.TextSettings{Method: index.MethodNshash}}},
		{"k6 no-minhash", &index.Settings{MaxDistance: 6, ExpectedDocs: 1000, NoMinHash: true}},
		{"store shingles", &index.Settings{StoreShingles: true}},
		{"no short-text layer", &index.Settings{ShortUnits: index.NoShortLayer}},
	} {
		path := filepath.Join(t.TempDir(), c.name+".simidx")
		goldenIndex(t, path, c.s)
		fmt.Fprintf(&out, "== %s\n", c.name)
		out.Write(dump(t, path))
	}
	// Online adds into levels of 3 documents, ending with a merge of the
	// levels under way: the watermarks and the merge's keys are pinned too.
	path := filepath.Join(t.TempDir(), "online.simidx")
	x, err := index.Open(path, &index.Options{Log: directLog, RecentBands: 3})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := x.Add(index.Doc{ID: d.ID, Text: []byte(d.Text)}); err != nil {
			t.Fatal(err)
		}
	}
	if !index.MergeState(x) {
		t.Fatal("no merge under way at the end of the online adds")
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "== online adds, merge under way\n")
	out.Write(dump(t, path))
	golden := filepath.Join("testdata", "layout.txt")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("the on-disk content changed; that needs a new schema version.\ngot:\n%s\nwant:\n%s", out.Bytes(), want)
	}
}

// TestOpenVersion1 opens an index file written by schema version 1 (the
// sample, MinHash on) and checks that it still reads: this version and
// every later one must open it.
func TestOpenVersion1(t *testing.T) {
	x, err := index.Open(v1Copy(t), &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	st, err := x.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.SchemaVersion != 1 || st.Docs != 12 || !st.MinHash {
		t.Fatalf("stats of the version 1 file: %+v", st)
	}
	// The two Russian fortunes of the sample are near duplicates.
	ms, err := x.QueryID("fortune:ru/2001.06:78", &index.QueryOptions{MinSimilarity: 0.5})
	if err != nil || len(ms) == 0 || ms[0].ID != "fortune:ru/2001.09:26" {
		t.Fatalf("query of the version 1 file: %v, %v", ms, err)
	}
}

// v1Copy returns the path of a copy of testdata/v1.simidx, a file written
// by schema version 1. The file is frozen: -update does not rewrite it.
func v1Copy(t *testing.T) string { return fixtureCopy(t, "v1.simidx") }

// v2Copy returns the path of a copy of testdata/v2.simidx, a file written
// by schema version 2 (frozen too): the sample loaded with MinHash, then
// online, a copy of its first document added as "copy" (with a sentence
// more), its second document replaced by another text and its third
// deleted. Its band level holds the online adds; its tables bucket holds
// every entry.
func v2Copy(t *testing.T) string { return fixtureCopy(t, "v2.simidx") }

// v3Copy returns the path of a copy of testdata/v3.simidx, a file written
// by schema version 3 (frozen too), made as v2.simidx: the sample loaded
// with MinHash, then online "copy" (its first document and a sentence
// more) added, its second document replaced by a new text and its third
// deleted. "copy" is in the levels, and its exact key in the exact bucket.
func v3Copy(t *testing.T) string { return fixtureCopy(t, "v3.simidx") }

func fixtureCopy(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
