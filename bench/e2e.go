package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/simidx/simidx/internal/testcorpus"
)

// e2eRun is one timed `simidx index` run.
type e2eRun struct {
	Flags     string
	Wall      time.Duration
	FileBytes int64
	Summary   string // the command's own summary line
}

type e2eResult struct {
	Corpus     string
	InputBytes int64 // size of the JSONL file
	TextBytes  int64 // total size of the texts
	Docs       int
	Rounds     int
	Runs       []e2eRun
	// Dedup are timed `simidx dedup --pairs` runs of the corpus: the
	// defaults, then with --verify (exact similarities).
	Dedup []e2eRun
}

// runE2E builds the simidx command and times `simidx index` on corpus,
// without the MinHash layer, with the defaults (MinHash on) and with the
// shingle sets stored, then `simidx dedup --pairs` without and with
// --verify, best of rounds, a new index each time.
func runE2E(corpus string, rounds int) (*e2eResult, error) {
	dir, err := os.MkdirTemp("", "simidx-e2e")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin, err := buildSimidx(dir)
	if err != nil {
		return nil, fmt.Errorf("e2e: %w", err)
	}
	docs, err := testcorpus.Load(corpus)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(corpus)
	if err != nil {
		return nil, err
	}
	res := &e2eResult{Corpus: corpus, InputBytes: fi.Size(), Docs: len(docs), Rounds: rounds}
	for _, d := range docs {
		res.TextBytes += int64(len(d.Text))
	}
	for _, flags := range [][]string{{"--no-minhash"}, nil, {"--store-shingles"}} {
		run := e2eRun{Flags: strings.Join(flags, " ")}
		for r := range rounds {
			db := filepath.Join(dir, "e2e.simidx")
			os.Remove(db)
			args := append([]string{"index", "--db", db}, flags...)
			cmd := exec.Command(bin, append(args, corpus)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			t := time.Now()
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("e2e: simidx %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
			}
			wall := time.Since(t)
			if r == 0 || wall < run.Wall {
				run.Wall = wall
				if st, err := os.Stat(db); err == nil {
					run.FileBytes = st.Size()
				}
				// The summary line (other lines may follow it: the
				// documents without words, for one).
				for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
					if strings.HasPrefix(l, "indexed ") {
						run.Summary = l
					}
				}
			}
		}
		res.Runs = append(res.Runs, run)
	}
	for _, flags := range [][]string{nil, {"--verify"}} {
		run := e2eRun{Flags: strings.Join(flags, " ")}
		for r := range rounds {
			args := append([]string{"dedup", "--pairs", "--format", "jsonl"}, flags...)
			cmd := exec.Command(bin, append(args, corpus)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			t := time.Now()
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("e2e: simidx %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
			}
			if wall := time.Since(t); r == 0 || wall < run.Wall {
				run.Wall = wall
				run.Summary = fmt.Sprintf("%d pairs", bytes.Count(stdout.Bytes(), []byte("\n")))
			}
		}
		res.Dedup = append(res.Dedup, run)
	}
	return res, nil
}

func e2eMain(args []string) error {
	fs := flag.NewFlagSet("e2e", flag.ExitOnError)
	corpus := fs.String("corpus", "", "JSONL corpus (required)")
	rounds := fs.Int("rounds", 2, "runs per setting; the fastest is reported")
	fs.Parse(args)
	if *corpus == "" {
		return fmt.Errorf("e2e: -corpus is required")
	}
	r, err := runE2E(*corpus, *rounds)
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s\n", machine())
	for _, run := range r.Dedup {
		fmt.Printf("simidx dedup --pairs %s: %.2fs, %s\n", run.Flags, run.Wall.Seconds(), run.Summary)
	}
	for _, run := range r.Runs {
		fmt.Printf("simidx index %s: %d documents, %.1f MB of text in %.2fs: %.1f MB/s of text, %.1f MB/s of JSONL; index %.1f bytes/doc\n  (%s)\n",
			run.Flags, r.Docs, float64(r.TextBytes)/1e6, run.Wall.Seconds(), float64(r.TextBytes)/1e6/run.Wall.Seconds(),
			float64(r.InputBytes)/1e6/run.Wall.Seconds(), float64(run.FileBytes)/float64(r.Docs), run.Summary)
	}
	return nil
}

// buildSimidx builds the simidx command of the module this harness
// replaces into dir and returns its path.
func buildSimidx(dir string) (string, error) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/simidx/simidx").Output()
	if err != nil {
		return "", fmt.Errorf("locating the simidx module: %w", err)
	}
	bin := filepath.Join(dir, "simidx")
	build := exec.Command("go", "build", "-o", bin, "./cmd/simidx")
	build.Dir = strings.TrimSpace(string(root))
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}
