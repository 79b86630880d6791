package index_test

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestDefaultQuery checks the rule of the default index and query against
// brute force over the licence texts: a document matches when its estimated
// Jaccard similarity reaches DefaultMinSimilarity and it is within k bits or
// shares a band; a query that sets MaxDistance alone, or NoMinSimilarity,
// gets the fingerprint rule alone; Pairs(nil) reports the pairs the queries
// find, each once.
func TestDefaultQuery(t *testing.T) {
	t.Parallel()
	docs := licenseTexts(t)
	x := newIndex(t, nil)
	if st := x.Settings(); !st.MinHash || st.NoMinHash {
		t.Fatalf("default settings without MinHash: %+v", st)
	}
	if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
		t.Fatal(err)
	}
	fpr, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	type an struct{ fp, sig, bands, short []uint64 }
	ans := make([]an, len(docs))
	for i, d := range docs {
		fp, sig, bands := fpr.Analyze(d.Text)
		ans[i] = an{[]uint64{fp}, slices.Clone(sig), slices.Clone(bands), slices.Clone(fpr.Short(d.Text))}
	}

	k := index.DefaultMaxDistance
	want := map[string]bool{}
	total := 0
	for i := range docs {
		var sim, fpRule []string
		for j := range docs {
			if i == j {
				continue
			}
			d := bits.OnesCount64(ans[i].fp[0] ^ ans[j].fp[0])
			shared := sharedBands(ans[i].bands, ans[j].bands) > 0
			if (d <= k || shared) && layerSimilarity(ans[i].sig, ans[i].short, ans[j].sig, ans[j].short) >= index.DefaultMinSimilarity {
				sim = append(sim, docs[j].ID)
				if i < j {
					want[docs[i].ID+"/"+docs[j].ID] = true
				}
			}
			if d <= k {
				fpRule = append(fpRule, docs[j].ID)
			}
		}
		total += len(sim)
		for _, c := range []struct {
			name string
			opts *index.QueryOptions
			want []string
		}{
			{"nil", nil, sim},
			{"explicit threshold", &index.QueryOptions{MinSimilarity: index.DefaultMinSimilarity}, sim},
			{"MaxDistance alone", &index.QueryOptions{MaxDistance: k}, fpRule},
			{"NoMinSimilarity", &index.QueryOptions{MinSimilarity: index.NoMinSimilarity}, fpRule},
		} {
			ms, err := x.QueryID(docs[i].ID, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.ID)
			}
			slices.Sort(got)
			w := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, w) {
				t.Errorf("QueryID(%s, %s) = %v, brute force %v", docs[i].ID, c.name, got, w)
			}
		}
	}
	if total == 0 {
		t.Fatal("no near duplicates among the licences")
	}
	got := map[string]bool{}
	err = x.Pairs(context.Background(), nil, func(p index.Pair) error {
		key := fmt.Sprintf("%s/%s", p.A, p.B)
		if got[key] {
			t.Errorf("pair %s twice", key)
		}
		got[key] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range want {
		if !got[p] {
			t.Errorf("Pairs(nil) misses %s", p)
		}
	}
	for p := range got {
		if !want[p] {
			t.Errorf("Pairs(nil) reports %s, which brute force does not", p)
		}
	}
}
