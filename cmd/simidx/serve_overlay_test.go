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
// drop, with O(log n) chunks.
func TestOverlayChunks(t *testing.T) {
	for _, s := range []index.Settings{{}, {NoMinHash: true}, {Text: index.TextSettings{Method: index.MethodShort}}} {
		t.Run(fmt.Sprint(s.NoMinHash, s.Text.Method), func(t *testing.T) {
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
			var seq []*pendingOp
			matched := 0
			var extra []*pendingOp // operations a view made by with adds
			check := func(when string) {
				t.Helper()
				v := o.snapshot()
				all := append(slices.Clip(v.ops), extra...)
				if n := len(all); n != v.len() {
					t.Errorf("%s: len %d, want %d", when, v.len(), n)
				}
				if n := len(all); n > 0 && len(v.chunks) > 2*bits.Len(uint(n))+2 {
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
					check(fmt.Sprint("after ", g+1, " groups"))
				}
			}
			o.drop(seq[len(seq)/2].seq, 0)
			check("after a drop")
			// A view extended by with, as the writer's checks see it.
			extra = []*pendingOp{{id: "d1", text: []byte(pool[0]), probe: probe(pool[0]), net: 0}}
			o.view.Store(o.snapshot().with(extra))
			check("extended by with")
			if matched == 0 {
				t.Fatal("no query matched a pending document: the test compares nothing")
			}
		})
	}
}
