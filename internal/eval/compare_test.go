package eval

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		r     Ratio
		table string
		json  float64
	}{
		{Ratio{5952, 10000}, "0.59", 0.5952},
		{Ratio{2, 3}, "0.66", 0.6666},
		{Ratio{29, 100}, "0.29", 0.29}, // 0.29*100 is 28.999... in floating point
		{Ratio{1, 1}, "1.00", 1},
		{Ratio{0, 0}, "0.00", 0},
		{Ratio{99999, 100000}, "0.99", 0.9999},
	} {
		if got := tc.r.String(); got != tc.table {
			t.Errorf("%v: table %s, want %s", tc.r, got, tc.table)
		}
		if got := tc.r.Float4(); got != tc.json {
			t.Errorf("%v: JSON %v, want %v", tc.r, got, tc.json)
		}
	}
}

// TestCompareTexts checks the measures of two texts that share a passage,
// and that a text without words matches nothing.
func TestCompareTexts(t *testing.T) {
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := []byte("Preface. the quick brown fox jumps over the lazy dog. The end")
	b := []byte("Another start: The Quick Brown Fox jumps over the lazy dog!")
	c, err := CompareTexts(context.Background(), f, a, b, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Passages) == 0 {
		t.Fatal("no shared passage")
	}
	p := c.Passages[0]
	if p.Words != 9 || string(a[p.AStart:p.AEnd]) != "the quick brown fox jumps over the lazy dog" || string(b[p.BStart:p.BEnd]) != "The Quick Brown Fox jumps over the lazy dog" {
		t.Errorf("longest passage %+v: %q, %q", p, a[p.AStart:p.AEnd], b[p.BStart:p.BEnd])
	}
	if c.Exact || c.Jaccard.Num == 0 || c.ContainmentA.Den == 0 || !c.MinHash {
		t.Errorf("comparison %+v", c)
	}
	same, err := CompareTexts(context.Background(), f, a, a, 1)
	if err != nil || !same.Exact || same.Jaccard.String() != "1.00" || same.Distance != 0 || same.Similarity.String() != "1.00" {
		t.Errorf("a text and itself: %+v, %v", same, err)
	}
	empty, err := CompareTexts(context.Background(), f, []byte("..."), []byte("..."), 1)
	if err != nil || empty.Exact || empty.Jaccard.Den != 0 || len(empty.Passages) != 0 {
		t.Errorf("texts without words: %+v, %v", empty, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CompareTexts(ctx, f, a, b, 1); err != context.Canceled {
		t.Errorf("after ctx was done: %v", err)
	}
}

// TestCompareTextsIndexSimilarity checks that the similarity of two texts
// is the one an index gives them once stored (Index.Compare): of two short
// texts, of two long ones, and of a short and a long one.
func TestCompareTextsIndexSimilarity(t *testing.T) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog near the river bank ", 8)
	texts := map[string]string{
		"short1": "Red mountain bicycle for sale, 21 gears, hardly used, new tyres and lights. Collect in Leeds, call Anna after six.",
		"short2": "RED MOUNTAIN BICYCLE for sale - 21 gears, hardly used, new tyres & lights. Collect in Leeds; call Anna after six!",
		"long1":  long + "written by Ann in the spring of that year, and printed twice.",
		"long2":  long + "written by Bob in the autumn of the next year, printed once.",
	}
	x, err := index.Open(filepath.Join(t.TempDir(), "x.simidx"), &index.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for id, text := range texts {
		if err := x.Add(index.Doc{ID: id, Text: []byte(text)}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]string{{"short1", "short2"}, {"long1", "long2"}, {"short1", "long1"}} {
		c, err := CompareTexts(context.Background(), f, []byte(texts[pair[0]]), []byte(texts[pair[1]]), 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := x.Compare(pair[0], pair[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(c.Similarity.Num) / float64(c.Similarity.Den); got != p.Similarity || p.Similarity == 0 && pair[0] != "short1" {
			t.Errorf("%s and %s: CompareTexts %v (%v), the index %v", pair[0], pair[1], got, c.Similarity, p.Similarity)
		}
	}
}
