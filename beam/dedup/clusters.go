package dedup

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/keep"
)

// The JSON lines of simidx dedup --format jsonl (cmd/simidx's records;
// TestSameAsDedup holds them byte for byte).
type (
	memberRecord struct {
		ID         string   `json:"id"`
		Keep       bool     `json:"keep"`
		Distance   *int     `json:"distance,omitempty"`
		Similarity *float64 `json:"similarity,omitempty"`
		Exact      *bool    `json:"exact,omitempty"`
	}
	idRecord struct {
		ID string `json:"id"`
	}
	pairRecord struct {
		A          string   `json:"a"`
		B          string   `json:"b"`
		Distance   int      `json:"distance"`
		Similarity *float64 `json:"similarity,omitempty"`
		Exact      *bool    `json:"exact,omitempty"`
	}
	clusterRecord struct {
		Cluster        int            `json:"cluster"`
		Representative string         `json:"representative"`
		IDs            []string       `json:"ids"`
		Keep           string         `json:"keep"`
		Members        []memberRecord `json:"members"`
	}
)

// jsonLine returns v as simidx writes a JSON line, without the newline.
func jsonLine(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // plain values: cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// similarity is a similarity as simidx reports it: floored to 4 decimals.
func similarity(s float64) *float64 {
	r := math.Floor(s*1e4+1e-7) / 1e4
	return &r
}

// Node is a distinct text of a component: its group of exact copies.
type Node struct {
	Group
}

// Edge is a pair of distinct texts, routed to its component.
type Edge struct {
	A, B uint64
}

// ClusterOut is a cluster before it is numbered (numbers follow the
// order of representatives, over all clusters).
type ClusterOut struct {
	Representative string
	Record         string // the JSON line, with the cluster number 0
}

// nodeFn routes the group of a distinct text to its component: its label,
// or its own Seq for a group of copies without a pair.
func nodeFn(seq uint64, labels func(*uint64) bool, groups func(*Group) bool, emit func(uint64, Node)) {
	var g Group
	if !groups(&g) {
		return
	}
	var l uint64
	if labels(&l) {
		emit(l, Node{g})
	} else if len(g.Members) > 1 {
		emit(seq, Node{g})
	}
}

// edgeLabelFn routes the pairs of text A to A's component.
func edgeLabelFn(a uint64, labels func(*uint64) bool, pairs func(*RepPair) bool, emit func(uint64, Edge)) {
	var l uint64
	if !labels(&l) {
		l = a
	}
	var p RepPair
	for pairs(&p) {
		emit(l, Edge{A: p.A, B: p.B})
	}
}

// clusterFn makes the clusters of one component: with center linkage,
// index.Centers over its texts in the order of the keep policy (a text
// taking the place of its first copy in that order), a text with copies
// and no center taking itself; with single linkage, the component. It
// emits each cluster, and the IDs of the members it drops. Memory: the
// component's texts (with signatures) and pairs.
type clusterFn struct {
	Rule   Rule
	Rounds int
}

func (fn *clusterFn) ProcessElement(ctx context.Context, label uint64, nodes func(*Node) bool, edges func(*Edge) bool, emit func(ClusterOut), drop func(IDSeq)) error {
	var ns []Group
	var n Node
	for nodes(&n) {
		ns = append(ns, n.Group)
	}
	at := make(map[uint64]int, len(ns))
	for i, g := range ns {
		at[g.Rep.Seq] = i
	}
	var es []Edge
	var e Edge
	for edges(&e) {
		_, okA := at[e.A]
		_, okB := at[e.B]
		if !okA || !okB {
			unconverge.Inc(ctx, 1)
			return fmt.Errorf("connected components did not converge in %d rounds (pair %d-%d spans two labels): run again with more --cc-rounds", fn.Rounds, e.A, e.B)
		}
		es = append(es, e)
	}
	if len(ns) == 0 {
		return nil
	}
	// Members of the component by input order: index.Member's Seq is
	// their rank, so that keep's orders apply.
	var all []index.Member
	sizes := map[string]int64{}
	nodeOf := map[string]int{}
	for i, g := range ns {
		for _, m := range g.Members {
			all = append(all, index.Member{ID: m.ID, Seq: 0, Fingerprint: g.Rep.FP, TextHash: g.Rep.Exact, Text: true})
			sizes[m.ID] = m.Size
			nodeOf[m.ID] = i
		}
	}
	seqOf := map[string]uint64{}
	for _, g := range ns {
		for _, m := range g.Members {
			seqOf[m.ID] = m.Seq
		}
	}
	slices.SortFunc(all, func(a, b index.Member) int { return cmp.Compare(seqOf[a.ID], seqOf[b.ID]) })
	for i := range all {
		all[i].Seq = uint32(i)
	}
	order := keep.Order(fn.Rule.Keep, sizes)
	before := func(a, b index.Member) int { return cmp.Or(order(a, b), cmp.Compare(a.Seq, b.Seq)) }

	if !fn.Rule.Center {
		k, err := keep.Kept(index.Cluster{Members: all}, fn.Rule.Keep, sizes)
		if err != nil {
			return err
		}
		rep := slices.MinFunc(all, func(a, b index.Member) int { return strings.Compare(a.ID, b.ID) }).ID
		fn.emitCluster(ns, nodeOf, seqOf, all, k, rep, emit, drop)
		return nil
	}
	// The first member of each text in the order, and the texts by it.
	first := make([]index.Member, len(ns))
	has := make([]bool, len(ns))
	for _, m := range all {
		i := nodeOf[m.ID]
		if !has[i] || before(m, first[i]) < 0 {
			first[i], has[i] = m, true
		}
	}
	byRank := make([]int, len(ns))
	for i := range byRank {
		byRank[i] = i
	}
	slices.SortFunc(byRank, func(a, b int) int { return before(first[a], first[b]) })
	rank := make([]int, len(ns))
	for r, i := range byRank {
		rank[i] = r
	}
	edges64 := make([]uint64, 0, len(es))
	for _, e := range es {
		a, b := rank[at[e.A]], rank[at[e.B]]
		edges64 = append(edges64, uint64(min(a, b))<<32|uint64(max(a, b)))
	}
	center := index.Centers(len(ns), edges64)
	for r, c := range center {
		if c < 0 && len(ns[byRank[r]].Members) > 1 {
			center[r] = int32(r) // its copies: it takes them at its turn
		}
	}
	taken := map[int32][]index.Member{}
	for _, m := range all {
		r := rank[nodeOf[m.ID]]
		if c := center[r]; c >= 0 {
			taken[c] = append(taken[c], m)
		}
	}
	for c, ms := range taken {
		if len(ms) < 2 {
			continue // a center whose pairs all went to earlier centers
		}
		k := first[byRank[c]]
		fn.emitCluster(ns, nodeOf, seqOf, ms, k, k.ID, emit, drop)
	}
	return nil
}

// emitCluster emits the cluster of members ms keeping k, with
// representative rep, as dedup writes it: the kept member, then the others
// by ID with their distance, similarity and exactness to the kept one.
func (fn *clusterFn) emitCluster(ns []Group, nodeOf map[string]int, seqOf map[string]uint64, ms []index.Member, k index.Member, rep string, emit func(ClusterOut), drop func(IDSeq)) {
	slices.SortFunc(ms, func(a, b index.Member) int { return strings.Compare(a.ID, b.ID) })
	rec := clusterRecord{Representative: rep, Keep: k.ID, Members: []memberRecord{{ID: k.ID, Keep: true}}}
	kg := &ns[nodeOf[k.ID]].Rep
	for _, m := range ms {
		rec.IDs = append(rec.IDs, m.ID)
		if m.ID == k.ID {
			continue
		}
		g := &ns[nodeOf[m.ID]]
		d := bits.OnesCount64(kg.FP ^ g.Rep.FP)
		exact := kg.Exact == g.Rep.Exact
		mr := memberRecord{ID: m.ID, Distance: &d, Exact: &exact}
		if fn.Rule.Settings.MinHash {
			sim, _ := index.TextSimilarity(kg.Sig, kg.Short, g.Rep.Sig, g.Rep.Short)
			mr.Similarity = similarity(sim)
		}
		rec.Members = append(rec.Members, mr)
		drop(IDSeq{Seq: seqOf[m.ID], ID: m.ID})
	}
	emit(ClusterOut{Representative: rep, Record: jsonLine(rec)})
}

// numberFn numbers the clusters in the order of their representatives,
// as simidx does. It runs on one worker and holds every representative
// ID: about 50 bytes a cluster.
func numberFn(_ int, reps func(*string) bool, emit func(string, int)) {
	var all []string
	var r string
	for reps(&r) {
		all = append(all, r)
	}
	slices.Sort(all)
	for i, r := range all {
		emit(r, i)
	}
}

// numberedFn writes a cluster's JSON line with its number.
func numberedFn(rep string, nums func(*int) bool, cs func(*ClusterOut) bool, emit func(string)) error {
	var n int
	if !nums(&n) {
		return fmt.Errorf("cluster %q has no number", rep)
	}
	var c ClusterOut
	for cs(&c) {
		var rec clusterRecord
		if err := json.Unmarshal([]byte(c.Record), &rec); err != nil {
			return err
		}
		rec.Cluster = n
		emit(jsonLine(rec))
	}
	return nil
}
