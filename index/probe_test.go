package index_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// probeCorpus returns the license texts of testdata/licenses, many of
// them near duplicates of each other, and edited copies of some.
func probeCorpus(t *testing.T) []index.Doc {
	t.Helper()
	dir := filepath.Join("..", "testdata", "licenses")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var docs []index.Doc
	for i, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, index.Doc{ID: strings.TrimSuffix(e.Name(), ".txt"), Text: b})
		if i%4 == 0 { // an exact copy and a lightly edited one
			docs = append(docs, index.Doc{ID: e.Name() + "-copy", Text: b})
			edited := strings.Replace(string(b), "the", "a", 3)
			docs = append(docs, index.Doc{ID: e.Name() + "-edit", Text: []byte(edited)})
		}
	}
	return docs
}

// TestMatcherAgreesWithQuery checks that matching probes pairwise with a
// Matcher gives exactly the answers of Query, QueryID and QueryFingerprint
// on a real index, for each method and for several options.
func TestMatcherAgreesWithQuery(t *testing.T) {
	docs := probeCorpus(t)
	for _, tc := range []struct {
		name string
		s    index.Settings
		opts []index.QueryOptions
	}{
		{"simhash", index.Settings{}, []index.QueryOptions{{}, {MaxDistance: index.ZeroDistance}, {MaxDistance: 2, Limit: 3}}},
		{"minhash", index.Settings{MinHash: true}, []index.QueryOptions{{}, {MinSimilarity: 0.3}, {MinSimilarity: 0.7, MaxDistance: 1}, {MinSimilarity: 0.5, Limit: 2}}},
		{"minhash-minbands", index.Settings{MinHash: true, MinBands: 2}, []index.QueryOptions{{MinSimilarity: 0.4}}},
		{"nshash", index.Settings{Text: index.TextSettings{Method: index.MethodNshash}}, []index.QueryOptions{{}, {MaxDistance: 3}}},
		{"short", index.Settings{Text: index.TextSettings{Method: index.MethodShort}}, []index.QueryOptions{{}, {MaxDistance: 2, Limit: 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := index.Open(filepath.Join(t.TempDir(), "x.simidx"), &index.Options{Settings: &tc.s, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if err := x.Add(docs...); err != nil {
				t.Fatal(err)
			}
			stored := make([]index.Probe, len(docs))
			for i, d := range docs {
				if stored[i], err = x.ProbeID(d.ID); err != nil {
					t.Fatal(err)
				}
				p, err := x.Probe(d.Text)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(p, stored[i]) {
					t.Fatalf("Probe(text of %s) differs from ProbeID", d.ID)
				}
			}
			brute := func(m *index.Matcher, q *index.Probe, self string) []index.Match {
				var ms []index.Match
				for i := range docs {
					if docs[i].ID == self {
						continue
					}
					if r, ok := m.Match(q, &stored[i]); ok {
						r.ID = docs[i].ID
						ms = append(ms, r)
					}
				}
				m.Sort(ms)
				if l := m.Limit(); l > 0 && len(ms) > l {
					ms = ms[:l]
				}
				return ms
			}
			total := 0
			for _, o := range tc.opts {
				m, err := x.Matcher(&o)
				if err != nil {
					t.Fatal(err)
				}
				for i, d := range docs {
					want, err := x.Query(d.Text, &o)
					if err != nil {
						t.Fatal(err)
					}
					q, _ := x.Probe(d.Text)
					if got := brute(m, &q, ""); !slices.Equal(got, want) {
						t.Fatalf("%+v: query %s: Matcher found %v, Query %v", o, d.ID, got, want)
					}
					total += len(want)
					if got, err := x.QueryProbe(&q, &o); err != nil || !slices.Equal(got, want) {
						t.Fatalf("%+v: QueryProbe %s = %v, %v; Query %v", o, d.ID, got, err, want)
					}
					want, err = x.QueryID(d.ID, &o)
					if err != nil {
						t.Fatal(err)
					}
					if got := brute(m, &stored[i], d.ID); !slices.Equal(got, want) {
						t.Fatalf("%+v: QueryID %s: Matcher found %v, QueryID %v", o, d.ID, got, want)
					}
					if o.MinSimilarity > 0 {
						continue
					}
					want, err = x.QueryFingerprint(stored[i].Fingerprint(), &o)
					if err != nil {
						t.Fatal(err)
					}
					fq := x.ProbeFingerprint(stored[i].Fingerprint())
					if got := brute(m, &fq, ""); !slices.Equal(got, want) {
						t.Fatalf("%+v: QueryFingerprint of %s: Matcher found %v, QueryFingerprint %v", o, d.ID, got, want)
					}
				}
			}
			if total <= len(docs)*len(tc.opts) {
				t.Fatalf("only %d matches in all: the corpus has too few near duplicates to test the rule", total)
			}
		})
	}
}
