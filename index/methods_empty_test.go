package index_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestEmptyAndExactEveryMethod checks, under every method, with and
// without MinHash where the method allows it, that texts without words
// match nothing (pairs, clusters, queries), whatever their markup or bytes,
// and that exact copies are found by Pairs as by Query even where their
// fingerprints differ (dom: the same words in other markup; mfonda: the
// same words in other case and spacing).
func TestEmptyAndExactEveryMethod(t *testing.T) {
	t.Parallel()
	words := "Red mountain bicycle for sale, twenty one gears, hardly used, new tyres and lights, collect in Leeds"
	docs := []index.Doc{
		{ID: "e1", Text: []byte("<b></b>")},
		{ID: "e2", Text: []byte("<b></b>")},
		{ID: "e3", Text: []byte("__")},
		{ID: "e4", Text: []byte("<html><body><table><tr><td><img src=x></td></tr></table></body></html>")},
		{ID: "e5", Text: []byte("<html><body><table><tr><td><img src=y></td></tr></table></body></html>")},
		{ID: "w1", Text: []byte("<html><body><p>" + words + "</p></body></html>")},
		{ID: "w2", Text: []byte("<div><ul><li><span>" + strings.ToUpper(words) + "</span></li></ul></div>")},
		{ID: "w3", Text: []byte(strings.ReplaceAll(words, " ", "   "))},
	}
	for i := range 30 {
		docs = append(docs, index.Doc{ID: fmt.Sprintf("other%02d", i), Text: []byte(fmt.Sprintf("<p>filler text number %d about something else %d</p>", i, i*i))})
	}
	for _, c := range []struct {
		method  index.Method
		minhash bool
	}{
		{index.MethodSimhash, true}, {index.MethodSimhash, false},
		{index.MethodDOM, false}, {index.MethodDOM, true},
		{index.MethodMfonda, false}, {index.MethodMfonda, true},
		{index.MethodNshash, false}, {index.MethodShort, false},
	} {
		t.Run(fmt.Sprintf("%s minhash=%v", c.method, c.minhash), func(t *testing.T) {
			s := &index.Settings{ExpectedDocs: 1000, Text: index.TextSettings{Method: c.method}}
			if c.minhash {
				s.MinHash = true
			} else if !c.method.IsSet() {
				s.NoMinHash = true
			}
			x := newIndex(t, s)
			st, err := x.Load(context.Background(), seqDocs(docs), nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.Empty != 5 {
				t.Errorf("%d empty, want 5", st.Empty)
			}
			for _, opts := range []*index.QueryOptions{nil, {MaxDistance: index.ZeroDistance}} {
				var pairs []string
				err := x.Pairs(context.Background(), opts, func(p index.Pair) error {
					pairs = append(pairs, p.A+"-"+p.B)
					if p.A[0] == 'e' || p.B[0] == 'e' {
						t.Errorf("pair of an empty text: %+v", p)
					}
					if p.A[0] == 'w' && p.B[0] == 'w' && !p.Exact {
						t.Errorf("exact copies not flagged: %+v", p)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				// The copies with the same words are found by Pairs
				// whenever Query finds them.
				for _, a := range []string{"w1", "w2", "w3"} {
					ms, err := x.QueryID(a, opts)
					if err != nil {
						t.Fatal(err)
					}
					for _, m := range ms {
						k := min(a, m.ID) + "-" + max(a, m.ID)
						if !slices.Contains(pairs, k) {
							t.Errorf("%+v: QueryID(%s) finds %+v, Pairs does not (%v)", opts, a, m, pairs)
						}
					}
				}
				var clustered []string
				x.Clusters(context.Background(), opts, func(c index.Cluster) error {
					clustered = append(clustered, c.IDs...)
					return nil
				})
				for _, id := range clustered {
					if id[0] == 'e' {
						t.Errorf("%+v: empty text %s in a cluster", opts, id)
					}
				}
			}
			for _, id := range []string{"e1", "e3", "e4"} {
				if ms, err := x.QueryID(id, nil); err != nil || len(ms) != 0 {
					t.Errorf("QueryID(%s) = %v, %v", id, ms, err)
				}
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
