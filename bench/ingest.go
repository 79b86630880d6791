package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/input"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/spf13/pflag"
)

// The corpora the ingest measurement builds from the corpora directory.
const (
	// mixedCorpus is every document of eight corpora (mail bodies, man
	// pages in English, Russian and Japanese, fortunes in English and
	// Russian, licences, Brown), then rounds of copies of all of them,
	// each copy with one edit of a random kind at a rate of 1-5%, until
	// the JSONL holds at least 300 MB.
	mixedCorpus = "mixed-300mb"
	// sentencesCorpus is every distinct sentence of 8 to 60 words of the
	// English and Russian corpora, then copies of random ones with one to
	// three words substituted, inserted or deleted, 1,000,000 texts in
	// all.
	sentencesCorpus = "sentences-1m"
)

// A corpus named mixed-300mb:SOURCE is the documents of mixed-300mb that
// come from SOURCE, one of mixedSources, with their edited copies: text of
// one kind (mail bodies, Japanese or Russian man pages), for the speed of
// an ingest against its own kernel.
const sourceSep = ":"

// mixedPart returns the source of a corpus named mixed-300mb:SOURCE.
func mixedPart(name string) (source string, ok bool) {
	source, ok = strings.CutPrefix(name, mixedCorpus+sourceSep)
	return source, ok && slices.Contains(mixedSources, source)
}

var mixedSources = []string{"spamassassin-body", "manpages-en", "manpages-ru", "manpages-ja",
	"fortunes-en", "fortunes-ru", "spdx-licenses", "brown"}

var sentenceSources = []string{"brown", "fortunes-en", "fortunes-ru", "manpages-en", "manpages-ru",
	"spamassassin-body", "spdx-licenses"}

// ingestResults is what one run of the ingest subcommand measured, as its
// -json writes it and as all --ingest-results reads it.
type ingestResults struct {
	Command string          `json:"command"`
	Commit  string          `json:"commit"` // the simidx revision measured
	Machine string          `json:"machine"`
	Corpora []ingestCorpus  `json:"corpora"`
	Kernels []ingestKernel  `json:"kernels"`
	Runs    []ingestRun     `json:"runs"`
	Profile []ingestProfile `json:"profiles,omitempty"`
}

type ingestCorpus struct {
	Name       string `json:"name"`
	Docs       int    `json:"docs"`
	TextBytes  int64  `json:"text_bytes"`
	InputBytes int64  `json:"input_bytes"`
}

// ingestKernel is the analysis alone (index.Fingerprinter.AnalyzeText:
// canonical text, fingerprint, signature, short set, bands) on one
// goroutine over a corpus held in memory: the bound of a core.
type ingestKernel struct {
	Corpus   string  `json:"corpus"`
	Settings string  `json:"settings"`
	MBps     float64 `json:"mb_per_s"`
}

// ingestRun is one timed process.
type ingestRun struct {
	Corpus    string        `json:"corpus"`
	Command   string        `json:"command"` // index or dedup
	Flags     string        `json:"flags"`
	Procs     int           `json:"gomaxprocs"`
	Rounds    int           `json:"rounds"` // runs; the fastest is reported
	Wall      time.Duration `json:"wall_ns"`
	MaxRSS    int64         `json:"max_rss_bytes"`
	FileBytes int64         `json:"file_bytes,omitempty"`
	DataBytes int64         `json:"data_bytes,omitempty"` // the pages in use (index.Stats)
	Summary   string        `json:"summary"`
	// Walls is the wall time of each round, in order: the rounds of
	// GOMAXPROCS 1 and 2 alternate, so that the speed-up is taken round
	// by round.
	Walls []time.Duration `json:"walls_ns,omitempty"`
}

// ingestProfile is the top of a CPU profile of index.Load.
type ingestProfile struct {
	Label string   `json:"label"`
	Procs int      `json:"gomaxprocs"`
	Top   []string `json:"top"`
}

