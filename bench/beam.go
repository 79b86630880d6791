package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func init() { commands["beam"] = beamMain }

// beamOutputs are the outputs of simidx-beam, each a run of simidx dedup
// --format jsonl --emit.
var beamOutputs = []string{"pairs", "clusters", "keep", "drop"}

// beamResults is what one run of the beam subcommand measured, as its
// -json writes it and as all --beam-results reads it into
// docs/benchmarks.md.
type beamResults struct {
	Command string `json:"command"`
	Machine string `json:"machine"`
	// Corpus says how the corpora were generated.
	Corpus string `json:"corpus"`
	// LimitBytes is the resident size above which a run was killed, and
	// over which a run predicted to go was not started.
	LimitBytes int64       `json:"limit_bytes"`
	Sizes      []*beamSize `json:"sizes"`
}

// beamSize is one generated corpus and the runs on it.
type beamSize struct {
	Docs        int       `json:"docs"`
	CorpusBytes int64     `json:"corpus_bytes"`
	Runs        []beamRun `json:"runs"`
}

// beamRun is one tool on one corpus: simidx dedup (its four runs, one per
// output) or simidx-beam on a runner (one run, four outputs).
type beamRun struct {
	// Tool is "simidx dedup" or "simidx-beam --runner R".
	Tool string `json:"tool"`
	// Skipped says why the run was not made; Killed why it was stopped;
	// Error how it failed.
	Skipped string `json:"skipped,omitempty"`
	Killed  string `json:"killed,omitempty"`
	Error   string `json:"error,omitempty"`
	// WallSeconds is the wall time (simidx dedup: of its four runs
	// together); PeakRSS the largest resident size of a run, in bytes
	// (getrusage's ru_maxrss, what /usr/bin/time -v reports).
	WallSeconds float64 `json:"wall_seconds,omitempty"`
	PeakRSS     int64   `json:"peak_rss_bytes,omitempty"`
	// Lines are the lines of each output, in beamOutputs' order.
	Lines []int `json:"lines,omitempty"`
	// Same says that every output, sorted, equals simidx dedup's (for
	// simidx-beam runs).
	Same *bool `json:"same,omitempty"`
	// Differs names the first output that differs, and how.
	Differs string `json:"differs,omitempty"`
}

func beamMain(args []string) error {
	fs := flag.NewFlagSet("beam", flag.ExitOnError)
	sizes := fs.String("n", "100000,1000000", "corpus sizes in documents, comma-separated (1e5 allowed)")
	runners := fs.String("runners", "prism,direct", "Beam runners of simidx-beam, comma-separated")
	limitGB := fs.Float64("max-rss", 20, "`GB` (10^9 bytes) of resident memory above which a run is killed, and over which a run predicted (from the resident bytes per document at a smaller size) to go is not started")
	seed := fs.Uint64("seed", 7, "seed of the generated corpora")
	jsonOut := fs.String("json", "", "write the results to `FILE` (for all --beam-results)")
	dir := fs.String("dir", "", "directory for the corpora and outputs (default: a new temporary directory, removed at the end)")
	fs.Parse(args)
	var ns []int
	for _, f := range strings.Split(*sizes, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 1 {
			return fmt.Errorf("beam: bad size %q", f)
		}
		ns = append(ns, int(v))
	}
	slices.Sort(ns)
	work := *dir
	if work == "" {
		d, err := os.MkdirTemp("", "simidx-bench-beam")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	res := &beamResults{
		Command:    "cd bench && go run . beam " + strings.Join(args, " "),
		Machine:    machine(),
		Corpus:     fmt.Sprintf("beam/cmd/gencorpus -seed %d (the corpus of TestSameAsDedupGenerated: random words of the sample and the licences, 30%% planted near duplicates, 5%% exact copies, 200 edited versions of one boilerplate text, repeated IDs, empty texts)", *seed),
		LimitBytes: int64(*limitGB * 1e9),
	}
	// The results are written after every run, so that a run stopped
	// midway keeps what it measured.
	save := func() error {
		if *jsonOut == "" {
			return nil
		}
		return writeResultsJSON(*jsonOut, res)
	}
	err := runBeam(res, ns, strings.Split(*runners, ","), *seed, work, os.Stderr, save)
	writeBeamSection(os.Stdout, res)
	if werr := save(); werr != nil && err == nil {
		err = werr
	}
	return err
}

// writeResultsJSON writes res to path, indented.
func writeResultsJSON(path string, res any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// buildBeam builds simidx-beam and gencorpus of the beam module beside
// the simidx module this harness replaces into dir.
func buildBeam(dir string) (beamBin, genBin string, err error) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/simidx/simidx").Output()
	if err != nil {
		return "", "", fmt.Errorf("locating the simidx module: %w", err)
	}
	for _, c := range []struct{ bin, pkg string }{{"simidx-beam", "./cmd/simidx-beam"}, {"gencorpus", "./cmd/gencorpus"}} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, c.bin), c.pkg)
		build.Dir = filepath.Join(strings.TrimSpace(string(root)), "beam")
		if out, err := build.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("go build %s: %v\n%s", c.pkg, err, out)
		}
	}
	return filepath.Join(dir, "simidx-beam"), filepath.Join(dir, "gencorpus"), nil
}

