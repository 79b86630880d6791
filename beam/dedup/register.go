package dedup

import (
	"bufio"
	"io"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/simidx/simidx/index"
)

func init() {
	for _, t := range []any{
		(*readFn)(nil), (*analyzeFn)(nil), (*collapseFn)(nil), (*countKeysFn)(nil), (*keysFn)(nil),
		(*groupFn)(nil), (*verifyBFn)(nil), (*hotFn)(nil), (*pairsBFn)(nil), (*copyPairsFn)(nil),
		(*clusterFn)(nil), (*writeFn)(nil),
		(*File)(nil), (*Doc)(nil), (*IDSeq)(nil), (*Member)(nil), (*Info)(nil), (*Group)(nil),
		(*Copies)(nil), (*Entry)(nil), (*Cand)(nil), (*RepPair)(nil), (*Sig)(nil), (*Half)(nil),
		(*Node)(nil), (*Edge)(nil), (*ClusterOut)(nil), (*PairHalf)(nil),
	} {
		beam.RegisterType(reflect.TypeOf(t).Elem())
	}
	for _, f := range []any{
		uniqueKeyFn, renameFn, exactKeyFn, repFn, sumInts, sigFn, verifyAFn, candPairFn,
		pairByAFn, copiesFn, groupBySeqFn, clusterRepFn, clusterByRepFn, idBySeqFn, idBySeqFn2,
		pairsAFn, keepDropFn, nodeFn, edgeLabelFn, numberFn, numberedFn,
		bothWays, edgeBothWays, largeStarFn, towardSmaller, smallStarFn, labelFn, towardSmallerPair,
	} {
		beam.RegisterFunction(f)
	}
}

func indexTextSimilarity(rep Info) (float64, bool) {
	return index.TextSimilarity(rep.Sig, rep.Short, rep.Sig, rep.Short)
}

func newLineWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 1<<20) }
