package dedup

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/stats"
)

// Config is a dedup pipeline: the rule, the inputs, and where and what it
// writes.
type Config struct {
	Rule Rule
	// Files are the inputs, from ListInputs.
	Files []File
	// IDField and TextField are the JSON fields of JSON lines.
	IDField, TextField string
	// Output is the directory (or prefix, with a scheme) the JSON lines
	// are written to: pairs.jsonl, clusters.jsonl, keep.jsonl, drop.jsonl.
	Output string
	// Emit are the outputs written: pairs, clusters, keep, drop.
	Emit []string
	// MaxGroup is the most distinct texts of one table or band key
	// compared on one worker; a larger group is split into blocks.
	MaxGroup int
	// Rounds are the large-star/small-star rounds of the connected
	// components.
	Rounds int
}

// Outputs of the pipeline.
var Outputs = []string{"pairs", "clusters", "keep", "drop"}

// DefaultMaxGroup is the default Config.MaxGroup: a group of 2,000 texts
// is 2 million comparisons, about 10 ms.
const DefaultMaxGroup = 2000

// DefaultRounds is the default Config.Rounds.
const DefaultRounds = 6

// Build adds the dedup pipeline of c to s.
func Build(s beam.Scope, c Config) error {
	if c.MaxGroup < 2 {
		return fmt.Errorf("max group %d: at least 2", c.MaxGroup)
	}
	if c.Rounds < 1 {
		return fmt.Errorf("--cc-rounds %d: at least 1", c.Rounds)
	}
	emit := map[string]bool{}
	for _, e := range c.Emit {
		switch e {
		case "pairs", "clusters", "keep", "drop":
			emit[e] = true
		default:
			return fmt.Errorf("--emit must be a list of pairs, clusters, keep and drop, not %q", e)
		}
	}
	r := c.Rule
	files := beam.CreateList(s.Scope("read"), c.Files)
	docs := beam.ParDo(s.Scope("read"), &readFn{IDField: c.IDField, TextField: c.TextField}, files)

	rs := s.Scope("rename")
	renames := beam.ParDo(rs, renameFn, beam.GroupByKey(rs, beam.ParDo(rs, uniqueKeyFn, docs)))
	infos := beam.ParDo(s.Scope("analyse"), &analyzeFn{Rule: r}, docs, beam.SideInput{Input: renames})
	n := stats.CountElms(s, infos)

	cs := s.Scope("collapse")
	groups := beam.DropKey(cs, beam.CombinePerKey(cs, collapseFn{}, beam.ParDo(cs, exactKeyFn, infos)))
	reps := beam.ParDo(cs, repFn, groups)

	ks := s.Scope("keys")
	counts := beam.CombinePerKey(ks, sumInts, beam.ParDo(ks, &countKeysFn{Rule: r}, reps, beam.SideInput{Input: n}))
	hot := beam.ParDo(ks, &hotFn{MaxGroup: c.MaxGroup}, counts)
	keyed := beam.ParDo(ks, &keysFn{Rule: r, MaxGroup: c.MaxGroup}, reps, beam.SideInput{Input: n}, beam.SideInput{Input: hot})
	cands := beam.ParDo(ks, &groupFn{Rule: r}, beam.GroupByKey(ks, keyed), beam.SideInput{Input: n})

	var pairs beam.PCollection
	vs := s.Scope("verify")
	if r.Settings.MinHash {
		sigs := beam.ParDo(vs, sigFn, reps)
		halves := beam.ParDo(vs, verifyAFn, beam.CoGroupByKey(vs, sigs, cands))
		pairs = beam.ParDo(vs, &verifyBFn{MinSim: r.MinSim}, beam.CoGroupByKey(vs, halves, sigs))
	} else {
		pairs = beam.ParDo(vs, candPairFn, cands)
	}

	var writes []write
	if emit["pairs"] {
		ps := s.Scope("pairs")
		copies := beam.ParDo(ps, copiesFn, groups)
		halves := beam.ParDo(ps, pairsAFn, beam.CoGroupByKey(ps, beam.ParDo(ps, pairByAFn, pairs), copies))
		lines := beam.ParDo(ps, &pairsBFn{Sim: r.Settings.MinHash}, beam.CoGroupByKey(ps, halves, copies))
		within := beam.ParDo(ps, &copyPairsFn{Sim: r.Settings.MinHash}, groups)
		writes = append(writes, write{"pairs", beam.Flatten(ps, lines, within)})
	}
	if emit["clusters"] || emit["keep"] || emit["drop"] {
		labels := components(s, pairs, c.Rounds)
		ls := s.Scope("clusters")
		bySeq := beam.ParDo(ls, groupBySeqFn, groups)
		nodes := beam.ParDo(ls, nodeFn, beam.CoGroupByKey(ls, labels, bySeq))
		edges := beam.ParDo(ls, edgeLabelFn, beam.CoGroupByKey(ls, labels, beam.ParDo(ls, pairByAFn, pairs)))
		clusters, drops := beam.ParDo2(ls, &clusterFn{Rule: r, Rounds: c.Rounds}, beam.CoGroupByKey(ls, nodes, edges))
		if emit["clusters"] {
			nums := beam.ParDo(ls, numberFn, beam.GroupByKey(ls, beam.AddFixedKey(ls, beam.ParDo(ls, clusterRepFn, clusters))))
			lines := beam.ParDo(ls, numberedFn, beam.CoGroupByKey(ls, nums, beam.ParDo(ls, clusterByRepFn, clusters)))
			writes = append(writes, write{"clusters", lines})
		}
		if emit["keep"] || emit["drop"] {
			keeps, dropped := beam.ParDo2(ls, keepDropFn, beam.CoGroupByKey(ls, beam.ParDo(ls, idBySeqFn, infos), beam.ParDo(ls, idBySeqFn2, drops)))
			if emit["keep"] {
				writes = append(writes, write{"keep", keeps})
			}
			if emit["drop"] {
				writes = append(writes, write{"drop", dropped})
			}
		}
	}
	for _, w := range writes {
		ws := s.Scope("write-" + w.name)
		// A file is written even when there are no lines: the lines meet
		// a marker under one key.
		marker := beam.AddFixedKey(ws, beam.Create(ws, true))
		beam.ParDo0(ws, &writeFn{Path: joinPath(c.Output, w.name+".jsonl")},
			beam.CoGroupByKey(ws, marker, beam.AddFixedKey(ws, w.lines)))
	}
	return nil
}

