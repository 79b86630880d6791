package index_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// probeCorpus returns the license texts of testdata/licenses, many of
// them near duplicates of each other, and edited copies of some.
func probeCorpus(t *testing.T) []index.Doc {
	t.Helper()
	var docs []index.Doc
	for i, d := range licenseTexts(t) {
		docs = append(docs, index.Doc{ID: strings.TrimSuffix(d.ID, ".txt"), Text: d.Text})
		if i%4 == 0 { // an exact copy and a lightly edited one
			docs = append(docs, index.Doc{ID: d.ID + "-copy", Text: d.Text})
			edited := strings.Replace(string(d.Text), "the", "a", 3)
			docs = append(docs, index.Doc{ID: d.ID + "-edit", Text: []byte(edited)})
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

// TestAddProbedAgreesWithAdd checks that AddProbed, given the probes of
// the texts, stores what Add stores for the texts: the same stored probe
// for every document and the same answers, for each method; and that it
// refuses probes that do not fit the index, as QueryProbe refuses those of
// indexes of other settings.
func TestAddProbedAgreesWithAdd(t *testing.T) {
	docs := probeCorpus(t)
	text := func(ts index.TextSettings) index.Settings { return index.Settings{Text: ts} }
	short := index.TextSettings{Method: index.MethodShort}
	for _, tc := range []struct {
		name    string
		s       index.Settings
		foreign []index.Settings // whose probes AddProbed must refuse
	}{
		{"simhash", index.Settings{NoMinHash: true}, []index.Settings{
			text(index.TextSettings{Method: index.MethodDOM}), text(index.TextSettings{Method: index.MethodMfonda})}},
		{"minhash", index.Settings{}, []index.Settings{
			text(index.TextSettings{Shingle: shingle.Options{Size: 3}}), text(index.TextSettings{Shingle: shingle.Options{StopWords: "en"}}),
			// Band hashes of 48 bits, not 40.
			{ExpectedDocs: 1 << 29}}},
		{"minhash-42-7", index.Settings{MinHashK: 42, Bands: 7, MinBands: 2}, []index.Settings{{}}},
		{"dom", index.Settings{Text: index.TextSettings{Method: index.MethodDOM}, MinHash: true}, []index.Settings{{}}},
		{"mfonda", index.Settings{Text: index.TextSettings{Method: index.MethodMfonda}}, []index.Settings{{NoMinHash: true}}},
		{"nshash", index.Settings{Text: index.TextSettings{Method: index.MethodNshash}}, []index.Settings{text(short)}},
		{"short", text(short), []index.Settings{{NoMinHash: true}, text(index.TextSettings{Method: index.MethodShort, Words: 30})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := newIndex(t, &tc.s), newIndex(t, &tc.s)
			if err := a.Add(docs...); err != nil {
				t.Fatal(err)
			}
			pds := make([]index.ProbedDoc, len(docs))
			for i, d := range docs {
				p, err := b.Probe(d.Text)
				if err != nil {
					t.Fatal(err)
				}
				pds[i] = index.ProbedDoc{ID: d.ID, Probe: p}
			}
			// In two commits, the second replacing a document of the first.
			if err := b.AddProbed(pds[:len(pds)/2]...); err != nil {
				t.Fatal(err)
			}
			if err := b.AddProbed(pds[len(pds)/2-1:]...); err != nil {
				t.Fatal(err)
			}
			if a.Len() != b.Len() {
				t.Fatalf("Add stored %d documents, AddProbed %d", a.Len(), b.Len())
			}
			matches := 0
			for _, d := range docs {
				pa, err := a.ProbeID(d.ID)
				if err != nil {
					t.Fatal(err)
				}
				pb, err := b.ProbeID(d.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(pa, pb) {
					t.Fatalf("%s: Add stored %+v, AddProbed %+v", d.ID, pa, pb)
				}
				wa, err := a.Query(d.Text, nil)
				if err != nil {
					t.Fatal(err)
				}
				wb, err := b.Query(d.Text, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(wa, wb) {
					t.Fatalf("query %s: %v after Add, %v after AddProbed", d.ID, wa, wb)
				}
				matches += len(wa)
			}
			if matches <= len(docs) {
				t.Fatalf("%d matches for %d documents: the queries compare too little", matches, len(docs))
			}

			// Probes that do not fit: the zero Probe, a fingerprint
			// where word sets are needed, probes of indexes of other
			// settings.
			bad := []index.ProbedDoc{{ID: "zero"}}
			if tc.s.Text.Method.IsSet() {
				bad = append(bad, index.ProbedDoc{ID: "fp", Probe: b.ProbeFingerprint(1)})
			}
			for i, fs := range tc.foreign {
				o, err := index.Open(filepath.Join(t.TempDir(), "o.simidx"), &index.Options{Settings: &fs, NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				p, err := o.Probe(docs[0].Text)
				o.Close()
				if err != nil {
					t.Fatal(err)
				}
				bad = append(bad, index.ProbedDoc{ID: fmt.Sprint("foreign", i), Probe: p})
			}
			for _, d := range bad {
				if err := b.AddProbed(d); !errors.Is(err, index.ErrSettings) {
					t.Errorf("AddProbed(%s): %v, want ErrSettings", d.ID, err)
				}
				if _, err := b.QueryProbe(&d.Probe, nil); strings.HasPrefix(d.ID, "foreign") && !errors.Is(err, index.ErrSettings) {
					t.Errorf("QueryProbe(%s): %v, want ErrSettings", d.ID, err)
				}
			}
			if n := b.Len(); n != a.Len() {
				t.Errorf("%d documents after refused probes, want %d", n, a.Len())
			}
		})
	}
}
