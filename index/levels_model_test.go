package index_test

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

type modelDoc struct {
	text []byte
	fp   uint64
	pre  bool
}

// TestLevelsModel runs random adds, replaces, deletes, bulk and
// incremental loads and reopens against indexes with tiny RecentBands (so
// that merges run slice by slice most of the time), and compares every
// QueryID, QueryFingerprint, Len and Pairs with a brute force through
// Matcher, after every step, and runs Check. The "log" configurations add
// and delete through the write-ahead log with an applier that waits, so
// that the queries run against the pending level of the log over the
// levels of the file (Pairs then applies it). SIMIDX_MODEL_SEEDS sets the seeds per
// configuration (default 1) and SIMIDX_MODEL_STEPS the steps (default 35,
// 70 with SIMIDX_STRESS).
func TestLevelsModel(t *testing.T) {
	seeds := 1
	if s := os.Getenv("SIMIDX_MODEL_SEEDS"); s != "" {
		seeds, _ = strconv.Atoi(s)
	}
	type cfg struct {
		name   string
		st     index.Settings
		recent int
		filter bool
		mirror bool // Options.TableMirror
		log    bool // through the log, not Direct
	}
	var cfgs []cfg
	for _, r := range []int{1, 2, 3, -1} {
		cfgs = append(cfgs, cfg{fmt.Sprint("nominhash/", r), index.Settings{NoMinHash: true, ExpectedDocs: 1000}, r, false, r != 2, false})
		cfgs = append(cfgs, cfg{fmt.Sprint("minhash/", r), index.Settings{ExpectedDocs: 1000}, r, r == 2, r == 2 || r == 3, false})
		cfgs = append(cfgs, cfg{fmt.Sprint("short/", r), index.Settings{ExpectedDocs: 1000, Text: index.TextSettings{Method: index.MethodShort}}, r, false, r == 1, false})
	}
	for _, r := range []int{2, -1} {
		cfgs = append(cfgs, cfg{fmt.Sprint("log/nominhash/", r), index.Settings{NoMinHash: true, ExpectedDocs: 1000}, r, false, r == 2, true})
		cfgs = append(cfgs, cfg{fmt.Sprint("log/minhash/", r), index.Settings{ExpectedDocs: 1000}, r, r == 2, r == 2, true})
		cfgs = append(cfgs, cfg{fmt.Sprint("log/short/", r), index.Settings{ExpectedDocs: 1000, Text: index.TextSettings{Method: index.MethodShort}}, r, false, false, true})
	}
	lic := licenseDocs(t)
	for _, c := range cfgs {
		for seed := range seeds {
			t.Run(fmt.Sprint(c.name, "/", seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(seed), uint64(c.recent+100)))
				t.Parallel()
				path := filepath.Join(t.TempDir(), "a.simidx")
				st := c.st
				opts := &index.Options{Log: directLog, NoSync: true, RecentBands: c.recent, BandFilter: c.filter, TableMirror: c.mirror, Settings: &st}
				if c.log {
					opts.Log = &index.LogOptions{ApplyInterval: time.Hour, ApplyDocs: 1 << 20}
				}
				x, err := index.Open(path, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { x.Close() }()
				minhash := x.Settings().MinHash
				sets := x.Settings().Text.Method == index.MethodShort
				var qo *index.QueryOptions
				if sets {
					qo = &index.QueryOptions{MaxDistance: 3}
				}
				live := map[string]modelDoc{}
				var pool []modelDoc
				nextID := 0
				newDoc := func() modelDoc {
					if !sets && (!minhash || rng.IntN(6) == 0) {
						var fp uint64
						if len(pool) == 0 || rng.IntN(3) == 0 {
							fp = rng.Uint64()
						} else {
							fp = pool[rng.IntN(len(pool))].fp
							for range rng.IntN(5) {
								fp ^= 1 << rng.IntN(64)
							}
						}
						return modelDoc{fp: fp, pre: true}
					}
					var base string
					if len(pool) > 0 && rng.IntN(2) == 0 && pool[rng.IntN(len(pool))].text != nil {
						base = string(pool[rng.IntN(len(pool))].text)
					}
					if base == "" {
						base = string(lic[rng.IntN(len(lic))].text)
					}
					ws := strings.Fields(base)
					for range rng.IntN(4) {
						ws[rng.IntN(len(ws))] = words[rng.IntN(len(words))]
					}
					return modelDoc{text: []byte(strings.Join(ws, " "))}
				}
				probe := func(d modelDoc) index.Probe {
					if d.pre {
						return x.ProbeFingerprint(d.fp)
					}
					p, err := x.Probe(d.text)
					if err != nil {
						t.Fatal(err)
					}
					return p
				}
				toIndexDoc := func(id string, d modelDoc) index.Doc {
					if d.pre {
						return index.Doc{ID: id, Fingerprint: d.fp, Precomputed: true}
					}
					return index.Doc{ID: id, Text: d.text}
				}
				m, err := x.Matcher(qo)
				if err != nil {
					t.Fatal(err)
				}
				fmtM := func(ms []index.Match) []string {
					var out []string
					for _, mm := range ms {
						out = append(out, fmt.Sprintf("%s %d %.4f", mm.ID, mm.Distance, mm.Similarity))
					}
					sort.Strings(out)
					return out
				}
				verify := func(when string) {
					t.Helper()
					if err := x.Check(); err != nil {
						t.Fatalf("%s: Check: %v", when, err)
					}
					ids := slices.Sorted(maps.Keys(live))
					if x.Len() != len(ids) {
						t.Fatalf("%s: Len %d, want %d", when, x.Len(), len(ids))
					}
					probes := map[string]index.Probe{}
					for _, id := range ids {
						d := live[id]
						p := probe(d)
						if !d.pre {
							// The record's probe is what the index stores.
							p2, err := x.ProbeID(id)
							if err != nil {
								t.Fatalf("%s: ProbeID(%s): %v", when, id, err)
							}
							if p2.Fingerprint() != p.Fingerprint() {
								t.Fatalf("%s: %s stored fp differs", when, id)
							}
						}
						probes[id] = p
					}
					var wantPairs []string
					for i, a := range ids {
						pa := probes[a]
						var want []index.Match
						for _, b := range ids {
							if b == a {
								continue
							}
							pb := probes[b]
							if mm, ok := m.Match(&pa, &pb); ok {
								mm.ID = b
								want = append(want, mm)
							}
						}
						got, err := x.QueryID(a, qo)
						if err != nil {
							t.Fatal(err)
						}
						if g, w := fmtM(got), fmtM(want); !slices.Equal(g, w) {
							t.Fatalf("%s: QueryID(%s):\ngot  %v\nwant %v", when, a, g, w)
						}
						// by fingerprint
						got, err = x.QueryFingerprint(pa.Fingerprint(), nil)
						if err != nil {
							t.Fatal(err)
						}
						var wantFP []index.Match
						for _, b := range ids {
							pb := probes[b]
							if d := bits.OnesCount64(pa.Fingerprint() ^ pb.Fingerprint()); d <= x.Settings().MaxDistance {
								wantFP = append(wantFP, index.Match{ID: b, Distance: d})
							}
						}
						if g, w := fmtM(got), fmtM(wantFP); !slices.Equal(g, w) {
							t.Fatalf("%s: QueryFingerprint(%s):\ngot  %v\nwant %v", when, a, g, w)
						}
						for _, b := range ids[i+1:] {
							pb := probes[b]
							if mm, ok := m.Match(&pa, &pb); ok {
								wantPairs = append(wantPairs, fmt.Sprintf("%s %s %d %.4f", a, b, mm.Distance, mm.Similarity))
							}
						}
					}
					var gotPairs []string
					err := x.Pairs(context.Background(), qo, func(p index.Pair) error {
						gotPairs = append(gotPairs, fmt.Sprintf("%s %s %d %.4f", p.A, p.B, p.Distance, p.Similarity))
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					sort.Strings(gotPairs)
					sort.Strings(wantPairs)
					if !slices.Equal(gotPairs, wantPairs) {
						t.Fatalf("%s: Pairs:\ngot  %v\nwant %v", when, gotPairs, wantPairs)
					}
				}
				reopen := func() {
					if err := x.Close(); err != nil {
						t.Fatal(err)
					}
					if rng.IntN(2) == 0 {
						ro := *opts
						ro.ReadOnly = true
						if x, err = index.Open(path, &ro); err != nil {
							t.Fatal(err)
						}
						if m, err = x.Matcher(qo); err != nil {
							t.Fatal(err)
						}
						verify("read-only")
						x.Close()
					}
					if x, err = index.Open(path, opts); err != nil {
						t.Fatal(err)
					}
					if m, err = x.Matcher(qo); err != nil {
						t.Fatal(err)
					}
				}
				liveIDs := func() []string {
					ids := make([]string, 0, len(live))
					for id := range live {
						ids = append(ids, id)
					}
					sort.Strings(ids)
					return ids
				}
				steps := 35
				if stress() {
					steps = 70
				}
				if s := os.Getenv("SIMIDX_MODEL_STEPS"); s != "" {
					steps, _ = strconv.Atoi(s)
				}
				mergingSteps := 0
				for step := range steps {
					when := fmt.Sprint("step ", step)
					switch r := rng.IntN(20); {
					case r < 11: // add/replace
						var batch []index.Doc
						upd := map[string]modelDoc{}
						for range 1 + rng.IntN(5) {
							d := newDoc()
							id := fmt.Sprint("d", nextID)
							nextID++
							if ids := liveIDs(); len(ids) > 0 && rng.IntN(3) == 0 {
								id = ids[rng.IntN(len(ids))]
							}
							batch = append(batch, toIndexDoc(id, d))
							upd[id] = d
							pool = append(pool, d)
						}
						if err := x.Add(batch...); err != nil {
							t.Fatal(err)
						}
						for id, d := range upd {
							live[id] = d
						}
						when += " add"
					case r < 15: // delete
						ids := liveIDs()
						var del []string
						for range 1 + rng.IntN(3) {
							if len(ids) > 0 {
								del = append(del, ids[rng.IntN(len(ids))])
							}
						}
						if _, err := x.Delete(del...); err != nil {
							t.Fatal(err)
						}
						for _, id := range del {
							delete(live, id)
						}
						when += " delete"
					case r < 16: // delete all, then a bulk load
						if _, err := x.Delete(liveIDs()...); err != nil {
							t.Fatal(err)
						}
						clear(live)
						verify(when + " all deleted")
						fallthrough
					case r < 18: // load (bulk if empty)
						var docs []index.Doc
						upd := map[string]modelDoc{}
						for range 1 + rng.IntN(8) {
							d := newDoc()
							id := fmt.Sprint("d", nextID)
							nextID++
							if ids := liveIDs(); len(ids) > 0 && rng.IntN(4) == 0 {
								id = ids[rng.IntN(len(ids))]
							}
							docs = append(docs, toIndexDoc(id, d))
							upd[id] = d
							pool = append(pool, d)
						}
						var src iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
							for _, d := range docs {
								if !yield(d, nil) {
									return
								}
							}
						}
						if _, err := x.Load(context.Background(), src, &index.LoadOptions{BatchSize: 1 + rng.IntN(3)}); err != nil {
							t.Fatal(err)
						}
						for _, d := range docs {
							live[d.ID] = upd[d.ID]
						}
						when += " load"
					default:
						reopen()
						when += " reopen"
					}
					if index.MergeState(x) {
						mergingSteps++
					}
					verify(when)
				}
				t.Logf("steps with a merge under way: %d of %d", mergingSteps, steps)
			})
		}
	}
}