// runBeam generates a corpus of each size, runs simidx dedup (once per
// output) and simidx-beam on each runner, and compares the outputs.
func runBeam(res *beamResults, ns []int, runners []string, seed uint64, work string, logw io.Writer, save func() error) error {
	simidx, err := buildSimidx(work)
	if err != nil {
		return err
	}
	beamBin, genBin, err := buildBeam(work)
	if err != nil {
		return err
	}
	// perDoc is each runner's resident bytes per document at the largest
	// size measured; stop says why a runner is not run again.
	perDoc := map[string]float64{}
	stop := map[string]string{}
	for _, n := range ns {
		corpus := filepath.Join(work, fmt.Sprintf("gen-%d.jsonl", n))
		fmt.Fprintf(logw, "bench: beam: generating %d documents\n", n)
		gen := exec.Command(genBin, "-n", strconv.Itoa(n), "-seed", strconv.FormatUint(seed, 10), "-o", corpus)
		if out, err := gen.CombinedOutput(); err != nil {
			return fmt.Errorf("gencorpus: %v\n%s", err, out)
		}
		fi, err := os.Stat(corpus)
		if err != nil {
			return err
		}
		size := &beamSize{Docs: n, CorpusBytes: fi.Size()}
		res.Sizes = append(res.Sizes, size)

		fmt.Fprintf(logw, "bench: beam: simidx dedup on %d documents\n", n)
		want := map[string][]string{}
		run := beamRun{Tool: "simidx dedup"}
		for _, emit := range beamOutputs {
			out := filepath.Join(work, "dedup-"+emit+".jsonl")
			m := measureRun(simidx, []string{"dedup", "-q", "--format", "jsonl", "--emit", emit, corpus}, out, filepath.Join(work, "dedup.stderr"), res.LimitBytes)
			run.WallSeconds += m.wall.Seconds()
			run.PeakRSS = max(run.PeakRSS, m.peak)
			if m.killed != "" || m.err != "" {
				run.Killed, run.Error = m.killed, m.err
				break
			}
			lines, err := sortedFileLines(out)
			if err != nil {
				return err
			}
			os.Remove(out)
			want[emit] = lines
			run.Lines = append(run.Lines, len(lines))
		}
		size.Runs = append(size.Runs, run)
		if err := save(); err != nil {
			return err
		}
		complete := len(want) == len(beamOutputs)

		for _, r := range runners {
			run := beamRun{Tool: "simidx-beam --runner " + r}
			if why, ok := stop[r]; ok {
				run.Skipped = why
				size.Runs = append(size.Runs, run)
				continue
			}
			if pd, ok := perDoc[r]; ok && pd*float64(n) > float64(res.LimitBytes) {
				run.Skipped = fmt.Sprintf("predicted %.1f GB resident (%.0f KB a document, measured on the smaller corpus) above the limit of %.0f GB", pd*float64(n)/1e9, pd/1e3, float64(res.LimitBytes)/1e9)
				size.Runs = append(size.Runs, run)
				continue
			}
			fmt.Fprintf(logw, "bench: beam: %s on %d documents\n", run.Tool, n)
			out := filepath.Join(work, "beam-"+r)
			os.RemoveAll(out)
			m := measureRun(beamBin, []string{"--runner", r, "--input", corpus, "--output", out}, "", filepath.Join(work, "beam-"+r+".stderr"), res.LimitBytes)
			run.WallSeconds, run.PeakRSS, run.Killed, run.Error = m.wall.Seconds(), m.peak, m.killed, m.err
			switch {
			case m.killed != "":
				stop[r] = fmt.Sprintf("killed on %d documents", n)
			case m.err != "":
				stop[r] = fmt.Sprintf("failed on %d documents", n)
			default:
				perDoc[r] = float64(m.peak) / float64(n)
				same := complete
				for _, emit := range beamOutputs {
					got, err := sortedFileLines(filepath.Join(out, emit+".jsonl"))
					if err != nil {
						return err
					}
					run.Lines = append(run.Lines, len(got))
					if complete && !slices.Equal(got, want[emit]) && run.Differs == "" {
						same = false
						run.Differs = fmt.Sprintf("%s: %d lines, simidx dedup %d; %s", emit, len(got), len(want[emit]), firstDifference(want[emit], got))
					}
				}
				if complete {
					run.Same = &same
				}
			}
			os.RemoveAll(out)
			size.Runs = append(size.Runs, run)
			if err := save(); err != nil {
				return err
			}
		}
		os.Remove(corpus)
	}
	return nil
}

