package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// v9Copy returns the path of a copy of testdata/v9.simidx, a file written
// by schema version 9 (frozen): the sample and four short texts loaded
// with the default settings, then online a copy of the first document
// ("copy") added, the second document replaced by another text, the third
// deleted, and two short texts added ("short-e", "short-f"), which stay in
// the in-memory levels. Its records keep 32-bit signature values and
// their band hashes, and its band groups hold 8-byte hashes: the analysis
// of schema 9, which its settings imply.
func v9Copy(t *testing.T) string { return fixtureCopy(t, "v9.simidx") }

// v9Pairs returns the pairs of the v9 file, as written with it by schema
// 9 (testdata/v9-pairs.txt).
func v9Pairs(t *testing.T) []string { return fixturePairs(t, "v9-pairs.txt") }

// fixturePairs returns the pairs of testdata/name, one a line: A, B, the
// distance, the similarity to 4 places and whether the two are exact
// copies (pairLines's format).
func fixturePairs(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// mergedPairs checks the pairs of a frozen file x after the adds of
// short-g and short-h and a merge of the levels: it has the pairs of both
// (short-a short-g, short-c short-h) and every pair of want, the file's
// own.
func mergedPairs(t *testing.T, x *index.Index, want []string) {
	t.Helper()
	got := pairLines(t, x)
	for _, p := range []string{"short-a short-g", "short-c short-h"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, p+" ") }) {
			t.Fatalf("after a merge: no pair %s in\n%s", p, strings.Join(got, "\n"))
		}
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Fatalf("after a merge: pair %s lost from\n%s", p, strings.Join(got, "\n"))
		}
	}
}

// checkFrozen checks the index x of a frozen file at step when: every
// invariant holds, its stats have want's schema version, documents,
// signature bits and short-text layer, and the query of each q[0] of
// queries finds q[1].
func checkFrozen(t *testing.T, x *index.Index, when string, want index.Stats, queries [][2]string) {
	t.Helper()
	if err := x.Check(); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	if st, err := x.Stats(); err != nil || st.SchemaVersion != want.SchemaVersion || st.Docs != want.Docs ||
		st.SignatureBits != want.SignatureBits || st.ShortLayer != want.ShortLayer {
		t.Fatalf("%s: stats %+v, %v", when, st, err)
	}
	for _, q := range queries {
		ms, err := x.QueryID(q[0], nil)
		if err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == q[1] }) {
			t.Fatalf("%s: query of %s: %v, %v, want %s", when, q[0], ms, err, q[1])
		}
	}
}

// checkPairs checks that the pairs of x (pairLines) are want.
func checkPairs(t *testing.T, x *index.Index, when string, want []string) {
	t.Helper()
	if got := pairLines(t, x); !slices.Equal(got, want) {
		t.Fatalf("%s: pairs\n%s\nwant\n%s", when, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// indexOfSettings returns a new index in a temporary directory made with
// x's settings and opts, with texts (ID and text) added one by one and its
// invariants checked: the documents of a frozen file analysed as the file
// analyses them.
func indexOfSettings(t *testing.T, x *index.Index, opts index.Options, texts [][2]string) *index.Index {
	t.Helper()
	opts.Settings = ptr(x.Settings())
	y, err := index.Open(filepath.Join(t.TempDir(), "same.simidx"), &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { y.Close() })
	for _, d := range texts {
		if err := y.Add(index.Doc{ID: d[0], Text: []byte(d[1])}); err != nil {
			t.Fatal(err)
		}
	}
	if err := y.Check(); err != nil {
		t.Fatal(err)
	}
	return y
}

// pairLines returns the pairs of x in v9Pairs's format, sorted.
func pairLines(t *testing.T, x *index.Index) []string {
	t.Helper()
	var out []string
	err := x.Pairs(context.Background(), nil, func(p index.Pair) error {
		out = append(out, fmt.Sprintf("%s %s %d %.4f %v", p.A, p.B, p.Distance, p.Similarity, p.Exact))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestUpgradeVersion9 opens the schema 9 file read-only and then for
// writing: it keeps the analysis it was written with, so that its pairs
// are those schema 9 found, its queries find the texts it holds, and the
// documents added after the upgrade (analysed as schema 9 did) find their
// near duplicates, through a merge of the levels and a reopen, with every
// invariant checked.
func TestUpgradeVersion9(t *testing.T) {
	t.Parallel()
	path := v9Copy(t)
	want := v9Pairs(t)
	check := func(x *index.Index, when string, version, docs int) {
		t.Helper()
		checkFrozen(t, x, when, index.Stats{SchemaVersion: version, Docs: docs, SignatureBits: 32, ShortLayer: 1},
			[][2]string{{"short-a", "short-b"}, {"short-d", "short-c"}, {"short-f", "short-e"}})
	}
	x, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "version 9, read-only", 9, 18)
	checkPairs(t, x, "version 9", want)
	x.Close()

	x, err = index.Open(path, &index.Options{Log: directLog})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "upgraded", index.SchemaVersion, 18)
	checkPairs(t, x, "upgraded", want)
	add := func(id, text string) {
		t.Helper()
		if err := x.Add(index.Doc{ID: id, Text: []byte(text)}); err != nil {
			t.Fatal(err)
		}
	}
	add("short-g", "The quick brown fox jumps over the lazy dog near the river bank tonight.")
	check(x, "after an add", index.SchemaVersion, 19)
	if ms, err := x.QueryID("short-g", nil); err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == "short-a" }) {
		t.Fatalf("after an add: query of short-g: %v, %v", ms, err)
	}
	// The ids bucket of the older schema (a key per ID) is written as
	// such: a delete and an add of the same ID, and a replace by another
	// text and back.
	if n, err := x.Delete("short-g"); n != 1 || err != nil {
		t.Fatalf("delete: %d, %v", n, err)
	}
	if _, err := x.Get("short-g"); !errors.Is(err, index.ErrNotFound) {
		t.Fatalf("Get of a deleted ID: %v", err)
	}
	add("short-g", "A text of other words altogether, for a moment.")
	add("short-g", "The quick brown fox jumps over the lazy dog near the river bank tonight.")
	check(x, "after a delete, an add and a replace", index.SchemaVersion, 19)
	x.Close()

	// A merge of the levels after every commit moves the online adds of
	// schema 9 and of the upgraded file into the buckets.
	x, err = index.Open(path, &index.Options{Log: directLog, RecentBands: -1})
	if err != nil {
		t.Fatal(err)
	}
	add("short-h", "Быстрая коричневая лиса прыгает через ленивую собаку у реки вечером.")
	check(x, "after a merge", index.SchemaVersion, 20)
	mergedPairs(t, x, want)
	x.Close()
	x, err = index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	check(x, "merged, read-only", index.SchemaVersion, 20)
}
