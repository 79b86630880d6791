package index_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simidx/simidx/index"
)

// kSetting returns the Settings.MaxDistance value for distance k.
func kSetting(k int) int {
	if k == 0 {
		return index.ZeroDistance
	}
	return k
}

// plantedCorpus returns n random fingerprints, each of the first probes
// with neighbours at every distance 0..k+2 (two at distance 0).
func plantedCorpus(rng *rand.Rand, n, probes, k int) (*corpus, []uint64) {
	c := &corpus{}
	var qs []uint64
	for i := range probes {
		fp := rng.Uint64()
		if i%2 == 0 {
			c.add(fp)
		}
		qs = append(qs, fp)
		c.add(fp) // identical, different ID
		for d := 1; d <= k+2; d++ {
			c.add(flip(rng, fp, d))
		}
	}
	for len(c.fps) < n {
		c.add(rng.Uint64())
	}
	return c, qs
}

func sameMatches(t *testing.T, what string, got, want []index.Match) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %d matches %v, want %d %v", what, len(got), got, len(want), want)
	}
}

// TestQueryExact checks Query against an exhaustive scan for every k, with
// the default design and with one of many tables, loaded in bulk and
// online.
func TestQueryExact(t *testing.T) {
	for k := 0; k <= index.MaxMaxDistance; k++ {
		for _, expect := range []int{2000, 1e8} {
			t.Run(fmt.Sprintf("k=%d/n=%g", k, float64(expect)), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(uint64(k), uint64(expect)))
				c, qs := plantedCorpus(rng, 2000, 40, k)
				x := newIndex(t, &index.Settings{MaxDistance: kSetting(k), ExpectedDocs: expect})
				// Half in bulk, half online.
				half := &corpus{ids: c.ids[:1000], fps: c.fps[:1000]}
				if _, err := x.Load(context.Background(), half.docs(), nil); err != nil {
					t.Fatal(err)
				}
				var docs []index.Doc
				for i := 1000; i < len(c.ids); i++ {
					docs = append(docs, index.Doc{ID: c.ids[i], Fingerprint: c.fps[i], Precomputed: true})
				}
				if err := x.Add(docs...); err != nil {
					t.Fatal(err)
				}
				if x.Len() != len(c.ids) {
					t.Fatalf("Len = %d, want %d", x.Len(), len(c.ids))
				}
				for _, q := range append(qs, rng.Uint64(), rng.Uint64()) {
					for d := 0; d <= k; d++ {
						opts := &index.QueryOptions{MaxDistance: kSetting(d)}
						got, err := x.QueryFingerprint(q, opts)
						if err != nil {
							t.Fatal(err)
						}
						sameMatches(t, fmt.Sprintf("query %016x d=%d", q, d), got, c.brute(q, d))
					}
				}
				if err := x.Check(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
