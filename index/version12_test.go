package index_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// v12Copy returns the path of a copy of testdata/v12.simidx, a file
// written by schema version 12 (frozen): the sample and four short texts
// bulk-loaded with the default settings (so its records are in groups),
// then online a copy of the first document with a sentence more ("copy")
// added, the second document replaced by another text, the third deleted,
// and two short texts added ("short-e", "short-f"), which stay in the
// in-memory levels. Its records keep 16 bits of each signature value: the
// analysis of schema 10 to 12, which its settings' signature_bits 16
// imply. testdata/v12-pairs.txt holds its pairs as schema 12 found them.
func v12Copy(t *testing.T) string { return fixtureCopy(t, "v12.simidx") }

// TestUpgradeVersion12 opens the schema 12 file read-only and then for
// writing: it keeps its 16-bit signatures, so that its pairs are those
// schema 12 found, and the documents added after the upgrade (analysed
// with 16 bits too) find their near duplicates, through a merge of the
// levels and a reopen, with every invariant checked.
func TestUpgradeVersion12(t *testing.T) {
	t.Parallel()
	path := v12Copy(t)
	want := fixturePairs(t, "v12-pairs.txt")
	check := func(x *index.Index, when string, version, docs int) {
		t.Helper()
		checkFrozen(t, x, when, index.Stats{SchemaVersion: version, Docs: docs, SignatureBits: 16, ShortLayer: 1},
			[][2]string{{"short-a", "short-b"}, {"short-d", "short-c"}, {"short-f", "short-e"}, {"copy", "fortune:art:0"}})
	}
	pairs := func(x *index.Index, when string) { t.Helper(); checkPairs(t, x, when, want) }
	x, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "version 12, read-only", 12, 18)
	pairs(x, "version 12")
	x.Close()

	x, err = index.Open(path, &index.Options{Log: directLog})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "upgraded", index.SchemaVersion, 18)
	pairs(x, "upgraded")
	// A text analysed by the upgraded file is compared with 16-bit
	// values: its exact copy in the file scores 1, and the Fingerprinter
	// of the file's settings computes what the file stores.
	f, err := index.NewFingerprinter(ptr(x.Settings()))
	if err != nil {
		t.Fatal(err)
	}
	_, sig, _ := f.Analyze([]byte("The quick brown fox jumps over the lazy dog near the river bank today."))
	if !slices.ContainsFunc(sig, func(v uint64) bool { return v > 0xff }) {
		t.Fatalf("signature of the upgraded file's settings %v: no value above 8 bits", sig)
	}
	ms, err := x.Query([]byte("The quick brown fox jumps over the lazy dog near the river bank today."), nil)
	if err != nil || len(ms) == 0 || ms[0].ID != "short-a" || ms[0].Similarity != 1 {
		t.Fatalf("query of short-a's text: %v, %v", ms, err)
	}
	if err := x.Add(index.Doc{ID: "short-g", Text: []byte("The quick brown fox jumps over the lazy dog near the river bank tonight.")}); err != nil {
		t.Fatal(err)
	}
	check(x, "after an add", index.SchemaVersion, 19)
	if ms, err := x.QueryID("short-g", nil); err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == "short-a" }) {
		t.Fatalf("after an add: query of short-g: %v, %v", ms, err)
	}
	x.Close()

	// A merge of the levels after every commit moves the online adds of
	// schema 12 and of the upgraded file into the buckets.
	x, err = index.Open(path, &index.Options{Log: directLog, RecentBands: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(index.Doc{ID: "short-h", Text: []byte("Быстрая коричневая лиса прыгает через ленивую собаку у реки вечером.")}); err != nil {
		t.Fatal(err)
	}
	check(x, "after a merge", index.SchemaVersion, 20)
	mergedPairs(t, x, want)
	x.Close()
	x, err = index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	check(x, "merged, read-only", index.SchemaVersion, 20)

	// A new index made with the file's settings keeps its analysis (16-bit
	// signature values, 48-bit band hashes), so that its documents compare
	// with the file's: the pairs of the same documents are the same.
	y := indexOfSettings(t, x, index.Options{Log: directLog}, [][2]string{
		{"short-a", "The quick brown fox jumps over the lazy dog near the river bank today."},
		{"short-b", "The quick brown fox jumped over the lazy dog near the river bank today."},
		{"short-e", "Garden chairs, set of four, 40 euros, collect from the north side."},
		{"short-f", "Garden chairs, set of four, 45 euros, collect from the north side."},
	})
	if st, err := y.Stats(); err != nil || st.SignatureBits != 16 {
		t.Fatalf("new index of the file's settings: %+v, %v", st, err)
	}
	if got := pairLines(t, y); !slices.Equal(got, []string{want[1], want[3]}) {
		t.Fatalf("new index of the file's settings: pairs\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), want[1], want[3])
	}
}

func ptr[T any](v T) *T { return &v }
