package dedup

import (
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// Connected components of the pairs of distinct texts, by alternating
// large-star and small-star rounds (Kiveris et al., "Connected Components
// in MapReduce and Beyond", SoCC 2014): each round is two shuffles of the
// edges, and the graph becomes one star per component, centered on its
// smallest Seq, in O(log^2 n) rounds (usually a few). Nothing is
// collected on one machine. The rounds are unrolled in the pipeline
// (Rounds); the cluster stage checks that every pair's two texts got the
// same label and fails the pipeline, naming the flag, if not.

// bothWays emits an edge in both directions.
func bothWays(p RepPair, emit func(uint64, uint64)) {
	emit(p.A, p.B)
	emit(p.B, p.A)
}

func edgeBothWays(u, v uint64, emit func(uint64, uint64)) {
	emit(u, v)
	emit(v, u)
}

// neighbours collects the distinct neighbours of a node.
func neighbours(vs func(*uint64) bool) []uint64 {
	var ns []uint64
	var v uint64
	for vs(&v) {
		ns = append(ns, v)
	}
	slices.Sort(ns)
	return slices.Compact(ns)
}

// largeStarFn links every larger neighbour of u to the smallest of u and
// its neighbours.
func largeStarFn(u uint64, vs func(*uint64) bool, emit func(uint64, uint64)) {
	ns := neighbours(vs)
	m := min(u, ns[0])
	for _, v := range ns {
		if v > u && v != m {
			emit(v, m)
		}
	}
}

// towardSmaller orients an edge from its larger end to its smaller.
func towardSmaller(u, v uint64, emit func(uint64, uint64)) {
	if u != v {
		emit(max(u, v), min(u, v))
	}
}

// smallStarFn links u and its smaller neighbours to the smallest of them.
func smallStarFn(u uint64, vs func(*uint64) bool, emit func(uint64, uint64)) {
	ns := neighbours(vs) // all smaller than u
	m := ns[0]
	for _, v := range ns[1:] {
		emit(v, m)
	}
	emit(u, m)
}

// labelFn gives a node the smallest of itself and its neighbours: its
// component's smallest Seq once the graph is a star per component.
func labelFn(u uint64, vs func(*uint64) bool) (uint64, uint64) {
	return u, min(u, neighbours(vs)[0])
}

// components returns KV<Seq, label> for every text that has a pair.
func components(s beam.Scope, pairs beam.PCollection, rounds int) beam.PCollection {
	s = s.Scope("components")
	edges := beam.ParDo(s, towardSmallerPair, pairs)
	for range rounds {
		large := beam.GroupByKey(s, beam.ParDo(s, edgeBothWays, edges))
		edges = beam.ParDo(s, largeStarFn, large)
		small := beam.GroupByKey(s, beam.ParDo(s, towardSmaller, edges))
		edges = beam.ParDo(s, smallStarFn, small)
	}
	return beam.ParDo(s, labelFn, beam.GroupByKey(s, beam.ParDo(s, edgeBothWays, edges)))
}

func towardSmallerPair(p RepPair, emit func(uint64, uint64)) {
	emit(p.B, p.A)
}
