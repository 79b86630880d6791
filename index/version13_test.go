package index_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestUpgradeVersion13 opens a copy of testdata/v13.simidx, a file written
// by schema version 13 (frozen): the sample, four short texts and an exact
// copy of the first ("short-a2") bulk-loaded with the default settings, so
// that band groups hold postings of several documents as roaring bitmaps;
// then online a copy of the first sample document with a sentence more
// ("copy") added, the second document replaced by another text, the third
// deleted, and two short texts added ("short-e", "short-f"), which stay in
// the in-memory levels. testdata/v13-pairs.txt holds its pairs as schema
// 13 found them. It opens the file read-only and then for writing
// (upgradeFrozen): its band groups keep the entries of schema 13 (a
// posting of several documents is a roaring bitmap) and are read and
// written so. A new index made with its settings writes the lists of
// schema 14, in groups of the same width.
func TestUpgradeVersion13(t *testing.T) {
	t.Parallel()
	upgradeFrozen(t, "v13", 13, 1)
}

// upgradeFrozen opens a copy of the frozen file testdata/name.simidx,
// written by schema version (made as v13.simidx is, with the short-text
// layer of version shortLayer), read-only and then for writing: its pairs
// are those of testdata/name-pairs.txt, which that schema found, and the
// documents added after the upgrade find their near duplicates, through a
// merge of the levels that rewrites its groups and a reopen, with every
// invariant checked. A new index made with its settings analyses as the
// file does and finds the same pairs of the same texts.
func upgradeFrozen(t *testing.T, name string, version, shortLayer int) {
	path := fixtureCopy(t, name+".simidx")
	want := fixturePairs(t, name+"-pairs.txt")
	check := func(x *index.Index, when string, ver, docs int) {
		t.Helper()
		checkFrozen(t, x, when, index.Stats{SchemaVersion: ver, Docs: docs, SignatureBits: 8, ShortLayer: shortLayer},
			[][2]string{{"short-a", "short-b"}, {"short-a2", "short-a"}, {"short-d", "short-c"}, {"short-f", "short-e"}, {"copy", "fortune:art:0"}})
	}
	pairs := func(x *index.Index, when string) { t.Helper(); checkPairs(t, x, when, want) }
	x, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(x, fmt.Sprintf("version %d, read-only", version), version, 19)
	pairs(x, fmt.Sprintf("version %d", version))
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
	// the file's schema and of the upgraded file into the file's groups.
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
	// rewrites the file's postings.
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
	if st, err := y.Stats(); err != nil || st.ShortLayer != shortLayer {
		t.Fatalf("new index of the file's settings: %+v, %v", st, err)
	}
	if got := pairLines(t, y); !slices.Equal(got, []string{want[1], want[2], want[3], want[5]}) {
		t.Fatalf("new index of the file's settings: pairs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join([]string{want[1], want[2], want[3], want[5]}, "\n"))
	}
}
