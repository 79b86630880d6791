package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"

	minhashlsh "github.com/ekzhu/minhash-lsh"
	dedup "github.com/go-dedup/simhash"
	mfonda "github.com/mfonda/simhash"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
	"github.com/simidx/simidx/simhash"
)

// fingerprintsMain measures fingerprint throughput on one goroutine, simidx
// beside its peers on the same documents.
func fingerprintsMain(args []string) error {
	fs := flag.NewFlagSet("fingerprints", flag.ExitOnError)
	corpus := fs.String("corpus", "", "JSONL corpus (required)")
	rounds := fs.Int("rounds", 3, "rounds per implementation; the best is reported")
	fs.Parse(args)
	if *corpus == "" {
		return fmt.Errorf("fingerprints: -corpus is required")
	}
	r, err := runFingerprints(*corpus, *rounds)
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s\n", machine())
	fmt.Printf("corpus: %s, %d documents, %.1f MB; one goroutine, best of %d rounds\n\n", r.Corpus, r.Docs, float64(r.Bytes)/1e6, r.Rounds)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tIMPLEMENTATION\tMB/s\tvs best peer")
	for _, row := range r.Rows {
		ratio := ""
		if row.Ours && row.VsPeer > 0 {
			ratio = fmt.Sprintf("%.2fx", row.VsPeer)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\n", row.Group, row.Name, row.MBs, ratio)
	}
	return tw.Flush()
}

// fpRow is the throughput of one implementation.
type fpRow struct {
	Group, Name string
	Ours        bool
	MBs         float64
	VsPeer      float64 // ours: MB/s over the best peer's of the group
}

type fpResult struct {
	Corpus string
	Docs   int
	Bytes  int64
	Rounds int
	Rows   []fpRow
}

// runFingerprints times every implementation on the same documents, one
// goroutine, the best of rounds passes after a warm-up pass.
func runFingerprints(corpus string, rounds int) (*fpResult, error) {
	docs, err := testcorpus.Load(corpus)
	if err != nil {
		return nil, err
	}
	texts := make([][]byte, len(docs))
	var size int64
	for i, d := range docs {
		texts[i] = []byte(d.Text)
		size += int64(len(d.Text))
	}
	var sink uint64
	h, _ := simhash.NewHasher(nil)
	sh, _ := shingle.NewShingler(nil)
	oph, _ := shingle.NewMinHasher(shingle.DefaultK, shingle.OnePermutation)
	mixes, _ := shingle.NewMinHasher(shingle.DefaultK, shingle.Mixes)
	var hs, sig []uint64
	dd := dedup.NewSimhash()
	impls := []struct {
		group, name string
		run         func([]byte)
	}{
		{"simhash", "simidx simhash.Hasher (default: canonical words, TF weights)", func(t []byte) { sink ^= h.Sum64(t) }},
		{"simhash", "simidx simhash.Mfonda (mfonda-compatible)", func(t []byte) { sink ^= simhash.Mfonda(t) }},
		{"simhash", "github.com/mfonda/simhash WordFeatureSet", func(t []byte) {
			sink ^= mfonda.Simhash(mfonda.NewWordFeatureSet(t))
		}},
		{"simhash", "github.com/go-dedup/simhash WordFeatureSet", func(t []byte) {
			sink ^= dd.GetSimhash(dd.NewWordFeatureSet(t))
		}},
		{"minhash", "simidx MinHash K=84 one-permutation (default), 5-word shingles", func(t []byte) {
			hs = sh.AppendHashes(hs[:0], t)
			sig = oph.Append(sig[:0], hs)
			sink ^= sig[0]
		}},
		{"minhash", "simidx MinHash K=84 K mixes, 5-word shingles", func(t []byte) {
			hs = sh.AppendHashes(hs[:0], t)
			sig = mixes.Append(sig[:0], hs)
			sink ^= sig[0]
		}},
		{"minhash", "github.com/ekzhu/minhash-lsh K=84, words split on space", func(t []byte) {
			m := minhashlsh.NewMinhash(1, shingle.DefaultK)
			for _, w := range bytes.Fields(t) {
				m.Push(w)
			}
			sink ^= m.Signature()[0]
		}},
	}
	results := map[string]float64{}
	peerBest := map[string]float64{}
	for _, im := range impls {
		for _, t := range texts { // warm up
			im.run(t)
		}
		d := best(rounds, func() {
			for _, t := range texts {
				im.run(t)
			}
		})
		mbs := float64(size) / 1e6 / d.Seconds()
		results[im.name] = mbs
		if !isOurs(im.name) {
			peerBest[im.group] = max(peerBest[im.group], mbs)
		}
	}
	res := &fpResult{Corpus: corpus, Docs: len(docs), Bytes: size, Rounds: rounds}
	for _, im := range impls {
		row := fpRow{Group: im.group, Name: im.name, Ours: isOurs(im.name), MBs: results[im.name]}
		if row.Ours && peerBest[im.group] > 0 {
			row.VsPeer = results[im.name] / peerBest[im.group]
		}
		res.Rows = append(res.Rows, row)
	}
	_ = sink
	return res, nil
}

func isOurs(name string) bool { return len(name) > 6 && name[:6] == "simidx" }
