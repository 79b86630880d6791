package pairsort

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// testIndex returns an index of two groups of exact copies (30 and 12
// documents, 435 and 66 pairs) and unrelated texts.
func testIndex(t *testing.T) *index.Index {
	t.Helper()
	x, err := index.Open(filepath.Join(t.TempDir(), "x.db"), &index.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	a := strings.Repeat("the quick brown fox jumps over the lazy dog ", 20)
	b := strings.Repeat("pack my box with five dozen liquor jugs now ", 20)
	var docs []index.Doc
	for i := range 30 {
		docs = append(docs, index.Doc{ID: fmt.Sprintf("a-é%02d", i), Text: []byte(a)})
	}
	for i := range 12 {
		docs = append(docs, index.Doc{ID: fmt.Sprintf("b%d", i), Text: []byte(b)})
	}
	for i := range 5 {
		docs = append(docs, index.Doc{ID: fmt.Sprintf("u%d", i), Text: []byte(fmt.Sprintf("unrelated text number %d about %s", i, strings.Repeat("x", i+1)))})
	}
	var seq iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}
	if _, err := x.Load(context.Background(), seq, nil); err != nil {
		t.Fatal(err)
	}
	return x
}

// TestSorted checks the pairs of Sorted against those of index.Pairs,
// sorted: in memory, spilled to runs of 1 to 64 pairs, read twice, and
// cut at a limit.
func TestSorted(t *testing.T) {
	x := testIndex(t)
	ctx := context.Background()
	opts := &index.QueryOptions{}
	var brute []string
	err := x.Pairs(ctx, opts, func(p index.Pair) error {
		brute = append(brute, fmt.Sprintf("%s %s %d %v", p.A, p.B, p.Distance, p.Exact))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(brute)
	if len(brute) < 435+66 {
		t.Fatalf("%d pairs", len(brute))
	}
	for _, limit := range []int{0, 1, 7, 100, len(brute) + 10} {
		want := brute
		if limit > 0 {
			want = brute[:min(limit, len(brute))]
		}
		for _, run := range []int{1, 5, 64, RunPairs} {
			l, err := Sorted(ctx, x, opts, limit, run)
			if err != nil {
				t.Fatal(err)
			}
			if spill := limit == 0 || limit > run; l.Spilled() != (spill && len(brute) >= run) {
				t.Errorf("limit %d, runs of %d: Spilled() = %v", limit, run, l.Spilled())
			}
			for range 2 { // a List can be read more than once
				var got []string
				err := l.Each(ctx, func(p index.Pair) error {
					got = append(got, fmt.Sprintf("%s %s %d %v", p.A, p.B, p.Distance, p.Exact))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("limit %d, runs of %d: %d pairs, want %d; first %q", limit, run, len(got), len(want), got[:min(3, len(got))])
				}
			}
			l.Close()
		}
	}
}
