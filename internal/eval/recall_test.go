package eval_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// licenseDocs returns the sample licence texts as documents.
func licenseDocs(t *testing.T) []index.Doc {
	t.Helper()
	names, err := filepath.Glob("../../testdata/licenses/*.txt")
	if err != nil || len(names) < 10 {
		t.Fatalf("%d sample texts: %v", len(names), err)
	}
	var docs []index.Doc
	for _, n := range names {
		text, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, index.Doc{ID: filepath.Base(n), Text: text})
	}
	return docs
}

func seq(docs []index.Doc) func(func(index.Doc, error) bool) {
	return func(yield func(index.Doc, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// TestSample checks that the sample holds n documents of at least the
// shingles asked for, all of them when there are fewer.
func TestSample(t *testing.T) {
	docs := licenseDocs(t)
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	s := eval.Sample(seq(docs), f, rng, 5, 50)
	if len(s) != 5 {
		t.Fatalf("%d documents sampled, want 5", len(s))
	}
	for _, d := range s {
		if n := len(f.Shingles(d.Text)); n < 50 {
			t.Errorf("%s: %d shingles, fewer than 50", d.ID, n)
		}
	}
	if s := eval.Sample(seq(docs[:3]), f, rng, 10, 0); len(s) != 3 {
		t.Errorf("%d of 3 documents sampled, want all", len(s))
	}
}

// TestMeasureRecall checks the pairs measured and their rows: one planted
// pair per document, edit and rate, unrelated pairs below a Jaccard
// similarity of 0.3, shares within k that grow with k, and the same
// figures for the same seed.
func TestMeasureRecall(t *testing.T) {
	docs := licenseDocs(t)[:8]
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []eval.Edit{eval.Substitute, eval.Crop}
	rates := []float64{0.02, 0.2}
	measure := func() *eval.Recall {
		return eval.MeasureRecall(context.Background(), f, docs, kinds, rates, index.DefaultMinSimilarity, 20, rand.New(rand.NewPCG(7, 7)))
	}
	r := measure()
	if !r.MinHash || len(r.Planted) != len(docs)*len(kinds)*len(rates) {
		t.Fatalf("MinHash %v, %d planted pairs", r.MinHash, len(r.Planted))
	}
	for _, p := range r.Unrelated {
		if p.Jaccard >= 0.3 || p.Edit != -1 {
			t.Errorf("unrelated pair %+v", p)
		}
	}
	rows := r.Rows(true)
	planted, edits := 0, 0
	for _, row := range rows {
		if len(row.WithinK) != eval.MaxK+1 {
			t.Fatalf("%d shares within k", len(row.WithinK))
		}
		for k := 1; k <= eval.MaxK; k++ {
			if row.WithinK[k] < row.WithinK[k-1] {
				t.Errorf("%s: within %d bits %v, less than within %d", row.Group, k, row.WithinK[k], k-1)
			}
		}
		switch {
		case row.Group == "edit":
			edits++
		case row.JaccardLo != nil:
			planted += row.Pairs
		}
	}
	if planted != len(r.Planted) || edits != len(kinds)*len(rates) || rows[len(rows)-1].Group != "unrelated" {
		t.Errorf("%d planted pairs in the Jaccard rows, %d edit rows, last row %q", planted, edits, rows[len(rows)-1].Group)
	}
	if !reflect.DeepEqual(measure(), r) {
		t.Error("the same seed gave other figures")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := eval.MeasureRecall(ctx, f, docs, kinds, rates, index.DefaultMinSimilarity, 20, rand.New(rand.NewPCG(7, 7))); len(r.Planted) != 0 {
		t.Errorf("%d pairs measured after ctx was done", len(r.Planted))
	}
}
