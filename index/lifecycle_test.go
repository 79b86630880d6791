package index_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/simidx/simidx/index"
)

func TestReplaceDeleteCheck(t *testing.T) {
	x := newIndex(t, &index.Settings{ExpectedDocs: 1000})
	if err := x.Add(
		index.Doc{ID: "a", Text: []byte("the quick brown fox jumps over the lazy dog")},
		index.Doc{ID: "b", Text: []byte("the quick brown fox jumps over the lazy dog")},
		index.Doc{ID: "c", Text: []byte("something else entirely, with other words")},
	); err != nil {
		t.Fatal(err)
	}
	ms, err := x.QueryID("a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].ID != "b" || ms[0].Distance != 0 {
		t.Fatalf("QueryID(a) = %v, want b at distance 0", ms)
	}
	// Replace b with different text: a has no duplicate any more.
	if err := x.Add(index.Doc{ID: "b", Text: []byte("completely different words in this one")}); err != nil {
		t.Fatal(err)
	}
	if x.Len() != 3 {
		t.Fatalf("Len = %d after replace, want 3", x.Len())
	}
	if ms, _ := x.Query([]byte("The quick brown fox jumps over the lazy dog"), &index.QueryOptions{MaxDistance: index.ZeroDistance}); len(ms) != 1 || ms[0].ID != "a" {
		t.Fatalf("after replace: %v", ms)
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	n, err := x.Delete("a", "nope", "a")
	if err != nil || n != 1 {
		t.Fatalf("Delete = %d, %v; want 1", n, err)
	}
	if _, err := x.Get("a"); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("Get deleted: %v", err)
	}
	if _, err := x.QueryID("a", nil); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("QueryID deleted: %v", err)
	}
	if ms, _ := x.Query([]byte("the quick brown fox jumps over the lazy dog"), nil); len(ms) != 0 {
		t.Fatalf("deleted document still found: %v", ms)
	}
	if x.Len() != 2 {
		t.Fatalf("Len = %d, want 2", x.Len())
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	// Delete everything, then load in bulk into the emptied index.
	if _, err := x.Delete("b", "c"); err != nil {
		t.Fatal(err)
	}
	c := &corpus{}
	for i := range 500 {
		c.add(uint64(i) * 0x9E3779B97F4A7C15)
	}
	c.ids[10] = c.ids[20] // a duplicate ID within the load: the last one wins
	st, err := x.Load(context.Background(), c.docs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Docs != 500 || st.Replaced != 1 || x.Len() != 499 {
		t.Fatalf("load stats %+v, Len %d", st, x.Len())
	}
	if fp, err := x.Fingerprint(c.ids[20]); err != nil || fp != c.fps[20] {
		t.Fatalf("duplicate ID: fingerprint %x, %v; want %x", fp, err, c.fps[20])
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	// Load more into the non-empty index, replacing some.
	more := &corpus{}
	for i := range 300 {
		more.add(uint64(i) * 0xC2B2AE3D27D4EB4F)
	}
	st, err = x.Load(context.Background(), more.docs(), &index.LoadOptions{BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	if st.Replaced != 299 || x.Len() != 500 { // d000010 was not stored
		t.Fatalf("second load stats %+v, Len %d", st, x.Len())
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestReopenSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.simidx")
	s := &index.Settings{MaxDistance: 5, ExpectedDocs: 12345, MinHash: true}
	x, err := index.Open(path, &index.Options{Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(index.Doc{ID: "one", Text: []byte("hello world")}); err != nil {
		t.Fatal(err)
	}
	want := x.Settings()
	x.Close()
	if err := x.Add(index.Doc{ID: "two"}); !errors.Is(err, index.ErrClosed) {
		t.Fatalf("Add after Close: %v", err)
	}
	if _, err := x.QueryFingerprint(0, nil); !errors.Is(err, index.ErrClosed) {
		t.Fatalf("query after Close: %v", err)
	}

	// nil settings: the stored ones.
	x, err = index.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := x.Settings()
	if got.MaxDistance != 5 || got.ExpectedDocs != 12345 || !got.MinHash || got.MinHashK != index.DefaultMinHashK || x.Len() != 1 {
		t.Fatalf("reopened settings %+v, Len %d", got, x.Len())
	}
	x.Close()
	// The same settings, or the returned ones, match.
	for _, s := range []*index.Settings{s, &want, {MaxDistance: 5}} {
		x, err = index.Open(path, &index.Options{Settings: s})
		if err != nil {
			t.Fatalf("reopen with %+v: %v", s, err)
		}
		x.Close()
	}
	// Conflicts.
	for _, s := range []*index.Settings{{MaxDistance: 3}, {MaxDistance: index.ZeroDistance}, {ExpectedDocs: 99}, {MinHashK: 42, MinHash: true}, {Bands: 7}} {
		if x, err := index.Open(path, &index.Options{Settings: s}); !errors.Is(err, index.ErrSettings) {
			if x != nil {
				x.Close()
			}
			t.Fatalf("conflicting %+v: %v", s, err)
		}
	}
	// Invalid settings for a new index.
	for _, s := range []*index.Settings{{MaxDistance: 9}, {MaxDistance: -2}, {MinHash: true, MinHashK: 10, Bands: 3}, {Design: index.Design{Blocks: []int{32, 31}, KeyBits: 8}}} {
		if x, err := index.Open(filepath.Join(t.TempDir(), "y"), &index.Options{Settings: s}); !errors.Is(err, index.ErrSettings) {
			if x != nil {
				x.Close()
			}
			t.Fatalf("invalid %+v: %v", s, err)
		}
	}
}

func TestReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.simidx")
	if _, err := index.Open(path, &index.Options{ReadOnly: true}); err == nil {
		t.Fatal("read-only open of a missing file succeeded")
	}
	x, err := index.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.AddFingerprint("a", 42)
	x.Close()
	r1, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := index.Open(path, &index.Options{ReadOnly: true}) // shared lock
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if err := r1.AddFingerprint("b", 1); !errors.Is(err, index.ErrReadOnly) {
		t.Fatalf("Add: %v", err)
	}
	if _, err := r1.Delete("a"); !errors.Is(err, index.ErrReadOnly) {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := r1.Load(context.Background(), (&corpus{}).docs(), nil); !errors.Is(err, index.ErrReadOnly) {
		t.Fatalf("Load: %v", err)
	}
	if ms, err := r2.QueryFingerprint(43, nil); err != nil || len(ms) != 1 || ms[0].ID != "a" || ms[0].Distance != 1 {
		t.Fatalf("read-only query: %v, %v", ms, err)
	}
	if err := r1.Check(); err != nil {
		t.Fatal(err)
	}
}