// firstDifference describes the first line in which want and got differ.
func firstDifference(want, got []string) string {
	for i := range max(len(want), len(got)) {
		var a, b string
		if i < len(want) {
			a = want[i]
		}
		if i < len(got) {
			b = got[i]
		}
		if a != b {
			return fmt.Sprintf("first difference at line %d: dedup %.200q, beam %.200q", i+1, a, b)
		}
	}
	return "the same"
}

// sortedFileLines returns the lines of the file at path, sorted.
func sortedFileLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	slices.Sort(lines)
	return lines, sc.Err()
}

// beamMinAvailable is the memory the machine keeps available: a run is
// killed when less is left (the machine is shared).
const beamMinAvailable = 1.5e9

// measured is one process's wall time and peak resident size, and how it
// ended when not well.
type measured struct {
	wall   time.Duration
	peak   int64
	killed string
	err    string
}

// measureRun runs bin with args, its standard output to stdout (a file;
// discarded when empty) and its standard error to errPath, and measures
// it; a watcher kills it once its resident size is above limit.
func measureRun(bin string, args []string, stdout, errPath string, limit int64) measured {
	var m measured
	cmd := exec.Command(bin, args...)
	ef, err := os.Create(errPath)
	if err != nil {
		m.err = err.Error()
		return m
	}
	defer ef.Close()
	cmd.Stderr = ef
	if stdout != "" {
		of, err := os.Create(stdout)
		if err != nil {
			m.err = err.Error()
			return m
		}
		defer of.Close()
		cmd.Stdout = of
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		m.err = err.Error()
		return m
	}
	done := make(chan struct{})
	killed := make(chan string, 1)
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			rss, ok := residentBytes(cmd.Process.Pid)
			if ok && rss > limit {
				cmd.Process.Kill()
				killed <- fmt.Sprintf("resident %.1f GB after %.0f s, above the limit of %.0f GB", float64(rss)/1e9, time.Since(start).Seconds(), float64(limit)/1e9)
				return
			}
			if avail, ok := availableBytes(); ok && avail < beamMinAvailable {
				cmd.Process.Kill()
				killed <- fmt.Sprintf("resident %.1f GB after %.0f s, when the machine had %.1f GB left (other processes used the rest)", float64(rss)/1e9, time.Since(start).Seconds(), float64(avail)/1e9)
				return
			}
		}
	}()
	werr := cmd.Wait()
	close(done)
	m.wall = time.Since(start)
	m.peak = maxRSS(cmd.ProcessState)
	select {
	case k := <-killed:
		m.killed = k
		return m
	default:
	}
	if werr != nil {
		tail, _ := os.ReadFile(errPath)
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		m.err = fmt.Sprintf("%v: %s", werr, strings.TrimSpace(string(tail)))
	}
	return m
}