type write struct {
	name  string
	lines beam.PCollection
}

// joinPath joins a directory (local, or with a scheme) and a file name.
func joinPath(dir, name string) string {
	return strings.TrimRight(dir, "/") + "/" + name
}

func exactKeyFn(in Info, emit func(uint64, Info)) {
	if !in.Empty {
		emit(in.Exact, in)
	}
}

func repFn(g Group) Info { return g.Rep }

func sumInts(a, b int) int { return a + b }

// hotFn keeps the keys of more than MaxGroup texts.
type hotFn struct {
	MaxGroup int
}

func (fn *hotFn) ProcessElement(key string, c int, emit func(string, int)) {
	if c > fn.MaxGroup {
		emit(key, c)
	}
}

func sigFn(in Info) (uint64, Sig) { return in.Seq, Sig{Sig: in.Sig, Short: in.Short} }

func pairByAFn(p RepPair) (uint64, RepPair) { return p.A, p }

func copiesFn(g Group) (uint64, Copies) { return g.Rep.Seq, Copies{Members: g.Members} }

func groupBySeqFn(g Group) (uint64, Group) { return g.Rep.Seq, g }

func clusterRepFn(c ClusterOut) string { return c.Representative }

func clusterByRepFn(c ClusterOut) (string, ClusterOut) { return c.Representative, c }

func idBySeqFn(in Info) (uint64, string) { return in.Seq, in.ID }

func idBySeqFn2(d IDSeq) (uint64, bool) { return d.Seq, true }

// PairHalf is a pair of distinct texts with the copies of its first, on
// its way to the copies of the second.
type PairHalf struct {
	A   []Member
	D   int
	Sim float64
}

func pairsAFn(_ uint64, pairs func(*RepPair) bool, copies func(*Copies) bool, emit func(uint64, PairHalf)) {
	var c Copies
	if !copies(&c) {
		return
	}
	var p RepPair
	for pairs(&p) {
		emit(p.B, PairHalf{A: c.Members, D: p.D, Sim: p.Sim})
	}
}

// pairsBFn writes the pairs of documents of a pair of distinct texts:
// every copy of one with every copy of the other.
type pairsBFn struct {
	Sim bool
}

func (fn *pairsBFn) ProcessElement(_ uint64, halves func(*PairHalf) bool, copies func(*Copies) bool, emit func(string)) {
	var c Copies
	if !copies(&c) {
		return
	}
	var h PairHalf
	for halves(&h) {
		for _, a := range h.A {
			for _, b := range c.Members {
				emit(pairLine(a.ID, b.ID, h.D, h.Sim, false, fn.Sim))
			}
		}
	}
}

// copyPairsFn writes the pairs of exact copies of a group.
type copyPairsFn struct {
	Sim bool
}

func (fn *copyPairsFn) ProcessElement(g Group, emit func(string)) {
	if len(g.Members) < 2 {
		return
	}
	sim, _ := indexTextSimilarity(g.Rep)
	for i, a := range g.Members {
		for _, b := range g.Members[i+1:] {
			emit(pairLine(a.ID, b.ID, 0, sim, true, fn.Sim))
		}
	}
}

func pairLine(a, b string, d int, sim float64, exact, hasSim bool) string {
	if b < a {
		a, b = b, a
	}
	rec := pairRecord{A: a, B: b, Distance: d, Exact: &exact}
	if hasSim {
		rec.Similarity = similarity(sim)
	}
	return jsonLine(rec)
}

// keepDropFn sorts every document into keep or drop.
func keepDropFn(_ uint64, ids func(*string) bool, drops func(*bool) bool, keep, drop func(string)) {
	var id string
	if !ids(&id) {
		return
	}
	var d bool
	if drops(&d) {
		drop(jsonLine(idRecord{ID: id}))
	} else {
		keep(jsonLine(idRecord{ID: id}))
	}
}

// writeFn writes the lines of one output to one file through Beam's file
// system for its path.
type writeFn struct {
	Path string
}

func (fn *writeFn) ProcessElement(ctx context.Context, _ int, _ func(*bool) bool, lines func(*string) bool) error {
	fsys, err := filesystem.New(ctx, fn.Path)
	if err != nil {
		return err
	}
	defer fsys.Close()
	w, err := fsys.OpenWrite(ctx, fn.Path)
	if err != nil {
		return err
	}
	bw := newLineWriter(w)
	var l string
	for lines(&l) {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