func ingestMain(args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ExitOnError)
	corpora := fs.String("corpora", "", "directory of the JSONL corpora (required)")
	only := fs.String("only", "", "comma-separated corpora to measure (default: "+mixedCorpus+","+sentencesCorpus+"; also "+mixedCorpus+sourceSep+"SOURCE, the documents of one source)")
	jsonOut := fs.String("json", "", "write the results to `FILE` (for all --ingest-results)")
	profile := fs.Bool("profile", true, "profile index.Load in this process on each corpus")
	jobs := fs.String("jobs", "index,index-nominhash,dedup", "comma-separated runs: index, index-nominhash, dedup")
	procs := fs.String("procs", "1,2", "comma-separated GOMAXPROCS of the runs")
	rounds := fs.Int("rounds", 2, "runs of each command; the fastest is reported")
	fs.Parse(args)
	if *corpora == "" {
		return fmt.Errorf("ingest: -corpora is required")
	}
	names := []string{mixedCorpus, sentencesCorpus}
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	var ps []int
	for _, p := range strings.Split(*procs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return fmt.Errorf("ingest: bad -procs %q", *procs)
		}
		ps = append(ps, n)
	}
	res, err := runIngest(*corpora, names, strings.Split(*jobs, ","), ps, max(*rounds, 1), *profile, os.Stderr)
	if err != nil {
		return err
	}
	res.Command = "cd bench && go run . ingest " + strings.Join(args, " ")
	res.writeMarkdown(os.Stdout)
	if *jsonOut != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*jsonOut, append(b, '\n'), 0o644)
	}
	return nil
}

func runIngest(corpora string, names, jobNames []string, procs []int, rounds int, profile bool, logw io.Writer) (*ingestResults, error) {
	dir, err := os.MkdirTemp("", "simidx-ingest")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin, err := buildSimidx(dir)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	res := &ingestResults{Machine: machine(), Commit: simidxCommit()}
	for _, name := range names {
		path, err := ingestCorpusPath(corpora, name)
		if err != nil {
			return nil, err
		}
		docs, err := testcorpus.Load(path)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		c := ingestCorpus{Name: name, Docs: len(docs), InputBytes: fi.Size()}
		for _, d := range docs {
			c.TextBytes += int64(len(d.Text))
		}
		res.Corpora = append(res.Corpora, c)
		fmt.Fprintf(logw, "ingest: %s: %d documents, %.1f MB of JSONL\n", name, c.Docs, float64(c.InputBytes)/1e6)
		for _, noMin := range []bool{false, true} {
			k, err := kernel(docs, noMin)
			if err != nil {
				return nil, err
			}
			k.Corpus = name
			res.Kernels = append(res.Kernels, k)
		}
		docs = nil
		debug.FreeOSMemory()
		type job struct {
			cmd   string
			flags []string
		}
		all := map[string]job{"index": {"index", nil}, "index-nominhash": {"index", []string{"--no-minhash"}}, "dedup": {"dedup", nil}}
		for _, jn := range jobNames {
			if jn == "" {
				continue
			}
			j, ok := all[jn]
			if !ok {
				return nil, fmt.Errorf("ingest: unknown job %q (index, index-nominhash, dedup)", jn)
			}
			// The rounds alternate the GOMAXPROCS, so that a machine
			// that slows down or speeds up for a while (a shared host)
			// weighs on each alike.
			best := make([]ingestRun, len(procs))
			for i := range rounds {
				for k, p := range procs {
					ri, err := ingestProcess(bin, dir, path, j.cmd, j.flags, p)
					if err != nil {
						return nil, err
					}
					fmt.Fprintf(logw, "ingest: %s %s %s GOMAXPROCS=%d round %d: %.2fs, %.0f MB RSS\n", name, j.cmd,
						ri.Flags, p, i+1, ri.Wall.Seconds(), float64(ri.MaxRSS)/1e6)
					walls := append(best[k].Walls, ri.Wall)
					if i == 0 || ri.Wall < best[k].Wall {
						best[k] = ri
					}
					best[k].Walls = walls
				}
			}
			for _, r := range best {
				r.Corpus, r.Rounds = name, rounds
				res.Runs = append(res.Runs, r)
			}
		}
		if profile {
			p, err := profileLoad(dir, path)
			if err != nil {
				return nil, err
			}
			p.Label = name
			res.Profile = append(res.Profile, p)
		}
	}
	return res, nil
}

