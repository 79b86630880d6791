package index_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	bolt "go.etcd.io/bbolt"
)

// TestLoadCancel cancels loads midway, into an empty and a non-empty
// index, and by a failing source: what was read before is committed, the
// error is returned, and the index is consistent.
func TestLoadCancel(t *testing.T) {
	errSource := errors.New("source broke")
	for _, tc := range []struct {
		name    string
		prefill bool
		fail    error // the source fails instead of the context being cancelled
	}{
		{name: "empty"},
		{name: "non-empty", prefill: true},
		{name: "source-error", fail: errSource},
		{name: "source-error-non-empty", prefill: true, fail: errSource},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newIndex(t, &index.Settings{ExpectedDocs: 10000})
			if tc.prefill {
				if err := x.AddFingerprint("pre", 1); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const stopAt = 5000
			src := func(yield func(index.Doc, error) bool) {
				for i := 0; ; i++ {
					if i == stopAt {
						if tc.fail != nil {
							yield(index.Doc{}, tc.fail)
							return
						}
						cancel()
					}
					if !yield(index.Doc{ID: "c" + strconv.Itoa(i), Text: []byte("document " + strconv.Itoa(i) + " has some words")}, nil) {
						return
					}
				}
			}
			st, err := x.Load(ctx, src, &index.LoadOptions{BatchSize: 1000})
			want := error(context.Canceled)
			if tc.fail != nil {
				want = tc.fail
			}
			if !errors.Is(err, want) {
				t.Fatalf("Load: %v, want %v", err, want)
			}
			if st.Committed < stopAt-256 || st.Committed > stopAt+256 || st.Committed != st.Docs {
				t.Fatalf("stats %+v", st)
			}
			pre := 0
			if tc.prefill {
				pre = 1
			}
			if x.Len() != int(st.Committed)+pre {
				t.Fatalf("Len %d, committed %d", x.Len(), st.Committed)
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			if ms, err := x.QueryID("c17", nil); err != nil {
				t.Fatal(err)
			} else {
				_ = ms
			}
		})
	}
}

func TestLoadSkipInvalid(t *testing.T) {
	x := newIndex(t, nil)
	docs := []index.Doc{{ID: "a", Text: []byte("x")}, {ID: "", Text: []byte("y")}, {ID: "b", Text: make([]byte, index.MaxDocSize+1)}, {ID: "c", Text: []byte("z")}}
	src := seqDocs(docs)
	st, err := x.Load(context.Background(), src, &index.LoadOptions{SkipInvalid: true})
	if err != nil || st.Skipped != 2 || x.Len() != 2 {
		t.Fatalf("skip: %+v, %v, Len %d", st, err, x.Len())
	}
	y := newIndex(t, nil)
	st, err = y.Load(context.Background(), src, nil)
	if !errors.Is(err, index.ErrInvalidID) || y.Len() != 1 {
		t.Fatalf("no skip: %+v, %v, Len %d", st, err, y.Len())
	}
}

// TestLoadExactDuplicates checks LoadStats.ExactDuplicates, a document
// whose canonical text equals that of a document already stored or
// loaded, into an empty index (the bulk path) and into a non-empty one,
// with and without MinHash (whose new exact keys are in the in-memory
// level): a repeat within the load counts, a copy of a stored text
// counts, and a replace of a document by its own unchanged text does not.
func TestLoadExactDuplicates(t *testing.T) {
	for _, noMinHash := range []bool{false, true} {
		t.Run("nominhash="+strconv.FormatBool(noMinHash), func(t *testing.T) {
			x := newIndex(t, &index.Settings{ExpectedDocs: 10000, NoMinHash: noMinHash})
			load := func(docs ...index.Doc) index.LoadStats {
				t.Helper()
				st, err := x.Load(context.Background(), seqDocs(docs), nil)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			doc := func(id, text string) index.Doc { return index.Doc{ID: id, Text: []byte(text)} }
			// Into the empty index: "b" repeats "a".
			if st := load(doc("a", "the first text"), doc("b", "The first text."), doc("c", "another text")); st.ExactDuplicates != 1 {
				t.Errorf("bulk load: %d exact duplicates, want 1", st.ExactDuplicates)
			}
			// Into the non-empty index: "d" and "e" repeat each other, "f"
			// copies the stored "c", "c" is replaced by its own text.
			st := load(doc("d", "a new text"), doc("e", "a new text"), doc("f", "another text"), doc("c", "another text"))
			if st.ExactDuplicates != 3 {
				// "e" (of "d"), "f" (of "c"), and "c" (of "f", loaded before it).
				t.Errorf("incremental load: %d exact duplicates, want 3", st.ExactDuplicates)
			}
			if st := load(doc("g", "a text of its own"), doc("g", "a text of its own")); st.ExactDuplicates != 0 {
				t.Errorf("a document and its own replace: %d exact duplicates, want 0", st.ExactDuplicates)
			}
			if st := load(doc("g", "a text of its own")); st.ExactDuplicates != 0 {
				t.Errorf("a replace by the same text: %d exact duplicates, want 0", st.ExactDuplicates)
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLoadSpill loads the same short texts (with near copies and
// replaced IDs) into two empty indexes, one with the default memory and
// one whose posting sorter must write sorted runs to files: every bucket of
// the two files holds the same keys and values, and no run file is left.
func TestLoadSpill(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 27))
	var docs []index.Doc
	for i := range 8000 {
		text := sentence(rng, 8+rng.IntN(30))
		if i > 0 && rng.IntN(4) == 0 {
			// A near copy of an earlier text: shared band postings.
			w := strings.Fields(string(docs[rng.IntN(len(docs))].Text))
			w[rng.IntN(len(w))] = "changed"
			text = strings.Join(w, " ")
		}
		id := strconv.Itoa(i)
		if rng.IntN(20) == 0 {
			id = strconv.Itoa(rng.IntN(i + 1)) // replaces an earlier one
		}
		docs = append(docs, index.Doc{ID: id, Text: []byte(text)})
	}
	load := func(o *index.LoadOptions) string {
		path := filepath.Join(t.TempDir(), "x.simidx")
		x := openIndex(t, path, &index.Options{NoSync: true})
		if _, err := x.Load(context.Background(), seqDocs(docs), o); err != nil {
			t.Fatal(err)
		}
		if err := x.Check(); err != nil {
			t.Fatal(err)
		}
		if err := x.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	runs := t.TempDir()
	want := dumpBuckets(t, load(nil))
	got := dumpBuckets(t, load(&index.LoadOptions{Memory: 1, TempDir: runs}))
	if len(got) != len(want) {
		t.Fatalf("%d keys with runs, %d without", len(got), len(want))
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Fatalf("key %q: %x with runs, %x without", k, g, v)
		}
	}
	if left, _ := os.ReadDir(runs); len(left) > 0 {
		t.Errorf("%d files left in the directory of the runs", len(left))
	}
}

// dumpBuckets returns every key (bucket name, NUL, key) and value of the
// bbolt file at path.
func dumpBuckets(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := map[string]string{}
	err = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				m[string(name)+"\x00"+string(k)] = string(v)
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
