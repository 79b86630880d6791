package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// featureCorpora are the corpora simhash feature choices are compared on.
var featureCorpora = []corpusSpec{
	{"spamassassin-body", "words", 5},
	{"spdx-licenses", "words", 5},
	{"manpages-ja", "chars", 5},
}

// allConfig says what `all` runs.
type allConfig struct {
	Corpora string // directory of <name>.jsonl files
	Out     string // directory that receives benchmarks.md and charts/
	Quick   bool
	Sizes   []int // index sizes
	Command string
	// Serve are the results of a run of the serve subcommand, for its
	// section; without them the section says how to run it.
	Serve *serveResults
	// Pages are the results of a run of the pages subcommand (the report
	// and the serve page in a browser), for their section; without them
	// the section says how to run it.
	Pages *pagesResults
	// Ingest and IngestBefore are the results of ingest -json on this
	// revision and on an earlier one.
	Ingest, IngestBefore *ingestResults
	// Beam are the results of a run of the beam subcommand (simidx-beam
	// against simidx dedup), for their section; without them the
	// section says how to run it.
	Beam *beamResults
}

// report collects every result of `all`.
type report struct {
	Cfg     allConfig
	Missing []string
	Truth   []*truthResult
	Methods []*methodsCorpus // every method side by side
	Scripts *scriptsResult   // simplified and traditional Chinese, Russian exact groups
	Planted []*plantedResult
	Linkage []linkageRow // the clusters of dedup by linkage
	// Keys are the keys of simidx-beam over the corpora, extrapolated to
	// 10^9 documents.
	Keys *keysResults
	// Recommend are the settings simidx bench recommends on shared
	// corpora.
	Recommend []recommendRow
	Features  map[string]*featuresResult
	FP        *fpResult
	Index     []*indexResult
	ByK       []*indexResult // cost of the index by k at one N
	E2E       *e2eResult
	ReadTree  []readTreeRow
	GoBench   []goBenchResult // Go benchmarks of the root module
	// GoBenchMissing are the titles of the Go benchmarks that matched
	// nothing in this tree.
	GoBenchMissing []string
	GoBenchCount   int
	Steps          []string // what ran and how long it took
	Wall           time.Duration
}

func allMain(args []string) error {
	fset := flag.NewFlagSet("all", flag.ExitOnError)
	corpora := fset.String("corpora", "", "directory of the JSONL corpora (required)")
	quick := fset.Bool("quick", false, "small samples and sizes: a minute, not the real figures")
	out := fset.String("out", "../docs", "directory for benchmarks.md and charts/")
	sizes := fset.String("sizes", "", "index sizes, comma-separated (default 1e4,1e5,1e6,1e7; quick 1e4,1e5)")
	serveResults := fset.String("serve-results", "", "the results that `FILE`, written by serve -json, holds, for the section on simidx serve under load (default: a note on how to run it)")
	ingestRes := fset.String("ingest-results", "", "the results that `FILES` (comma-separated, one run of ingest -json each) hold, for the section on ingest on all cores (default: a note on how to run it)")
	ingestBefore := fset.String("ingest-before", "", "results of ingest -json on an earlier revision (`FILE`), shown beside --ingest-results")
	pagesResults := fset.String("pages-results", "", "the results that `FILE`, written by pages -json, holds, for the section on the report and the serve page in a browser (default: a note on how to run it)")
	beamResults := fset.String("beam-results", "", "the results that `FILE`, written by beam -json, holds, for the section on simidx-beam against simidx dedup (default: a note on how to run it)")
	fset.Parse(args)
	if *corpora == "" {
		return fmt.Errorf("all: --corpora is required")
	}
	cfg := allConfig{Corpora: *corpora, Out: *out, Quick: *quick,
		Command: "cd bench && go run . all " + strings.Join(args, " ")}
	if *serveResults != "" {
		// Read before the hours of the run, so that a wrong file fails
		// at once.
		res, err := readServeResults(*serveResults)
		if err != nil {
			return fmt.Errorf("all: --serve-results: %w", err)
		}
		cfg.Serve = res
	}
	for _, f := range []struct {
		path string
		dst  **ingestResults
	}{{*ingestRes, &cfg.Ingest}, {*ingestBefore, &cfg.IngestBefore}} {
		if f.path == "" {
			continue
		}
		res, err := readIngestResults(f.path)
		if err != nil {
			return fmt.Errorf("all: %w", err)
		}
		*f.dst = res
	}
	if *pagesResults != "" {
		res, err := readPagesResults(*pagesResults)
		if err != nil {
			return fmt.Errorf("all: --pages-results: %w", err)
		}
		cfg.Pages = res
	}
	if *beamResults != "" {
		res, err := readBeamResults(*beamResults)
		if err != nil {
			return fmt.Errorf("all: --beam-results: %w", err)
		}
		cfg.Beam = res
	}
	s := *sizes
	if s == "" {
		s = "1e4,1e5,1e6,1e7"
		if *quick {
			s = "1e4,1e5"
		}
	}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 2 {
			return fmt.Errorf("all: bad size %q", f)
		}
		cfg.Sizes = append(cfg.Sizes, int(v))
	}
	_, err := runAll(cfg, os.Stderr)
	return err
}

