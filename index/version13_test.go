package index_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// v13Copy returns the path of a copy of testdata/v13.simidx, a file
// written by schema version 13 (frozen): the sample, four short texts and
// an exact copy of the first ("short-a2") bulk-loaded with the default
// settings, so that band groups hold postings of several documents as
// roaring bitmaps; then online a copy of the first sample document with a
// sentence more ("copy") added, the second document replaced by another
// text, the third deleted, and two short texts added ("short-e",
// "short-f"), which stay in the in-memory levels. testdata/v13-pairs.txt
// holds its pairs as schema 13 found them.
func v13Copy(t *testing.T) string { return fixtureCopy(t, "v13.simidx") }

// TestUpgradeVersion13 opens the schema 13 file read-only and then for
// writing: its band groups keep the entries of schema 13 (a posting of
// several documents is a roaring bitmap) and are read and written so, its
// pairs are those schema 13 found, and the documents added after the
// upgrade find their near duplicates, through a merge of the levels that
// rewrites its groups and a reopen, with every invariant checked. A new
// index made with its settings writes the lists of schema 14 and finds
// the same pairs.
func TestUpgradeVersion13(t *testing.T) {
	t.Parallel()
	path := v13Copy(t)
	want := fixturePairs(t, "v13-pairs.txt")
	check := func(x *index.Index, when string, version, docs int) {
		t.Helper()
		checkFrozen(t, x, when, index.Stats{SchemaVersion: version, Docs: docs, SignatureBits: 8, ShortLayer: 1},
			[][2]string{{"short-a", "short-b"}, {"short-a2", "short-a"}, {"short-d", "short-c"}, {"short-f", "short-e"}, {"copy", "fortune:art:0"}})
	}
	pairs := func(x *index.Index, when string) { t.Helper(); checkPairs(t, x, when, want) }
	x, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "version 13, read-only", 13, 19)
	pairs(x, "version 13")
	x.Close()

	x, err = index.Open(path, &index.Options{Log: directLog})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "upgraded", index.SchemaVersion, 19)
	pairs(x, "upgraded")
	if err := x.Add(index.Doc{ID: "short-g", Text: []byte("The quick brown fox jumps over the lazy dog near the river bank tonight.")}); err != nil {
		t.Fatal(err)
	}
	check(x, "after an add", index.SchemaVersion, 20)
	x.Close()

	// A merge of the levels after every commit moves the online adds of
	// schema 13 and of the upgraded file into the schema 13 groups.
	x, err = index.Open(path, &index.Options{Log: directLog, RecentBands: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(index.Doc{ID: "short-h", Text: []byte("Быстрая коричневая лиса прыгает через ленивую собаку у реки вечером.")}); err != nil {
		t.Fatal(err)
	}
	check(x, "after a merge", index.SchemaVersion, 21)
	mergedPairs(t, x, want)
	// Removing short-a2, an exact copy of short-a, from postings of
	// several documents (short-a's bands, some shared with short-g)
	// rewrites the schema 13 bitmaps.
	if n, err := x.Delete("short-a2"); err != nil || n != 1 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	x.Close()
	x, err = index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Check(); err != nil {
		t.Fatalf("merged, read-only: %v", err)
	}
	if ms, err := x.QueryID("short-g", nil); err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == "short-a" }) {
		t.Fatalf("merged, read-only: query of short-g: %v, %v", ms, err)
	}

	// A new index made with the file's settings analyses as it does, and
	// writes its postings of several documents as lists (each add merged
	// into the groups at once): the pairs of the same texts are the same.
	y := indexOfSettings(t, x, index.Options{Log: directLog, RecentBands: -1}, [][2]string{
		{"short-a", "The quick brown fox jumps over the lazy dog near the river bank today."},
		{"short-b", "The quick brown fox jumped over the lazy dog near the river bank today."},
		{"short-a2", "The quick brown fox jumps over the lazy dog near the river bank today."},
		{"short-e", "Garden chairs, set of four, 40 euros, collect from the north side."},
		{"short-f", "Garden chairs, set of four, 45 euros, collect from the north side."},
	})
	if st, err := y.Stats(); err != nil || st.ShortLayer != 1 {
		t.Fatalf("new index of the file's settings: %+v, %v", st, err)
	}
	if got := pairLines(t, y); !slices.Equal(got, []string{want[1], want[2], want[3], want[5]}) {
		t.Fatalf("new index of the file's settings: pairs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join([]string{want[1], want[2], want[3], want[5]}, "\n"))
	}
}
