// Command bench measures simidx beside baselines and peer libraries, each
// figure in the same run as its baseline. Usage:
//
//	go run . index [-n 1000000] [-k 3] [-queries 20000] [-dir DIR] [-cold]
//	go run . fingerprints -corpus FILE.jsonl [-rounds 3]
//	go run . features -corpus FILE.jsonl [-truth words|chars]
//	go run . truth -corpus FILE.jsonl [-unit words|chars] [-size 5] [-variants]
//	go run . planted -corpus FILE.jsonl [-unit words|chars] [-size 5] [-docs 200]
//	go run . e2e -corpus FILE.jsonl [-rounds 2]
//	go run . ingest -corpora DIR [-only mixed-300mb,sentences-1m] [-jobs index,index-nominhash,dedup] [-procs 1,2] [-json FILE]
//	go run . methods --corpora DIR [-max-docs N]
//	go run . linkage -corpora DIR [-max-docs N]
//	go run . gobench [-count 3] [-quick]
//	go run . scripts -corpora DIR
//	go run . serve [-n 1000000] [-texts 10000] [-clients 16] [-duration 10s] [-phases query,add,mixed] [-keep PATH] [-baseline REV] [-json FILE]
//	go run . fsync [-busy N] [-dir DIR]
//	go run . pages [-clusters 10000] [-rounds 5] [-shots ../docs] [-json FILE] [-md FILE] [-from FILE]
//	go run . beam [-n 100000,1000000] [-runners prism,direct] [-max-rss GB] [-json FILE]
//	go run . all --corpora DIR [--quick] [--out DIR] [--sizes 1e4,1e5] [--serve-results FILE] [--pages-results FILE] [--ingest-results FILE] [--ingest-before FILE] [--beam-results FILE]
//
// index: loads n random 64-bit fingerprints into a new index, then reports
// load time, bytes on disk, query latency (p50/p99) beside a brute-force
// scan of the same fingerprints held in memory (same queries, answers
// compared), and the time of Pairs over the whole index.
//
// fingerprints: simhash and MinHash throughput on a corpus, beside
// github.com/mfonda/simhash, github.com/go-dedup/simhash and
// github.com/ekzhu/minhash-lsh on the same documents.
//
// features: recall and precision of simhash fingerprints at k = 3 and 6
// for several feature choices, against the exact shingle-Jaccard ground
// truth of the corpus (an exact similarity join).
//
// truth: precision, recall and F1 of simhash (k = 0..8) and of the MinHash
// layer (thresholds 0.5..0.9) per Jaccard bin, against every pair with
// shingle Jaccard >= 0.5 found by an exact similarity join.
//
// planted: recall versus Hamming distance on documents with planted edits
// of every kind at a range of rates, each pair's true Jaccard measured.
//
// e2e: builds the simidx command and times `simidx index` on a corpus.
//
// ingest: builds two corpora from the corpora directory (365 MB of eight
// corpora with edited copies; a million short sentences) and times
// `simidx index` and `simidx dedup` with GOMAXPROCS 1 and 2, with their
// peak memory and index size, beside the analysis alone on one core, and
// profiles index.Load; -json writes its results, which all
// --ingest-results puts in the report.
//
// methods: every method of the index (simhash, with and without the
// MinHash layer, nshash, short, mfonda) on short and long corpora: a real
// index built with index.Load, its pairs from index.Pairs scored against
// the ground truth, with load and Pairs times.
//
// linkage: the clusters of simidx dedup under single and center linkage
// on real corpora: how many, how large, and how many have members that
// are no near duplicate of the member kept.
//
// gobench: runs the Go benchmarks of the index and the server that the
// report gives, and writes their section of the report.
//
// scripts: Chinese in its two scripts and Russian exact duplicates, on the
// manual pages of the corpora directory.
//
// serve: the load test of simidx serve (docs/server.md, "Load test"); too
// long for all, it is run on its own. With -baseline REV it runs every
// phase on the simidx of a git revision and on the current one, in turn;
// -json writes its results, which all --serve-results puts in the report.
//
// pages: the HTML report of simidx dedup --report (of testdata/licenses
// and of a generated corpus of 10,000 clusters) and the page of simidx
// serve in a headless Chromium: the time a report takes to open, to draw a
// diff, to filter and to search, and the screenshots of docs/; -json
// writes its results, which all --pages-results puts in the report, and
// -md rewrites their section of a benchmarks.md (with -from, from the
// results of an earlier run, measuring nothing).
//
// beam: simidx-beam (the Beam pipeline of simidx dedup, module beam/)
// on Prism and the direct runner against simidx dedup on generated
// corpora: wall time, peak resident memory and the sorted outputs
// compared; -json writes its results, which all --beam-results puts in
// the report.
//
// fsync: a probe of the fdatasync of an append, alone and beside busy
// threads, which bounds the durable adds of simidx serve.
//
// all: runs everything but serve, pages, beam and fsync on the corpora of a directory
// and writes docs/benchmarks.md and the SVG charts of docs/charts.
//
// Corpora are JSONL files of {"id", "text"} objects, as written by
// shared/corpora/fetch.sh.
package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

var commands = map[string]func(args []string) error{
	"index":        indexMain,
	"fingerprints": fingerprintsMain,
	"features":     featuresMain,
	"truth":        truthMain,
	"planted":      plantedMain,
	"e2e":          e2eMain,
	"ingest":       ingestMain,
	"methods":      methodsMain,
	"linkage":      linkageMain,
	"all":          allMain,
}

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		var names []string
		for n := range commands {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(os.Stderr, "usage: bench %s [flags]\n", strings.Join(names, "|"))
		os.Exit(2)
	}
	if err := commands[os.Args[1]](os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// machine describes this machine for the head of every report.
func machine() string {
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d), %s", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
}

// best runs f rounds times and returns the shortest duration.
func best(rounds int, f func()) time.Duration {
	var b time.Duration
	for i := range rounds {
		t := time.Now()
		f()
		if d := time.Since(t); i == 0 || d < b {
			b = d
		}
	}
	return b
}