// runAll runs every measurement and writes the report; progress goes to
// logw.
func runAll(cfg allConfig, logw io.Writer) (*report, error) {
	start := time.Now()
	r := &report{Cfg: cfg, Features: map[string]*featuresResult{}}
	step := func(name string, f func() error) error {
		fmt.Fprintf(logw, "bench: %s ...\n", name)
		t := time.Now()
		if err := f(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		d := time.Since(t)
		r.Steps = append(r.Steps, fmt.Sprintf("%s: %.1fs", name, d.Seconds()))
		fmt.Fprintf(logw, "bench: %s done in %.1fs\n", name, d.Seconds())
		return nil
	}
	path := func(name string) (string, bool) {
		p, err := corpusPath(cfg.Corpora, name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n", name, err)
		}
		if _, err := os.Stat(p); err != nil {
			if !slices.Contains(r.Missing, name) {
				r.Missing = append(r.Missing, name)
			}
			return "", false
		}
		return p, true
	}
	maxDocs, plantedDocs, rates, rounds := 0, 200, plantedRates, 3
	if cfg.Quick {
		maxDocs, plantedDocs, rates, rounds = 1500, 20, []float64{0.01, 0.04, 0.12, 0.3}, 1
	}
	for _, spec := range truthCorpora {
		p, ok := path(spec.Name)
		if !ok {
			continue
		}
		if err := step("ground truth "+spec.Name, func() error {
			t, err := runTruth(spec, p, maxDocs, spec.Name == "spamassassin-body")
			r.Truth = append(r.Truth, t)
			return err
		}); err != nil {
			return nil, err
		}
	}
	for _, mc := range methodCorpora {
		p, ok := path(mc.Name)
		if !ok {
			continue
		}
		if err := step("methods "+mc.Name, func() error {
			m, err := runMethods(mc.corpusSpec, mc.Short, p, maxDocs, io.Discard)
			r.Methods = append(r.Methods, m)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if _, okA := path("manpages-zh-Hans"); okA {
		if _, okB := path("manpages-zh-Hant"); okB && !cfg.Quick {
			if err := step("scripts", func() error {
				var err error
				r.Scripts, err = runScripts(cfg.Corpora)
				return err
			}); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range linkageCorpora {
		p, ok := path(name)
		if !ok {
			continue
		}
		if err := step("linkage "+name, func() error {
			rows, err := runLinkage(name, p, maxDocs)
			r.Linkage = append(r.Linkage, rows...)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if err := step("keys at 10^9", func() error {
		var err error
		r.Keys, err = runKeys(cfg.Corpora)
		if err == nil {
			r.Keys.Command = "cd bench && go run . keys -corpora " + cfg.Corpora
		}
		return err
	}); err != nil {
		return nil, err
	}
	if err := step("simidx bench recommends", func() error {
		bin, dir, err := recommendBinary()
		defer os.RemoveAll(dir)
		if err != nil {
			return err
		}
		sample := 2000 // simidx bench's default
		if cfg.Quick {
			sample = 300
		}
		for _, name := range recommendCorpora {
			p, ok := path(name)
			if !ok {
				continue
			}
			rows, err := runRecommend(bin, name, p, sample)
			if err != nil {
				return err
			}
			r.Recommend = append(r.Recommend, rows...)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for _, spec := range plantedCorpora {
		p, ok := path(spec.Name)
		if !ok {
			continue
		}
		if err := step("planted edits "+spec.Name, func() error {
			t, err := runPlanted(spec, p, plantedDocs, rates)
			r.Planted = append(r.Planted, t)
			return err
		}); err != nil {
			return nil, err
		}
	}
	for _, spec := range featureCorpora {
		p, ok := path(spec.Name)
		if !ok {
			continue
		}
		if err := step("features "+spec.Name, func() error {
			f, err := runFeatures(spec, p)
			r.Features[spec.Name] = f
			return err
		}); err != nil {
			return nil, err
		}
	}
	if p, ok := path("spamassassin-body"); ok {
		if err := step("fingerprints", func() error {
			var err error
			r.FP, err = runFingerprints(p, rounds)
			return err
		}); err != nil {
			return nil, err
		}
		if err := step("simidx index end to end", func() error {
			var err error
			r.E2E, err = runE2E(p, min(rounds, 2))
			return err
		}); err != nil {
			return nil, err
		}
		if err := step("reading compressed trees", func() error {
			var err error
			reads, count := 10, 3
			if cfg.Quick {
				reads, count = 1, 1
			}
			r.ReadTree, err = runReadTree(reads, count)
			return err
		}); err != nil {
			return nil, err
		}
	}
	r.GoBenchCount = 3
	if cfg.Quick {
		r.GoBenchCount = 1
	}
	if err := step("Go benchmarks", func() error {
		var err error
		r.GoBench, r.GoBenchMissing, err = runGoBenches(r.GoBenchCount, cfg.Quick, logw)
		return err
	}); err != nil {
		return nil, err
	}
	for _, n := range cfg.Sizes {
		if err := step(fmt.Sprintf("index N=%d", n), func() error {
			brute := 300
			if n >= 5_000_000 {
				brute = 50
			}
			x, err := runIndex(indexConfig{N: n, K: indexK, Queries: 20_000, Brute: brute, Cold: true, Near: 0.1, CheckPairs: 1_000_000})
			r.Index = append(r.Index, x)
			return err
		}); err != nil {
			return nil, err
		}
	}
	kn := 100_000
	if cfg.Quick {
		kn = min(10_000, cfg.Sizes[0])
	}
	if err := step(fmt.Sprintf("index by k, N=%d", kn), func() error {
		for k := 1; k <= 6; k++ {
			x, err := runIndex(indexConfig{N: kn, K: k, Queries: 5_000, Brute: 100, Near: 0.1, CheckPairs: kn})
			if err != nil {
				return err
			}
			r.ByK = append(r.ByK, x)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	r.Wall = time.Since(start)
	if err := r.write(cfg.Out); err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "bench: wrote %s in %.0fs\n", filepath.Join(cfg.Out, "benchmarks.md"), r.Wall.Seconds())
	return r, nil
}

// write writes benchmarks.md and the charts into dir.
func (r *report) write(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "charts"), 0o755); err != nil {
		return err
	}
	charts := r.charts()
	for name, c := range charts {
		var b bytes.Buffer
		if err := c.write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "charts", name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	// Remove charts of an earlier run that this one did not draw.
	old, _ := fs.Glob(os.DirFS(dir), "charts/*.svg")
	for _, o := range old {
		if _, ok := charts[filepath.Base(o)]; !ok {
			os.Remove(filepath.Join(dir, o))
		}
	}
	var b bytes.Buffer
	r.markdown(&b)
	return os.WriteFile(filepath.Join(dir, "benchmarks.md"), b.Bytes(), 0o644)
}

func (r *report) truthOf(name string) *truthResult {
	for _, t := range r.Truth {
		if t.Spec.Name == name {
			return t
		}
	}
	return nil
}

// bestF1 returns the method with the highest F1 at J >= 0.8 (the first of
// equals).
func bestF1(ms []methodResult) methodResult {
	var b methodResult
	for i, m := range ms {
		if i == 0 || m.Hi.F1() > b.Hi.F1()+1e-12 {
			b = m
		}
	}
	return b
}

func findParam(ms []methodResult, param string) (methodResult, bool) {
	for _, m := range ms {
		if m.Param == param {
			return m, true
		}
	}
	return methodResult{}, false
}

// targetF1 is the accuracy the defaults are held to: F1 for the pairs
// with J >= 0.8 on spamassassin-body.
const targetF1 = 0.95

func (r *report) markdown(w io.Writer) {
	fmt.Fprintln(w, "# Benchmarks")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "<!-- Generated by bench/ (go run . all); do not edit: every figure below is measured by that command. -->")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Generated by `%s` (the corpora are written by `shared/corpora/fetch.sh`).\n\n", r.Cfg.Command)
	fmt.Fprintf(w, "- machine: %s\n", machine())
	fmt.Fprintf(w, "- wall time of the whole run: %.0f s (%s)\n", r.Wall.Seconds(), strings.Join(r.Steps, "; "))
	if r.Cfg.Quick {
		fmt.Fprintln(w, "- **quick run**: samples of at most 1,500 documents per corpus, 20 planted documents, small index sizes; not the real figures")
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(w, "- corpora not found, their sections left out: %s\n", strings.Join(r.Missing, ", "))
	}
	if len(r.GoBenchMissing) > 0 {
		fmt.Fprintf(w, "- Go benchmarks not found in this tree, left out: %s\n", strings.Join(r.GoBenchMissing, "; "))
	}
	fmt.Fprintln(w, "- timings are wall-clock on a shared machine; every speed figure stands beside its baseline measured in the same run, and the ratio is the figure to read")
	fmt.Fprintln(w)
	r.writeDefaults(w)
	r.writeTruth(w)
	if len(r.Methods) > 0 {
		fmt.Fprintln(w, "## Methods side by side")
		fmt.Fprintln(w)
		fmt.Fprintln(w, methodsIntro())
		fmt.Fprintln(w)
		writeMethods(w, r.Methods)
	}
	if r.Scripts != nil {
		fmt.Fprintln(w, "## Chinese in two scripts, Russian exact duplicates")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Subcommand `scripts`.")
		fmt.Fprintln(w)
		r.Scripts.writeMarkdown(w)
		fmt.Fprintln(w)
	}
	if len(r.Recommend) > 0 {
		fmt.Fprintln(w, "## simidx bench recommends")
		fmt.Fprintln(w)
		writeRecommend(w, r.Recommend)
	}
	if len(r.Linkage) > 0 {
		fmt.Fprintln(w, "## Clusters: single and center linkage")
		fmt.Fprintln(w)
		writeLinkage(w, r.Linkage)
	}
	r.writePlanted(w)
	r.writeSpeed(w)
	writeGoBenches(w, r.GoBench, r.GoBenchCount, r.Cfg.Quick)
	writeIngestSection(w, r.Cfg.Ingest, r.Cfg.IngestBefore)
	writeServeSection(w, r.Cfg.Serve)
	writePagesSection(w, r.Cfg.Pages)
	writeBeamSection(w, r.Cfg.Beam)
	writeKeysSection(w, r.Keys)
	r.writeFeatures(w)
}

// serveNote points to the load test of simidx serve, which takes too long
// (and too much of the machine) to run with the other subcommands; it is
// the section of the load test when all is given no results of it.
const serveNote = `### simidx serve under load

The load test of the HTTP server is not part of this run: it builds an index of a million
documents and keeps every core busy for minutes, so it is run on its own, with nothing else
on the machine:

` + "```" + `
cd bench && go run . serve -n 1000000 -clients 12 -duration 20s -phases query,add,mixed -keep /tmp/serve.simidx
` + "```" + `

It starts ` + "`simidx serve`" + ` on a loopback port and measures queries, durable adds and a mix
of both from concurrent clients (and with wrk, when it is installed), each phase beside the
server's own latencies and the journal's and the index's commits of the same run;
[docs/server.md](server.md#load-test) says what it measures, its flags, and what its figures
depend on. ` + "`cd bench && go run . fsync -busy 3`" + ` measures the fdatasync of an append,
alone and beside three busy threads, which bounds the durable adds.
`

// writeDefaults says which figure supports (or contradicts) each default.
func (r *report) writeDefaults(w io.Writer) {
	fmt.Fprintln(w, "## Defaults and the figures behind them")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each default of the text pipeline and the index, the figure of this report that bears on it, and what that figure says. The statements are computed from the figures of this run.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| default | value | figure | what it says |")
	fmt.Fprintln(w, "|---|---|---|---|")
	sa := r.truthOf("spamassassin-body")
	// Shingle size.
	fmt.Fprintln(w, "| shingle size | 5 words | none | Not decided by a figure of this report: 5-word shingles are the definition of similarity the ground truth uses (Broder; the corpora README), so the report cannot rank other sizes against it. |")
	// Features.
	var fv []string
	for _, spec := range featureCorpora {
		f := r.Features[spec.Name]
		if f == nil {
			continue
		}
		var units, bestOther featureRow
		for _, row := range f.Rows {
			if row.K != indexK {
				continue
			}
			if row.Features == "units and pairs (default)" {
				units = row
			} else if row.F1 > bestOther.F1 {
				bestOther = row
			}
		}
		verdict := fmt.Sprintf("%s: supports it, at k=%d no other feature choice tried has a higher F1 (J>=0.8) than the default, %.3f; the next best is %s, %.3f", spec.Name, indexK, units.F1, bestOther.Features, bestOther.F1)
		if bestOther.F1 > units.F1+1e-12 {
			verdict = fmt.Sprintf("%s: **contradicts it**, at k=%d %s has F1 (J>=0.8) %.3f, the default %.3f", spec.Name, indexK, bestOther.Features, bestOther.F1, units.F1)
		}
		fv = append(fv, verdict)
	}
	if len(fv) > 0 {
		fmt.Fprintf(w, "| simhash features | every word and every pair of consecutive words (characters in Han and Kana text), TF weights | [feature choices](#simhash-feature-choices) | %s. |\n", strings.Join(fv, "; "))
	}
	if sa != nil {
		k3, _ := findParam(sa.Simhash, fmt.Sprintf("k=%d", indexK))
		b := bestF1(sa.Simhash)
		verdict := fmt.Sprintf("supports it: k=%d has the highest simhash F1 (J>=0.8) on spamassassin-body, %.3f", indexK, k3.Hi.F1())
		if b.Param != k3.Param {
			verdict = fmt.Sprintf("**contradicts it on accuracy**: simhash F1 (J>=0.8) on spamassassin-body peaks at %s (%.3f: P %.3f, R %.3f) and is %.3f at k=%d (P %.3f, R %.3f); each step of k costs tables (see [the cost of k](#index-queries-bulk-load-pairs))",
				b.Param, b.Hi.F1(), b.Hi.Precision(), b.Hi.Recall(), k3.Hi.F1(), indexK, k3.Hi.Precision(), k3.Hi.Recall())
			if c := r.costK(b.Param); c != "" {
				verdict += ": " + c
			}
		}
		if len(sa.DefaultByK) > indexK {
			d := sa.DefaultByK[indexK]
			b := bestF1(sa.DefaultByK)
			var cells []string
			for _, m := range sa.DefaultByK {
				cells = append(cells, fmt.Sprintf("%s %.3f", m.Param, m.Hi.F1()))
			}
			v := fmt.Sprintf("with the MinHash layer (the default), k only adds candidates to the bands, and the default rule's F1 (J>=0.8) on spamassassin-body by k is %s", strings.Join(cells, ", "))
			if b.Hi.F1() <= d.Hi.F1()+1e-12 {
				v = "supports it: " + v + fmt.Sprintf(": no k does better than k=%d, and each step up costs tables and query time", indexK)
			} else {
				v = "**contradicts it**: " + v + fmt.Sprintf(": %s does better than k=%d", b.Param, indexK)
			}
			verdict = v + ". Without the layer (`--no-minhash`), simhash alone: " + verdict
		}
		fmt.Fprintf(w, "| k (max distance) | %d | [ground truth](#ground-truth-on-real-corpora), simhash by k and the default rule by k | %s. |\n", indexK, verdict)
		if len(sa.Variants) > 0 {
			def := bestF1(variantRows(sa.Variants, "K=84, 14 bands of 6"))
			b := bestF1(sa.Variants)
			verdict := fmt.Sprintf("supports it: the default layer's best F1 (J>=0.8) on spamassassin-body, %.3f at %s, is the best of the K/bands tried", def.Hi.F1(), def.Param)
			if b.Hi.F1() > def.Hi.F1()+1e-12 {
				verdict = fmt.Sprintf("does not single it out: %s reaches F1 (J>=0.8) %.3f at %s, the default %.3f at %s", b.Method, b.Hi.F1(), b.Param, def.Hi.F1(), def.Param)
			}
			fmt.Fprintf(w, "| MinHash K and bands | K=84, 14 bands of 6 | [MinHash K and bands](#minhash-k-and-bands), spamassassin-body | %s. |\n", verdict)
		}
		defT := fmt.Sprintf("t=%.1f", index.DefaultMinSimilarity)
		on, _ := findParam(sa.MinHashIdx, defT)
		verdict = fmt.Sprintf("simhash alone at k=%d gives F1 (J>=0.8) %.3f on spamassassin-body; with the MinHash layer and its default threshold (within k bits or sharing a band, estimate >= %.1f), %.3f", indexK, k3.Hi.F1(), index.DefaultMinSimilarity, on.Hi.F1())
		if m, ok := r.methodRun("spamassassin-body", defaultMethod); ok {
			verdict += fmt.Sprintf(", and the real index's `Pairs` with every default ([methods](#methods-side-by-side)) %.3f", m.Res.Hi.F1())
		}
		switch {
		case k3.Hi.F1() >= targetF1:
			verdict += fmt.Sprintf("; **contradicts it**: simhash alone reaches the target F1 >= %.2f, so the layer's cost buys nothing the target asks for", targetF1)
		case on.Hi.F1() >= targetF1:
			verdict += fmt.Sprintf("; supports it: only with the layer does the default reach the target (F1 >= %.2f for J >= 0.8)", targetF1)
		default:
			verdict += fmt.Sprintf("; **neither reaches the target** F1 >= %.2f", targetF1)
		}
		if r.E2E != nil && len(r.E2E.Runs) >= 2 {
			off, on := r.E2E.Runs[0], r.E2E.Runs[1]
			verdict += fmt.Sprintf(". Its cost in `simidx index` on spamassassin-body: %.2fx the time, %.2fx the bytes on disk of `--no-minhash` ([end to end](#simidx-index-end-to-end)), which is why `--no-minhash` stays for corpora where fingerprint distance is enough",
				on.Wall.Seconds()/off.Wall.Seconds(), float64(on.FileBytes)/float64(off.FileBytes))
		}
		fmt.Fprintf(w, "| MinHash layer | on | [ground truth](#ground-truth-on-real-corpora) | %s. |\n", verdict)
		var tv []string
		best := 0
		for _, t := range r.Truth {
			if len(t.MinHashIdx) == 0 {
				continue
			}
			d, _ := findParam(t.MinHashIdx, defT)
			b := bestF1(t.MinHashIdx)
			if d.Hi.TP+d.Hi.FN == 0 {
				continue
			}
			if b.Hi.F1() <= d.Hi.F1()+1e-12 {
				best++
				tv = append(tv, fmt.Sprintf("%s %.3f (best)", t.Spec.Name, d.Hi.F1()))
			} else {
				tv = append(tv, fmt.Sprintf("%s %.3f (best %s, %.3f)", t.Spec.Name, d.Hi.F1(), b.Param, b.Hi.F1()))
			}
		}
		verdict = fmt.Sprintf("F1 (J>=0.8) at %s, within k bits or sharing a band: %s; %s is the best threshold on %d of %d corpora", defT, strings.Join(tv, ", "), defT, best, len(tv))
		if best*2 > len(tv) {
			verdict = "supports it: " + verdict
		} else {
			verdict = "**contradicts it**: " + verdict
		}
		fmt.Fprintf(w, "| MinHash threshold (`QueryOptions.MinSimilarity`, `--min-similarity`) | %.1f | [ground truth](#ground-truth-on-real-corpora), bands or k<=%d | %s. |\n", index.DefaultMinSimilarity, indexK, verdict)
	}
	fmt.Fprintln(w)
}

// defaultMethod is the methods run of the index with every default.
var defaultMethod = [2]string{methodSpecs[0].Name, fmt.Sprintf("t=%.1f (default)", index.DefaultMinSimilarity)}

// methodRun returns the methods run of corpus named m (method, param).
func (r *report) methodRun(corpus string, m [2]string) (methodRun, bool) {
	for _, c := range r.Methods {
		if c.Spec.Name != corpus {
			continue
		}
		for _, run := range c.Runs {
			if run.Method == m[0] && run.Param == m[1] {
				return run, true
			}
		}
	}
	return methodRun{}, false
}

func variantRows(ms []methodResult, prefix string) []methodResult {
	var out []methodResult
	for _, m := range ms {
		if strings.HasPrefix(m.Method, prefix) {
			out = append(out, m)
		}
	}
	return out
}

func (r *report) writeTruth(w io.Writer) {
	if len(r.Truth) == 0 {
		return
	}
	fmt.Fprintln(w, "## Ground truth on real corpora")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The truth of each corpus is every pair of documents whose shingle sets have Jaccard similarity >= 0.5, found by the exact prefix-filter join `eval.Join` and cross-checked against brute force on a sample of 400 documents (half of them members of true pairs). Documents without a shingle are left out. The detectors use the default settings: simhash fingerprints of `index.NewFingerprinter(nil)`, a pair reported when within k bits (all pairs compared); the MinHash layer of the same default fingerprinter, a pair a candidate when the two share a band hash and reported when `shingle.Estimate` of their signatures reaches the threshold t. The rows *bands or k<=3* add, as the index's queries do, the pairs within 3 bits to the candidates: *minhash bands or k<=3 t=0.6* is the rule of the default index and query. The rows *simhash* are the rule of an index without the MinHash layer (`--no-minhash`).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "How pairs count: the positives of the headline score are the pairs with J >= 0.8 (the target class). A reported pair with J < 0.5 is a false positive; a reported pair with 0.5 <= J < 0.8 is neither rewarded nor punished (a grey zone: such pairs are near duplicates by a looser standard, and a detector tuned for 0.8 may report them). *F1 strict* counts them as false positives too. The J >= 0.5 scores take every pair of the truth as a positive. Recall per bin is the share of the true pairs of that bin reported.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| corpus | shingles | docs | pairs J>=0.5 | per bin 0.5 / 0.6 / 0.7 / 0.8 / 0.9+ | simhash k=3: P / R / F1 (J>=0.8) | best simhash k (F1) | MinHash t=0.8: P / R / F1 | best MinHash t (F1) | bands or k<=3, best t (F1) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, t := range r.Truth {
		k3, _ := findParam(t.Simhash, fmt.Sprintf("k=%d", indexK))
		m8, _ := findParam(t.MinHash, "t=0.8")
		bs, bm, bi := bestF1(t.Simhash), bestF1(t.MinHash), bestF1(t.MinHashIdx)
		bins := make([]string, len(t.PerBin))
		for i, n := range t.PerBin {
			bins[i] = strconv.Itoa(n)
		}
		if k3.Hi.TP+k3.Hi.FN == 0 {
			fmt.Fprintf(w, "| %s | %s | %d | %d | %s | n/a: no pair with J >= 0.8 | | | | |\n", t.Spec.Name, t.Spec, t.Docs, t.Pairs, strings.Join(bins, " / "))
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %.3f / %.3f / %.3f | %s (%.3f) | %.3f / %.3f / %.3f | %s (%.3f) | %s (%.3f) |\n",
			t.Spec.Name, t.Spec, t.Docs, t.Pairs, strings.Join(bins, " / "),
			k3.Hi.Precision(), k3.Hi.Recall(), k3.Hi.F1(), bs.Param, bs.Hi.F1(),
			m8.Hi.Precision(), m8.Hi.Recall(), m8.Hi.F1(), bm.Param, bm.Hi.F1(), bi.Param, bi.Hi.F1())
	}
	fmt.Fprintln(w)
	if sa := r.truthOf("spamassassin-body"); sa != nil {
		fmt.Fprintf(w, "**The target** (F1 >= %.2f for J >= 0.8 on spamassassin-body with the default settings): ", targetF1)
		var hits []string
		for _, group := range [][]methodResult{sa.Simhash, sa.MinHash, sa.MinHashIdx} {
			for _, m := range group {
				if m.Hi.F1() >= targetF1 {
					hits = append(hits, fmt.Sprintf("%s %s (%.3f)", m.Method, m.Param, m.Hi.F1()))
				}
			}
		}
		k3, _ := findParam(sa.Simhash, fmt.Sprintf("k=%d", indexK))
		if len(hits) == 0 {
			fmt.Fprintf(w, "**not reached** by any method or parameter measured; the best are simhash %s (%.3f), MinHash bands %s (%.3f), bands or k<=3 %s (%.3f).\n\n",
				bestF1(sa.Simhash).Param, bestF1(sa.Simhash).Hi.F1(), bestF1(sa.MinHash).Param, bestF1(sa.MinHash).Hi.F1(), bestF1(sa.MinHashIdx).Param, bestF1(sa.MinHashIdx).Hi.F1())
		} else {
			def, _ := findParam(sa.MinHashIdx, fmt.Sprintf("t=%.1f", index.DefaultMinSimilarity))
			fmt.Fprintf(w, "reached by %s. The index's default (simhash k=%d and the MinHash layer: within k bits or sharing a band, estimate >= %.1f, the row *minhash bands or k<=%d t=%.1f*) gives %.3f", strings.Join(hits, ", "), indexK, index.DefaultMinSimilarity, indexK, index.DefaultMinSimilarity, def.Hi.F1())
			f1 := def.Hi.F1()
			if m, ok := r.methodRun("spamassassin-body", defaultMethod); ok {
				fmt.Fprintf(w, "; a real index built with every default and listed with `Pairs(nil)` ([methods side by side](#methods-side-by-side)) gives %.3f", m.Res.Hi.F1())
				f1 = min(f1, m.Res.Hi.F1())
			}
			if f1 >= targetF1 {
				fmt.Fprintln(w, ": the default reaches the target.")
			} else {
				fmt.Fprintln(w, ": **the default does not reach the target**.")
			}
			fmt.Fprintf(w, "\nWithout the MinHash layer (`--no-minhash`), simhash at k=%d gives %.3f.\n", indexK, k3.Hi.F1())
			fmt.Fprintln(w)
		}
	}
	if r.truthOf("fortunes-ru") != nil {
		fmt.Fprintln(w, "fortunes-ru's truth is on word 3-shingles (its documents are short; the corpora README's choice), while the MinHash layer estimates the Jaccard similarity of its default 5-word shingles: its MinHash rows there measure how well 5-shingle estimates find 3-shingle neighbours.")
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "![simhash F1 by k](charts/truth-simhash-f1.svg)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "![MinHash F1 by threshold](charts/truth-minhash-f1.svg)")
	fmt.Fprintln(w)
	for _, t := range r.Truth {
		fmt.Fprintf(w, "### %s\n\n", t.Spec.Name)
		t.writeMarkdown(w)
	}
	if sa := r.truthOf("spamassassin-body"); sa != nil && len(sa.Variants) > 0 {
		fmt.Fprintln(w, "### MinHash K and bands")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "The MinHash layer on spamassassin-body with other signature sizes and band splits (candidates: a shared band; reported: estimate >= t). More bands of fewer rows find more candidates (higher recall at low J, more estimates to compute); the default's rows are those of K=84, 14 bands of 6.")
		fmt.Fprintln(w)
		writeMethodTable(w, sa.PerBin, sa.Variants)
	}
}

func (r *report) writePlanted(w io.Writer) {
	if len(r.Planted) == 0 {
		return
	}
	fmt.Fprintln(w, "## Recall versus distance on planted edits")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Documents of at least 50 shingles are drawn from each corpus; each gets every edit of `eval.Apply` (%s) at every rate, and the pair (original, edited) is measured: its true Jaccard similarity on the corpus's ground-truth shingles (measured, not the nominal rate), the Hamming distance of the default fingerprints, and whether the default MinHash layer finds it at t = 0.8 (shared band and estimate >= 0.8). *Unrelated* are the pairs of different sampled documents with J < 0.3: the share within k is the false-positive rate among unrelated documents (brown is the negative control: no pair of it has J >= 0.3).\n\n", editNames())
	fmt.Fprintln(w, "![distance versus Jaccard](charts/planted-distance.svg)")
	fmt.Fprintln(w)
	for _, p := range r.Planted {
		fmt.Fprintf(w, "### %s\n\n", p.Spec.Name)
		fmt.Fprintf(w, "![recall versus k, %s](charts/planted-recall-k-%s.svg)\n\n", p.Spec.Name, p.Spec.Name)
		fmt.Fprintf(w, "![recall versus edit rate, %s](charts/planted-recall-rate-%s.svg)\n\n", p.Spec.Name, p.Spec.Name)
		p.writeMarkdown(w)
	}
}

func editNames() string {
	var s []string
	for _, e := range eval.Edits {
		s = append(s, e.String())
	}
	return strings.Join(s, ", ")
}

func dur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}

func (r *report) writeSpeed(w io.Writer) {
	fmt.Fprintln(w, "## Speed")
	fmt.Fprintln(w)
	if f := r.FP; f != nil {
		fmt.Fprintln(w, "### Fingerprints")
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%s: %d documents, %.1f MB of text; one goroutine, the best of %d passes after a warm-up pass, every implementation on the same texts in the same run (subcommand `fingerprints`). The ratio is simidx's throughput over the fastest peer of its group.\n\n", filepath.Base(f.Corpus), f.Docs, float64(f.Bytes)/1e6, f.Rounds)
		fmt.Fprintln(w, "| group | implementation | MB/s | ratio to the fastest peer |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, row := range f.Rows {
			ratio := "(peer)"
			if row.Ours {
				ratio = fmt.Sprintf("%.2fx", row.VsPeer)
			}
			fmt.Fprintf(w, "| %s | %s | %.1f | %s |\n", row.Group, row.Name, row.MBs, ratio)
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "The peers do less work per byte: mfonda/simhash and go-dedup/simhash lower-case the text and cut words with a regular expression (no markup removal, no Unicode normalization, no case folding beyond lower case); ekzhu/minhash-lsh is given the space-separated words, not canonical shingles, and computes K values for each.")
		fmt.Fprintln(w)
	}
	if len(r.Index) > 0 {
		fmt.Fprintln(w, "### Index: queries, bulk load, Pairs")
		fmt.Fprintln(w)
		fmt.Fprintf(w, "N random 64-bit fingerprints, of which 10%% are replaced by copies of others with 0 to %d bits flipped (so that `Pairs` has real output), bulk-loaded into a new index with k = %d and the design for N (subcommand `index -cold`). Queries: 20,000, half near a stored fingerprint (0 to k+1 bits away), half random, after a warm-up pass. The baseline is a brute-force scan of the same fingerprints held in memory (popcount of every one), on the first queries (300, or 50 at N >= 5e6), whose answers are checked to be identical. *Cold*: the file is evicted from the page cache (`fadvise(DONTNEED)`) before every 100th of 2,000 queries, and before the cold `Pairs`. `Pairs` is checked against an in-memory sort-based join (blocks of the fingerprint, each pair counted once) up to N = 1e6.\n\n", indexK, indexK)
		fmt.Fprintln(w, "| N | tables | load | docs/s | radix sort of the table entries | load / sort | bytes/doc | index p50 / p99 | brute force p50 / p99 | brute / index p50 | brute / index p99 | cold p50 / p99 | cold p50 / brute p50 | Pairs | Pairs time | cold Pairs time | Pairs check |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
		for _, x := range r.Index {
			fmt.Fprintf(w, "| %s | %d | %s | %.0f | %s | %.1fx | %.1f | %s / %s | %s / %s | %.0fx | %.0fx | %s / %s | %.2f | %d | %s | %s | %s |\n",
				sizeName(x.Cfg.N), x.Stats.Tables, dur(x.Load), float64(x.Cfg.N)/x.Load.Seconds(), dur(x.SortBaseline), float64(x.Load)/float64(max(x.SortBaseline, 1)), x.Stats.BytesPerDoc,
				dur(x.IP50), dur(x.IP99), dur(x.BP50), dur(x.BP99), float64(x.BP50)/float64(x.IP50), float64(x.BP99)/float64(x.IP99),
				dur(x.CP50), dur(x.CP99), float64(x.CP50)/float64(x.BP50), x.Pairs, dur(x.PairsTime), dur(x.ColdPairs), x.PairsCheck)
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "The load's lower bound beside it: the same table entries (each fingerprint permuted for each table, with its document number) radix-sorted in memory, one table after another, in the same run; the load also writes the records, the IDs and the tables to the file and commits. Bytes per document by bucket of the same indexes (`simidx stats` shows them for any index):")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| N | docs (records) | ids | exact | tables | bands | all buckets |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, x := range r.Index {
			per := map[string]float64{}
			var all float64
			for _, b := range x.Buckets {
				per[b.Name] = b.BytesPerDoc
				all += b.BytesPerDoc
			}
			fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", sizeName(x.Cfg.N), per["docs"], per["ids"], per["exact"], per["tables"], per["bands"], all)
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "![query latency versus N](charts/latency.svg)")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "![load and Pairs time versus N](charts/load-pairs.svg)")
		fmt.Fprintln(w)
	}
	if len(r.ByK) > 0 {
		fmt.Fprintf(w, "The cost of k: the same measurement at N = %s for k = 1 to 6 (5,000 queries, 100 brute-force queries, near copies 0 to k bits away; subcommand `index -k K`).\n\n", sizeName(r.ByK[0].Cfg.N))
		fmt.Fprintln(w, "| k | tables | load | bytes/doc | index p50 / p99 | brute force p50 | brute / index p50 | Pairs | Pairs time |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
		for _, x := range r.ByK {
			fmt.Fprintf(w, "| %d | %d | %s | %.1f | %s / %s | %s | %.0fx | %d | %s |\n", x.Cfg.K, x.Stats.Tables, dur(x.Load), x.Stats.BytesPerDoc,
				dur(x.IP50), dur(x.IP99), dur(x.BP50), float64(x.BP50)/float64(x.IP50), x.Pairs, dur(x.PairsTime))
		}
		fmt.Fprintln(w)
	}
	if e := r.E2E; e != nil && len(e.Runs) > 0 {
		fmt.Fprintln(w, "### simidx index end to end")
		fmt.Fprintln(w)
		fmt.Fprintf(w, "`simidx index --db NEW %s` (the command built with `go build -o` from `cmd/simidx`), %d documents, %.1f MB of text in %.1f MB of JSONL; wall time of the process, the best of %d runs, a new index each time (subcommand `e2e`). The baseline is the same command without the MinHash layer (`--no-minhash`).\n\n",
			filepath.Base(e.Corpus), e.Docs, float64(e.TextBytes)/1e6, float64(e.InputBytes)/1e6, e.Rounds)
		fmt.Fprintln(w, "| flags | wall | MB/s of text | MB/s of JSONL | ratio to the baseline's time | index bytes/doc | the command's summary |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, run := range e.Runs {
			flags := run.Flags
			if flags == "" {
				flags = "(default: MinHash on)"
			}
			fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %.2fx | %.0f | %s |\n", flags, dur(run.Wall), float64(e.TextBytes)/1e6/run.Wall.Seconds(),
				float64(e.InputBytes)/1e6/run.Wall.Seconds(), run.Wall.Seconds()/e.Runs[0].Wall.Seconds(), float64(run.FileBytes)/float64(e.Docs), strings.ReplaceAll(run.Summary, "|", "\\|"))
		}
		fmt.Fprintln(w)
		if len(e.Dedup) == 2 {
			fmt.Fprintf(w, "`simidx dedup --pairs --format jsonl %s`, the whole job (a temporary index, its pairs), best of %d runs; with `--verify` the temporary index keeps the shingle sets and every candidate pair is checked against its exact Jaccard similarity. The baseline is the command without `--verify`.\n\n", filepath.Base(e.Corpus), e.Rounds)
			fmt.Fprintln(w, "| flags | wall | ratio to the baseline's time | pairs |")
			fmt.Fprintln(w, "|---|---|---|---|")
			for _, run := range e.Dedup {
				flags := run.Flags
				if flags == "" {
					flags = "(default: estimated similarity)"
				}
				fmt.Fprintf(w, "| %s | %s | %.2fx | %s |\n", flags, dur(run.Wall), run.Wall.Seconds()/e.Dedup[0].Wall.Seconds(), run.Summary)
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.ReadTree) > 0 {
		writeReadTree(w, r.ReadTree)
	}
}

func sizeName(n int) string {
	e := math.Log10(float64(n))
	if e == math.Trunc(e) {
		return fmt.Sprintf("1e%d", int(e))
	}
	return strconv.Itoa(n)
}

func (r *report) writeFeatures(w io.Writer) {
	if len(r.Features) == 0 {
		return
	}
	fmt.Fprintln(w, "## Simhash feature choices")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Simhash fingerprints made of other features, on the ground truth of the corpus (J >= 0.5), all pairs within k compared (subcommand `features`). Precision and F1 are for the positives J >= 0.8 with the grey zone above. *mfonda words* are the fingerprints of github.com/mfonda/simhash (`simhash.Mfonda`, bit for bit).")
	fmt.Fprintln(w)
	for _, spec := range featureCorpora {
		f := r.Features[spec.Name]
		if f == nil {
			continue
		}
		fmt.Fprintf(w, "**%s**: %d documents, %d pairs with %s J >= 0.5.\n\n", spec.Name, f.Docs, f.Pairs, spec)
		fmt.Fprintln(w, "| features | k | recall J>=0.8 | recall J>=0.5 | pairs within k | precision (J>=0.8) | F1 (J>=0.8) |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, row := range f.Rows {
			fmt.Fprintf(w, "| %s | %d | %.3f | %.3f | %d | %.3f | %.3f |\n", row.Features, row.K, row.Recall8, row.Recall5, row.Reported, row.Precision, row.F1)
		}
		fmt.Fprintln(w)
	}
}

// charts returns every chart by file name.
func (r *report) charts() map[string]*chart {
	out := map[string]*chart{}
	one, zero := 1.0, 0.0
	if len(r.Truth) > 0 {
		sh := &chart{Title: "Simhash: F1 for pairs with J >= 0.8, by k", XLabel: "k (max Hamming distance)", YLabel: "F1 (J >= 0.8)", YMin: &zero, YMax: &one}
		mh := &chart{Title: "MinHash layer: F1 for pairs with J >= 0.8, by threshold", XLabel: "threshold t on the estimate", YLabel: "F1 (J >= 0.8)", YMin: &zero, YMax: &one}
		for _, t := range r.Truth {
			var s, m series
			s.Name, m.Name = t.Spec.Name, t.Spec.Name
			for k, x := range t.Simhash {
				s.X = append(s.X, float64(k))
				s.Y = append(s.Y, x.Hi.F1())
			}
			for i, x := range t.MinHash {
				m.X = append(m.X, mhThreshold[i])
				m.Y = append(m.Y, x.Hi.F1())
			}
			sh.Series = append(sh.Series, s)
			mh.Series = append(mh.Series, m)
		}
		out["truth-simhash-f1.svg"] = sh
		out["truth-minhash-f1.svg"] = mh
	}
	if len(r.Planted) > 0 {
		bins := eval.Bins(0.3, 0.05)
		dc := &chart{Title: "Hamming distance versus true Jaccard (planted edits)", XLabel: "true Jaccard similarity (bins of 0.05)", YLabel: "Hamming distance", YMin: &zero}
		for _, p := range r.Planted {
			med := series{Name: p.Spec.Name + " median"}
			p90 := series{Name: p.Spec.Name + " p90"}
			for i, ps := range byBin(p.Pairs, bins) {
				if len(ps) == 0 {
					continue
				}
				s := summarizePairs(ps)
				x := (bins[i].Lo + bins[i].Hi) / 2
				med.X, med.Y = append(med.X, x), append(med.Y, s.Median)
				p90.X, p90.Y = append(p90.X, x), append(p90.Y, s.P90)
			}
			dc.Series = append(dc.Series, med, p90)
		}
		out["planted-distance.svg"] = dc
		for _, p := range r.Planted {
			rk := &chart{Title: "Recall versus k by true Jaccard, " + p.Spec.Name, XLabel: "k (max Hamming distance)", YLabel: "share of planted pairs within k", YMin: &zero, YMax: &one}
			for i, ps := range byBin(p.Pairs, plantedBins) {
				if len(ps) == 0 {
					continue
				}
				s := summarizePairs(ps)
				se := series{Name: "J " + plantedBins[i].String()}
				for k := 0; k <= maxK; k++ {
					se.X, se.Y = append(se.X, float64(k)), append(se.Y, s.Within[k])
				}
				rk.Series = append(rk.Series, se)
			}
			un := summarizePairs(p.Unrelated)
			if un.N > 0 {
				se := series{Name: "unrelated J<0.3"}
				for k := 0; k <= maxK; k++ {
					se.X, se.Y = append(se.X, float64(k)), append(se.Y, un.Within[k])
				}
				rk.Series = append(rk.Series, se)
			}
			out["planted-recall-k-"+p.Spec.Name+".svg"] = rk
			rr := &chart{Title: fmt.Sprintf("Recall at k=%d versus edit rate, %s", indexK, p.Spec.Name), XLabel: "edit rate (log)", YLabel: fmt.Sprintf("share within %d bits", indexK), LogX: true, YMin: &zero, YMax: &one}
			for _, e := range eval.Edits {
				se := series{Name: e.String()}
				for _, rate := range p.Rates {
					s := summarizePairs(byEditRate(p.Pairs, e, rate))
					se.X, se.Y = append(se.X, rate), append(se.Y, s.Within[indexK])
				}
				rr.Series = append(rr.Series, se)
			}
			out["planted-recall-rate-"+p.Spec.Name+".svg"] = rr
		}
	}
	if len(r.Index) > 0 {
		lc := &chart{Title: "Query latency versus N (k = 3)", XLabel: "N (fingerprints)", YLabel: "latency (µs)", LogX: true, LogY: true}
		lt := &chart{Title: "Bulk load and Pairs time versus N (k = 3)", XLabel: "N (fingerprints)", YLabel: "time (s)", LogX: true, LogY: true}
		names := []string{"index p50", "index p99", "brute force p50", "brute force p99", "index cold p50", "index cold p99"}
		ls := make([]series, len(names))
		for i := range ls {
			ls[i].Name = names[i]
		}
		ts := []series{{Name: "bulk load"}, {Name: "Pairs"}, {Name: "Pairs, cold"}}
		for _, x := range r.Index {
			n := float64(x.Cfg.N)
			for i, d := range []time.Duration{x.IP50, x.IP99, x.BP50, x.BP99, x.CP50, x.CP99} {
				ls[i].X, ls[i].Y = append(ls[i].X, n), append(ls[i].Y, float64(d)/1e3)
			}
			for i, d := range []time.Duration{x.Load, x.PairsTime, x.ColdPairs} {
				ts[i].X, ts[i].Y = append(ts[i].X, n), append(ts[i].Y, d.Seconds())
			}
		}
		lc.Series, lt.Series = ls, ts
		out["latency.svg"] = lc
		out["load-pairs.svg"] = lt
	}
	return out
}

// costK compares the index at the k named by param ("k=4") with k=3.
func (r *report) costK(param string) string {
	var k int
	if _, err := fmt.Sscanf(param, "k=%d", &k); err != nil {
		return ""
	}
	var a, b *indexResult
	for _, x := range r.ByK {
		switch x.Cfg.K {
		case indexK:
			a = x
		case k:
			b = x
		}
	}
	if a == nil || b == nil {
		return ""
	}
	return fmt.Sprintf("at N = %s, k=%d has %d tables against %d, %.2fx the bytes per document and %.2fx the query p50 of k=%d",
		sizeName(a.Cfg.N), k, b.Stats.Tables, a.Stats.Tables, b.Stats.BytesPerDoc/a.Stats.BytesPerDoc, float64(b.IP50)/float64(a.IP50), indexK)
}