// simidxCommit names the revision of the simidx module measured.
func simidxCommit() string {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/simidx/simidx").Output()
	if err != nil {
		return "unknown"
	}
	dir := strings.TrimSpace(string(root))
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	// Changes to the harness itself do not change what is measured.
	if st, _ := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench").Output(); len(st) > 0 {
		rev += " with changes"
	}
	return rev
}

// kernel measures the analysis of docs on one goroutine, the best of three
// passes.
func kernel(docs []testcorpus.Doc, noMinHash bool) (ingestKernel, error) {
	s := index.DefaultSettings()
	name := "default (MinHash on)"
	if noMinHash {
		s.MinHash = false
		name = "--no-minhash"
	}
	f, err := index.NewFingerprinter(&s)
	if err != nil {
		return ingestKernel{}, err
	}
	texts := make([][]byte, len(docs))
	var n int64
	for i, d := range docs {
		texts[i] = []byte(d.Text)
		n += int64(len(d.Text))
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	d := best(3, func() {
		for _, t := range texts {
			f.AnalyzeText(t)
		}
	})
	return ingestKernel{Settings: name, MBps: float64(n) / 1e6 / d.Seconds()}, nil
}

// readAll reads the file at path to its end.
func readAll(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(io.Discard, f)
	return err
}

// ingestProcess times one simidx process on path with GOMAXPROCS procs.
func ingestProcess(bin, dir, path, cmdName string, flags []string, procs int) (ingestRun, error) {
	db := filepath.Join(dir, "ingest.simidx")
	os.Remove(db)
	args := []string{cmdName}
	if cmdName == "index" {
		args = append(args, "--db", db)
	}
	args = append(append(args, flags...), path)
	// The input is read once first, untimed: every run reads it from the
	// page cache, which a host reclaiming idle memory may have emptied
	// since the run before.
	if err := readAll(path); err != nil {
		return ingestRun{}, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return ingestRun{}, err
	}
	// The peak resident size, sampled from /proc every 20 ms: a child's
	// ru_maxrss would count from the harness's own peak, which holds a
	// corpus.
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var m int64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, ok := residentBytes(cmd.Process.Pid); ok && v > m {
				m = v
			}
			select {
			case <-done:
				peak <- m
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(t)
	close(done)
	if err != nil {
		return ingestRun{}, fmt.Errorf("ingest: simidx %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	r := ingestRun{Command: cmdName, Flags: strings.Join(flags, " "), Procs: procs, Wall: wall, MaxRSS: <-peak}
	if st, err := os.Stat(db); err == nil && cmdName == "index" {
		r.FileBytes = st.Size()
		if x, err := index.Open(db, &index.Options{ReadOnly: true}); err == nil {
			if s, err := x.Stats(); err == nil {
				r.DataBytes = s.DataBytes
			}
			x.Close()
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if strings.HasPrefix(l, "indexed ") || strings.HasPrefix(l, "simidx dedup: ") && strings.Contains(l, "cluster") {
			r.Summary = l
		}
	}
	os.Remove(db)
	return r, nil
}

// profileLoad profiles index.Load of the corpus at path into a new index,
// as simidx index reads and loads it, and returns the top 10 functions by
// flat time.
func profileLoad(dir, path string) (ingestProfile, error) {
	db := filepath.Join(dir, "profile.simidx")
	os.Remove(db)
	defer os.Remove(db)
	s := index.DefaultSettings()
	x, err := index.Open(db, &index.Options{Settings: &s, NoSync: true})
	if err != nil {
		return ingestProfile{}, err
	}
	var fl input.Flags
	pfs := pflag.NewFlagSet("ingest", pflag.ContinueOnError)
	fl.Add(pfs)
	r, err := input.Open([]string{path}, fl, nil, console.New(io.Discard, "ingest"))
	if err != nil {
		x.Close()
		return ingestProfile{}, err
	}
	prof := filepath.Join(dir, "load.pprof")
	f, err := os.Create(prof)
	if err != nil {
		x.Close()
		return ingestProfile{}, err
	}
	ctx := context.Background()
	if err := pprof.StartCPUProfile(f); err != nil {
		x.Close()
		return ingestProfile{}, err
	}
	_, lerr := x.Load(ctx, r.All(ctx), &index.LoadOptions{SkipInvalid: true})
	pprof.StopCPUProfile()
	f.Close()
	if err := x.Close(); lerr == nil {
		lerr = err
	}
	if lerr != nil {
		return ingestProfile{}, lerr
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=10", prof).Output()
	if err != nil {
		return ingestProfile{}, fmt.Errorf("go tool pprof: %w", err)
	}
	var top []string
	started := false
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "flat ") {
			started = true
		}
		if started && strings.TrimSpace(l) != "" || strings.HasPrefix(l, "Duration:") || strings.HasPrefix(l, "Showing") {
			top = append(top, strings.TrimRight(l, " "))
		}
	}
	return ingestProfile{Top: top, Procs: runtime.GOMAXPROCS(0)}, nil
}

// ingestCorpusPath returns the path of corpus name built from the corpora
// in dir, building it in the temporary directory when it is not there.
func ingestCorpusPath(dir, name string) (string, error) {
	out := filepath.Join(os.TempDir(), "simidx-bench-"+strings.ReplaceAll(name, sourceSep, "-")+".jsonl")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	var build func(dir string, w *bufio.Writer) error
	switch source, part := mixedPart(name); {
	case name == mixedCorpus:
		build = writeMixed
	case name == sentencesCorpus:
		build = writeSentences
	case part:
		mixed, err := ingestCorpusPath(dir, mixedCorpus)
		if err != nil {
			return "", err
		}
		build = func(_ string, w *bufio.Writer) error { return writePart(mixed, source, w) }
	default:
		return "", fmt.Errorf("ingest: unknown corpus %q (%s, %s or %s%sSOURCE, SOURCE one of %s)", name,
			mixedCorpus, sentencesCorpus, mixedCorpus, sourceSep, strings.Join(mixedSources, ", "))
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = build(dir, w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, out)
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("ingest: building %s: %w", name, err)
	}
	return out, nil
}

// jsonlWriter writes {"id","lang","text"} lines.
func jsonlWriter(w io.Writer) func(id, lang, text string) error {
	enc := json.NewEncoder(w)
	return func(id, lang, text string) error {
		return enc.Encode(testcorpus.Doc{ID: id, Lang: lang, Text: text})
	}
}

// writePart copies to w the lines of the JSONL file mixed whose ID starts
// with source and a slash: the documents of source and their copies.
func writePart(mixed, source string, w *bufio.Writer) error {
	f, err := os.Open(mixed)
	if err != nil {
		return err
	}
	defer f.Close()
	prefix := []byte(`{"id":"` + source + "/")
	r := bufio.NewReaderSize(f, 1<<20)
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		if bytes.HasPrefix(line, prefix) {
			if _, werr := w.Write(line); werr != nil {
				return werr
			}
			n++
		}
		if err == io.EOF && n == 0 {
			return fmt.Errorf("no line of %s starts with %s", mixed, prefix)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func writeMixed(dir string, w *bufio.Writer) error {
	var docs []testcorpus.Doc
	var size int64
	put := jsonlWriter(w)
	for _, name := range mixedSources {
		ds, err := testcorpus.Load(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			return err
		}
		for _, d := range ds {
			d.ID = name + "/" + d.ID
			if err := put(d.ID, d.Lang, d.Text); err != nil {
				return err
			}
			size += int64(len(d.Text)) + int64(len(d.ID)) + 40
			docs = append(docs, d)
		}
	}
	rng := rand.New(rand.NewPCG(27, 300))
	edits := []eval.Edit{eval.Insert, eval.Delete, eval.Substitute, eval.Swap, eval.Shuffle, eval.Crop}
	for round := 1; size < 300e6; round++ {
		for _, d := range docs {
			e := edits[rng.IntN(len(edits))]
			text := eval.Apply(rng, d.Text, e, 0.01+0.04*rng.Float64())
			id := fmt.Sprintf("%s~%d", d.ID, round)
			if err := put(id, d.Lang, text); err != nil {
				return err
			}
			size += int64(len(text)) + int64(len(id)) + 40
		}
	}
	return nil
}

var sentenceEnd = regexp.MustCompile(`[.!?]\s+|\n\s*\n`)

func writeSentences(dir string, w *bufio.Writer) error {
	const total = 1_000_000
	type sent struct{ lang, text string }
	var sents []sent
	seen := map[string]bool{}
	for _, name := range sentenceSources {
		ds, err := testcorpus.Load(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			return err
		}
		for _, d := range ds {
			for _, s := range sentenceEnd.Split(d.Text, -1) {
				ws := strings.Fields(s)
				if len(ws) < 8 || len(ws) > 60 {
					continue
				}
				t := strings.Join(ws, " ")
				if !seen[t] {
					seen[t] = true
					sents = append(sents, sent{d.Lang, t})
				}
			}
		}
	}
	seen = nil
	put := jsonlWriter(w)
	for i, s := range sents[:min(len(sents), total)] {
		if err := put(fmt.Sprint("s", i), s.lang, s.text); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(1, 1_000_000))
	for i := len(sents); i < total; i++ {
		o := rng.IntN(len(sents))
		ws := strings.Fields(sents[o].text)
		for range 1 + rng.IntN(3) {
			p := rng.IntN(len(ws))
			switch rng.IntN(3) {
			case 0:
				ws[p] = fmt.Sprint("x", rng.IntN(10000))
			case 1:
				ws = slices.Insert(ws, p, fmt.Sprint("w", rng.IntN(10000)))
			default:
				if len(ws) > 1 {
					ws = slices.Delete(ws, p, p+1)
				}
			}
		}
		if err := put(fmt.Sprintf("s%d~%d", o, i), sents[o].lang, strings.Join(ws, " ")); err != nil {
			return err
		}
	}
	return nil
}

// writeMarkdown writes the section of the report.
func (r *ingestResults) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "Measured by `%s`, on simidx %s (%s).\n\n", r.Command, r.Commit, r.Machine)
	for _, c := range r.Corpora {
		fmt.Fprintf(w, "- **%s**: %d documents, %.1f MB of text in %.1f MB of JSONL (%s)\n", c.Name, c.Docs,
			float64(c.TextBytes)/1e6, float64(c.InputBytes)/1e6, ingestCorpusDoc(c.Name))
	}
	fmt.Fprintf(w, "\nThe analysis alone (`Fingerprinter.AnalyzeText`, one goroutine, the texts in memory): the most one core can give.\n\n")
	fmt.Fprintf(w, "| corpus | settings | MB/s of text |\n|---|---|---|\n")
	for _, k := range r.Kernels {
		fmt.Fprintf(w, "| %s | %s | %.1f |\n", k.Corpus, k.Settings, k.MBps)
	}
	fmt.Fprintf(w, "\nThe command, wall time of the process with GOMAXPROCS 1 and 2 (a new index each time, the input read once just before, untimed, so that every run reads it from memory; the fastest of the rounds in the table, which alternate the GOMAXPROCS), its peak resident memory (sampled from /proc every 20 ms), and the index's size: the bytes of its pages in use a document (the \"bytes per document\" of `simidx stats`), and in brackets of its file, which grows ahead of use by up to an eighth of the data (at most 64 MB). The speed-up is the time with 1 over the time with 2: with two rounds or more, the median of the rounds' ratios (each round runs both, one after the other) and in brackets their range; MB/s per core is MB/s of text over GOMAXPROCS; the share of the kernel is MB/s per core over the analysis alone with the same settings.\n\n")
	fmt.Fprintf(w, "| corpus | command | GOMAXPROCS | rounds | wall | MB/s of text | MB/s per core | share of the kernel | docs/s | speed-up | peak RSS | bytes/doc |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, run := range r.Runs {
		c := r.corpus(run.Corpus)
		mbps := float64(c.TextBytes) / 1e6 / run.Wall.Seconds()
		speedup, share, perDoc := "", "", ""
		if run.Procs == 2 {
			if one := r.run(run.Corpus, run.Command, run.Flags, 1); one != nil {
				speedup = speedupOf(one, &run)
			}
		}
		settings := "default (MinHash on)"
		if strings.Contains(run.Flags, "--no-minhash") {
			settings = "--no-minhash"
		}
		for _, k := range r.Kernels {
			if k.Corpus == run.Corpus && k.Settings == settings {
				share = fmt.Sprintf("%.0f%%", 100*mbps/float64(run.Procs)/k.MBps)
			}
		}
		switch {
		case run.DataBytes > 0:
			perDoc = fmt.Sprintf("%.0f (%.0f)", float64(run.DataBytes)/float64(c.Docs), float64(run.FileBytes)/float64(c.Docs))
		case run.FileBytes > 0:
			perDoc = fmt.Sprintf("%.0f", float64(run.FileBytes)/float64(c.Docs))
		}
		cmd := "simidx " + run.Command
		if run.Flags != "" {
			cmd += " " + run.Flags
		}
		fmt.Fprintf(w, "| %s | `%s` | %d | %d | %.2f s | %.1f | %.1f | %s | %.0f | %s | %.0f MB | %s |\n", run.Corpus, cmd, run.Procs,
			max(run.Rounds, 1), run.Wall.Seconds(), mbps, mbps/float64(run.Procs), share, float64(c.Docs)/run.Wall.Seconds(), speedup,
			float64(run.MaxRSS)/1e6, perDoc)
	}
	for _, p := range r.Profile {
		if p.Procs == 0 {
			continue
		}
		fmt.Fprintf(w, "\nCPU profile of `index.Load` of %s into a new index, default settings, GOMAXPROCS %d, the top 10 functions by time spent in them (`go tool pprof -top`):\n\n```\n%s\n```\n",
			p.Label, p.Procs, strings.Join(p.Top, "\n"))
	}
}

// speedupOf returns the speed-up from run one (GOMAXPROCS 1) to run two:
// with the times of two rounds or more of each, the median of the rounds'
// ratios and their range (a round runs both, one after the other, so that
// a machine whose speed drifts weighs on both alike); else the ratio of the
// fastest times.
func speedupOf(one, two *ingestRun) string {
	if len(one.Walls) < 2 || len(one.Walls) != len(two.Walls) {
		return fmt.Sprintf("%.2fx", one.Wall.Seconds()/two.Wall.Seconds())
	}
	rs := make([]float64, len(one.Walls))
	for i := range rs {
		rs[i] = one.Walls[i].Seconds() / two.Walls[i].Seconds()
	}
	slices.Sort(rs)
	med := rs[len(rs)/2]
	if len(rs)%2 == 0 {
		med = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
	}
	return fmt.Sprintf("%.2fx (%.2f-%.2f)", med, rs[0], rs[len(rs)-1])
}

func (r *ingestResults) corpus(name string) ingestCorpus {
	for _, c := range r.Corpora {
		if c.Name == name {
			return c
		}
	}
	return ingestCorpus{Name: name, Docs: 1, TextBytes: 1}
}

func (r *ingestResults) run(corpus, cmd, flags string, procs int) *ingestRun {
	for i, x := range r.Runs {
		if x.Corpus == corpus && x.Command == cmd && x.Flags == flags && x.Procs == procs {
			return &r.Runs[i]
		}
	}
	return nil
}

func ingestCorpusDoc(name string) string {
	switch name {
	case mixedCorpus:
		return "every document of " + strings.Join(mixedSources, ", ") + ", then rounds of copies of all of them, each with one edit of a random kind at 1-5%, until 300 MB"
	case sentencesCorpus:
		return "every distinct sentence of 8-60 words of " + strings.Join(sentenceSources, ", ") + ", then copies of random ones with 1-3 words substituted, inserted or deleted, 1,000,000 texts"
	}
	if source, ok := mixedPart(name); ok {
		return "the documents of " + source + " in " + mixedCorpus + " and their edited copies"
	}
	return ""
}

// ingestSerial says which stage of a load runs on one goroutine, as the
// profiles show.
const ingestSerial = "One stage of a load runs on one goroutine and bounds the speed-up from a second core: bbolt's puts, each a search of the B+tree from its root (`Cursor.search`, `cmpbody`), of the groups of document records as they are analysed and, at the end of a load into a new index, of the ID, exact, table and band groups, while a second goroutine merges the sorted runs of band postings. Every bucket is grouped: about 64 band hashes a put (schema 15; 16 from schema 9 to 14), 32 IDs or exact hashes a put (schema 11) at the expected size, and as many records as fill a page a put (schema 12); the radix sorts of the IDs, exact hashes and tables run on all cores. JSON lines are decoded in one validating pass on the reading goroutine (`jsondoc.Document`)."

// readIngestResults reads the results that ingest -json wrote to the
// comma-separated paths, one run each (for example one per corpus), as
// one: their commands joined, their rows in turn. They must be of one
// revision.
func readIngestResults(paths string) (*ingestResults, error) {
	var all *ingestResults
	for _, p := range strings.Split(paths, ",") {
		r, err := readIngestFile(p)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = r
			continue
		}
		if r.Commit != all.Commit {
			return nil, fmt.Errorf("%s: simidx %s, not %s as the results before it", p, r.Commit, all.Commit)
		}
		all.Command += "; " + r.Command
		all.Corpora = append(all.Corpora, r.Corpora...)
		all.Kernels = append(all.Kernels, r.Kernels...)
		all.Runs = append(all.Runs, r.Runs...)
		all.Profile = append(all.Profile, r.Profile...)
	}
	return all, nil
}

// readIngestFile reads the results that ingest -json wrote to path.
func readIngestFile(path string) (*ingestResults, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r ingestResults
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// writeIngestSection writes the section of the report on ingest on all
// cores: the results of this revision, and those of an earlier one when
// given; without results, how to get them.
func writeIngestSection(w io.Writer, r, before *ingestResults) {
	fmt.Fprintln(w, "### Ingest on all cores")
	fmt.Fprintln(w)
	if r == nil {
		fmt.Fprintln(w, "Too long for this run (about 15 minutes on 2 cores); its results are put here by")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "```")
		fmt.Fprintln(w, "cd bench && go run . ingest -corpora DIR -json /tmp/ingest.json")
		fmt.Fprintln(w, "cd bench && go run . all --corpora DIR --ingest-results /tmp/ingest.json")
		fmt.Fprintln(w, "```")
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintln(w, "`simidx index` and `simidx dedup` on corpora that the harness builds from the corpora directory (`-only mixed-300mb:SOURCE` measures the documents of one source of the mixed corpus, text of one kind, against its own analysis): reading and decoding the JSONL, the analysis and the writing overlap (a goroutine reads, the workers analyse, the caller writes), and a new index's band postings are sorted externally within `--memory` (128 MiB by default) and written once in key order.")
	fmt.Fprintln(w)
	r.writeMarkdown(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, ingestSerial)
	if before != nil {
		fmt.Fprintf(w, "\n#### The same measurement of an earlier revision\n\n")
		before.writeMarkdown(w)
	}
	fmt.Fprintln(w)
}
