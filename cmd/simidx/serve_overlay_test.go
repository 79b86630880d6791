package main

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestOverlayChunks checks the chunked index of the overlay against a scan
// of every pending operation: the same matches, the same latest operation
// per ID, through many small publishes (with replaces and deletes) and a
// drop, with O(log n) chunks (2n/most more when chunks are merged up to
// most operations, each then more than half full), and views taken earlier
// unchanged by later merges; and all of it again with IDs whose keys
// collide (four keys for forty IDs).
func TestOverlayChunks(t *testing.T) {
	for _, tc := range []struct {
		s       index.Settings
		most    int  // chunkMax
		collide bool // idKey has two bits
	}{{index.Settings{}, overlayChunkMax, false}, {index.Settings{}, 16, false}, {index.Settings{NoMinHash: true}, overlayChunkMax, false},
		{index.Settings{Text: index.TextSettings{Method: index.MethodShort}}, overlayChunkMax, false},
		{index.Settings{}, 16, true}} {
		s := tc.s
		t.Run(fmt.Sprint(s.NoMinHash, s.Text.Method, tc.most, tc.collide), func(t *testing.T) {
			if tc.collide {
				idKeyMask = 3
				defer func() { idKeyMask = ^uint64(0) }()
			}
			x, err := index.Open(filepath.Join(t.TempDir(), "o.simidx"), &index.Options{NoSync: true, Settings: &s})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			rng := rand.New(rand.NewPCG(1, 2))
			var pool []string
			for range 60 {
				ws := make([]string, 40)
				for i := range ws {
					ws[i] = fmt.Sprint("word", rng.IntN(300))
				}
				pool = append(pool, strings.Join(ws, " "))
			}
			edit := func(s string) string {
				ws := strings.Fields(s)
				ws[rng.IntN(len(ws))] = "edited"
				return strings.Join(ws, " ")
			}
			probe := func(text string) index.Probe {
				p, err := x.Probe([]byte(text))
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			o := newOverlay(0)
			o.chunkMax = tc.most
			var seq []*pendingOp
			matched := 0
			var extra []*pendingOp // operations a view made by with adds
			var kept *overlayView
			check := func(when string, v *overlayView) {
				t.Helper()
				all := append(slices.Clip(v.ops), extra...)
				if n := len(all); n != v.len() {
					t.Errorf("%s: len %d, want %d", when, v.len(), n)
				}
				if n := len(all); n > 0 && len(v.chunks) > 2*bits.Len(uint(min(n, tc.most)))+2*n/tc.most+2 {
					t.Errorf("%s: %d chunks for %d operations", when, len(v.chunks), n)
				}
				for _, opts := range []index.QueryOptions{{}, {MinSimilarity: index.NoMinSimilarity}, {MaxDistance: 1}} {
					if s.NoMinHash && opts.MinSimilarity != 0 {
						continue
					}
					m, err := x.Matcher(&opts)
					if err != nil {
						t.Fatal(err)
					}
					for qi := range 20 {
						text := pool[rng.IntN(len(pool))]
						if qi%2 == 1 {
							text = edit(text)
						}
						q := probe(text)
						got := v.matches(m, &q, "")
						var want []index.Match
						for i, op := range all {
							if op.del {
								continue
							}
							later := slices.ContainsFunc(all[i+1:], func(p *pendingOp) bool { return p.id == op.id })
							if r, ok := m.Match(&q, &op.probe); ok && !later {
								r.ID = op.id
								want = append(want, r)
							}
						}
						byID := func(a, b index.Match) int { return cmp.Compare(a.ID, b.ID) }
						slices.SortFunc(got, byID)
						slices.SortFunc(want, byID)
						if !slices.Equal(got, want) {
							t.Fatalf("%s, %+v: chunks found %v, a scan %v", when, opts, got, want)
						}
						matched += len(want)
					}
				}
				for id := range 40 {
					name := fmt.Sprint("d", id)
					var want *pendingOp
					for _, op := range all {
						if op.id == name {
							want = op
						}
					}
					if got := v.latest(name); got != want {
						t.Fatalf("%s: latest(%s) = %v, want %v", when, name, got, want)
					}
				}
			}
			for g := range 300 {
				var group []*pendingOp
				for range 1 + rng.IntN(4) {
					id := fmt.Sprint("d", rng.IntN(40))
					if rng.IntN(8) == 0 {
						group = append(group, &pendingOp{id: id, del: true, net: -1})
						continue
					}
					text := pool[rng.IntN(len(pool))]
					if rng.IntN(2) == 0 {
						text = edit(text)
					}
					group = append(group, &pendingOp{id: id, text: []byte(text), probe: probe(text), net: 1})
				}
				o.publish(group)
				seq = append(seq, group...)
				if g%75 == 74 {
					check(fmt.Sprint("after ", g+1, " groups"), o.snapshot())
				}
				if g == 149 {
					kept = o.snapshot()
				}
			}
			// Merges of later chunks leave the chunks of earlier views as
			// they were.
			check("a view taken before later merges", kept)
			// Drops keep the chunks after the dropped operations and
			// rebuild the one they cut.
			o.drop(seq[len(seq)/3].seq, 0)
			check("after a drop", o.snapshot())
			o.drop(seq[len(seq)/2].seq, 0)
			check("after a second drop", o.snapshot())
			// Views extended by a growing group, as the writer's checks
			// see them: grown one operation at a time, then cut back (a
			// failed request) and grown again.
			base := o.snapshot()
			gv := groupView{base: base}
			var group []*pendingOp
			for i := range 12 {
				if i == 8 {
					group = group[:3]
				}
				text := edit(pool[rng.IntN(len(pool))])
				group = append(group, &pendingOp{id: fmt.Sprint("d", rng.IntN(40)), text: []byte(text), probe: probe(text), net: 1})
				extra = group
				check(fmt.Sprint("extended by a group of ", len(group)), gv.with(group))
			}
			if v := gv.with(group); v.documents() != base.documents()+len(group) {
				t.Errorf("a group of %d adds: %d documents, want %d", len(group), v.documents(), base.documents()+len(group))
			}
			// A view extended by with.
			extra = []*pendingOp{{id: "d1", text: []byte(pool[0]), probe: probe(pool[0]), net: 0}}
			o.view.Store(o.snapshot().with(extra))
			check("extended by with", o.snapshot())
			if matched == 0 {
				t.Fatal("no query matched a pending document: the test compares nothing")
			}
		})
	}
}

// BenchmarkOverlayPublish measures what the writer spends to publish
// pending adds of texts of 30 to 80 words, in groups of 5 (the groups of a
// loaded server) up to 4,096 pending, then dropped as the applier does;
// ns/op is per group of 5.
func BenchmarkOverlayPublish(b *testing.B) {
	_, ps := benchProbes(b, 4096, 3)
	ops := make([]*pendingOp, len(ps))
	for i, p := range ps {
		ops[i] = &pendingOp{id: fmt.Sprint("d", i), probe: p, net: 1}
	}
	b.ReportAllocs()
	o := newOverlay(0)
	for i := 0; b.Loop(); i++ {
		k := 5 * i % len(ops)
		if k+5 > len(ops) {
			o.drop(o.lastSeq(), 0)
			continue
		}
		group := make([]*pendingOp, 5)
		for j := range group {
			op := *ops[k+j]
			group[j] = &op
		}
		o.publish(group)
	}
}

// BenchmarkOverlayMatches measures what a query spends on the pending adds:
// the candidates and matches of a text of 30 to 80 words among 1,000
// pending adds published in groups of 5, as a loaded server holds them
// between two commits to the index; ns/op is per query.
func BenchmarkOverlayMatches(b *testing.B) {
	x, ps := benchProbes(b, 1000+64, 5)
	o := newOverlay(0)
	for g := range 200 {
		group := make([]*pendingOp, 5)
		for j := range group {
			group[j] = &pendingOp{id: fmt.Sprint("d", 5*g+j), probe: ps[5*g+j], net: 1}
		}
		o.publish(group)
	}
	qs := ps[1000:]
	m, err := x.Matcher(nil)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, 2000) // half pending, half not
	for i := range ids {
		ids[i] = fmt.Sprint("d", i)
	}
	v := o.snapshot()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		v.matches(m, &qs[i%len(qs)], "")
		v.has(ids[i%len(ids)])
	}
}

// benchProbes opens an index with the default settings (closed when b
// ends) and returns it with the probes of n texts of 30 to 80 words drawn
// from 5,000, from the random generator seeded with seed.
func benchProbes(b *testing.B, n int, seed uint64) (*index.Index, []index.Probe) {
	b.Helper()
	x, err := index.Open(filepath.Join(b.TempDir(), "o.simidx"), &index.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ps := make([]index.Probe, n)
	for i := range ps {
		ws := make([]string, 30+rng.IntN(51))
		for j := range ws {
			ws[j] = fmt.Sprint("w", rng.IntN(5000))
		}
		if ps[i], err = x.Probe([]byte(strings.Join(ws, " "))); err != nil {
			b.Fatal(err)
		}
	}
	return x, ps
}
