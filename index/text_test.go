package index_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

func TestTextQueries(t *testing.T) {
	for _, minhash := range []bool{false, true} {
		t.Run(fmt.Sprint("minhash=", minhash), func(t *testing.T) {
			x := newIndex(t, &index.Settings{NoMinHash: !minhash, ExpectedDocs: 1000})
			docs := []index.Doc{
				{ID: "empty1", Text: nil},
				{ID: "empty2", Text: []byte{}},
				{ID: "short1", Text: []byte("a")},
				{ID: "short2", Text: []byte("a")},
				{ID: "long1", Text: []byte("It was the best of times, it was the worst of times, it was the age of wisdom")},
				{ID: "long2", Text: []byte("It was the best of times, it was the worst of times, it was the age of wisdom")},
			}
			for i := range 50 {
				docs = append(docs, index.Doc{ID: fmt.Sprintf("other%02d", i), Text: []byte(fmt.Sprintf("filler document %d with its own words %d %d", i, i*i, i*7))})
			}
			var empties []string
			st, err := x.Load(context.Background(), seqDocs(docs), &index.LoadOptions{Empty: func(id string) { empties = append(empties, id) }})
			if err != nil {
				t.Fatal(err)
			}
			// Texts without words are stored, counted and named, and
			// match nothing: not each other, not an empty query.
			if st.Empty != 2 || st.ExactDuplicates != 2 || fmt.Sprint(empties) != "[empty1 empty2]" {
				t.Fatalf("load stats %+v, empties %v", st, empties)
			}
			if xs, err := x.Stats(); err != nil || xs.Empty != 2 || xs.Docs != len(docs) {
				t.Fatalf("stats: %d empty of %d, %v", xs.Empty, xs.Docs, err)
			}
			for _, q := range [][]byte{nil, []byte(" -- "), []byte("。")} {
				if ms, err := x.Query(q, &index.QueryOptions{MaxDistance: 3}); err != nil || len(ms) != 0 {
					t.Fatalf("Query(%q) = %v, %v", q, ms, err)
				}
			}
			for _, id := range empties {
				if ms, err := x.QueryID(id, nil); err != nil || len(ms) != 0 {
					t.Fatalf("QueryID(%s) = %v, %v", id, ms, err)
				}
			}
			for _, pair := range [][2]string{{"short1", "short2"}, {"long1", "long2"}} {
				ms, err := x.QueryID(pair[0], nil)
				if err != nil {
					t.Fatal(err)
				}
				found := false
				for _, m := range ms {
					if m.ID == pair[0] {
						t.Fatalf("QueryID(%s) returned itself", pair[0])
					}
					if m.ID == pair[1] {
						found = true
						if m.Distance != 0 || (minhash && m.Similarity != 1) || !m.Exact {
							t.Fatalf("exact duplicate %s: %+v", pair[1], m)
						}
					}
				}
				if !found {
					t.Fatalf("QueryID(%s) = %v, missing %s", pair[0], ms, pair[1])
				}
			}
			ms, err := x.Query(docs[4].Text, &index.QueryOptions{Limit: 1})
			if err != nil || len(ms) != 1 || ms[0].ID != "long1" {
				t.Fatalf("Query with limit 1 = %v, %v", ms, err)
			}
			if minhash {
				ms, err := x.Query(docs[4].Text, &index.QueryOptions{MinSimilarity: 0.9})
				if err != nil {
					t.Fatal(err)
				}
				if len(ms) != 2 || ms[0].ID != "long1" || ms[1].ID != "long2" || ms[0].Similarity != 1 {
					t.Fatalf("similarity query = %v", ms)
				}
			}
			// A document added by fingerprint has no signature: it is
			// matched by the fingerprint rule alone, whatever the
			// similarity threshold, and so are queries by its ID.
			long1, err := x.Get("long1")
			if err != nil {
				t.Fatal(err)
			}
			if err := x.AddFingerprint("fp", long1.Fingerprint^1); err != nil {
				t.Fatal(err)
			}
			for _, o := range []*index.QueryOptions{nil, {MinSimilarity: 0.9}, {MinSimilarity: index.NoMinSimilarity}} {
				if !minhash && o != nil && o.MinSimilarity > 0 {
					continue
				}
				ms, err := x.Query(docs[4].Text, o)
				if err != nil || len(ms) != 3 || ms[2].ID != "fp" || ms[2].Distance != 1 || ms[2].Similarity != 0 {
					t.Fatalf("Query(%+v) with a precomputed document = %v, %v", o, ms, err)
				}
			}
			ms, err = x.QueryID("fp", nil)
			if err != nil || len(ms) != 2 || ms[0].ID != "long1" || ms[1].ID != "long2" {
				t.Fatalf("QueryID(fp) = %v, %v", ms, err)
			}
			if minhash {
				if _, err := x.QueryID("fp", &index.QueryOptions{MinSimilarity: 0.5}); !errors.Is(err, index.ErrSettings) {
					t.Fatalf("QueryID(fp) with an explicit threshold: %v", err)
				}
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			pairs := map[string]bool{}
			err = x.Pairs(context.Background(), &index.QueryOptions{MaxDistance: index.ZeroDistance}, func(p index.Pair) error {
				pairs[p.A+"/"+p.B] = true
				if minhash && p.Similarity != 1 && p.A[:4] == p.B[:4] {
					t.Fatalf("pair %+v", p)
				}
				if p.Exact != (p.A[:4] == p.B[:4]) {
					t.Fatalf("pair %+v: exact copies are short1/short2 and long1/long2", p)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"short1/short2", "long1/long2"} {
				if !pairs[p] {
					t.Fatalf("pairs %v missing %s", pairs, p)
				}
			}
			for p := range pairs {
				if strings.HasPrefix(p, "empty") || strings.Contains(p, "/empty") {
					t.Fatalf("pair %s of an empty text", p)
				}
			}
			if minhash {
				n := 0
				err := x.Pairs(context.Background(), &index.QueryOptions{MinSimilarity: 0.99}, func(p index.Pair) error { n++; return nil })
				if err != nil || n < 3 {
					t.Fatalf("similarity pairs: %d, %v", n, err)
				}
			}
			if _, err := x.Delete("long2"); err != nil {
				t.Fatal(err)
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
