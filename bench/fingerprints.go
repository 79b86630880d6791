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
	docs, err := testcorpus.Load(*corpus)
	if err != nil {
		return err
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
	fmt.Printf("machine: %s\n", machine())
	fmt.Printf("corpus: %s, %d documents, %.1f MB; one goroutine, best of %d rounds\n\n", *corpus, len(docs), float64(size)/1e6, *rounds)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tIMPLEMENTATION\tMB/s\tvs best peer")
	results := map[string]float64{}
	peerBest := map[string]float64{}
	for _, im := range impls {
		for _, t := range texts { // warm up
			im.run(t)
		}
		d := best(*rounds, func() {
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
	for _, im := range impls {
		ratio := ""
		if isOurs(im.name) && peerBest[im.group] > 0 {
			ratio = fmt.Sprintf("%.1fx", results[im.name]/peerBest[im.group])
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\n", im.group, im.name, results[im.name], ratio)
	}
	_ = sink
	return tw.Flush()
}

func isOurs(name string) bool { return len(name) > 6 && name[:6] == "simidx" }
