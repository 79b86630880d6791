package dedup

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	//lint:ignore SA1019 the direct runner is deprecated for Prism, but --runner direct runs it: tested here.
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/direct"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/simidx/simidx/beam/internal/gencorpus"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/spf13/pflag"
)

func TestMain(m *testing.M) {
	ptest.MainWithDefault(m, "prism")
}

var (
	simidxOnce sync.Once
	simidxBin  string
	simidxErr  error
)

// simidx builds the simidx command of the root module, once.
func simidx(t *testing.T) string {
	t.Helper()
	simidxOnce.Do(func() {
		dir, err := os.MkdirTemp("", "simidx-beam-test-")
		if err != nil {
			simidxErr = err
			return
		}
		simidxBin = filepath.Join(dir, "simidx")
		cmd := exec.Command("go", "build", "-o", simidxBin, "./cmd/simidx")
		cmd.Dir = ".."
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			simidxErr = fmt.Errorf("building simidx: %v\n%s", err, out)
		}
	})
	if simidxErr != nil {
		t.Fatal(simidxErr)
	}
	return simidxBin
}

// ruleFor parses simidx dedup's flags args into the Rule simidx-beam
// makes of them, with the flag definitions of indexflag.
func ruleFor(t *testing.T, args []string) Rule {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	var q indexflag.Query
	var sf indexflag.Settings
	q.Add(fs, false)
	sf.AddIndex(fs, false)
	sf.AddText(fs)
	policy := fs.String("keep", "first", "")
	linkage := fs.String("linkage", "center", "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	st, err := sf.Build()
	if err != nil {
		t.Fatal(err)
	}
	k, kGiven := q.MaxDistance()
	ms, _ := fs.GetFloat64("min-similarity")
	r, err := NewRule(st, kGiven, k, fs.Changed("min-similarity"), ms, *policy, *linkage == "center")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runPipeline runs the pipeline on inputs with the dedup flags args on
// the test's runner (Prism unless --runner says otherwise) and returns its
// output directory.
func runPipeline(t *testing.T, inputs []string, args []string, maxGroup, rounds int) string {
	t.Helper()
	return runPipelineOn(t, ptest.Run, inputs, args, maxGroup, rounds)
}

// runPipelineOn runs the pipeline with run.
func runPipelineOn(t *testing.T, run func(*beam.Pipeline) error, inputs []string, args []string, maxGroup, rounds int) string {
	t.Helper()
	files, err := ListInputs(context.Background(), inputs, FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	err = Build(s, Config{Rule: ruleFor(t, args), Files: files, IDField: "id", TextField: "text",
		Output: out, Emit: Outputs, MaxGroup: maxGroup, Rounds: rounds})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(p); err != nil {
		t.Fatal(err)
	}
	return out
}

// sortedLines returns the lines of b, sorted.
func sortedLines(b []byte) []string {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	slices.Sort(lines)
	return lines
}

// checkSame compares the pipeline's outputs in out with simidx dedup's
// on inputs with args, line for line once sorted.
func checkSame(t *testing.T, out string, inputs, args []string) {
	t.Helper()
	for _, emit := range Outputs {
		dargs := append([]string{"dedup", "-q", "--format", "jsonl", "--emit", emit}, args...)
		if emit == "pairs" {
			dargs = append([]string{"dedup", "-q", "--format", "jsonl", "--emit", emit}, withoutClusterFlags(args)...)
		}
		cmd := exec.Command(simidx(t), append(dargs, inputs...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("simidx %s: %v\n%s", strings.Join(dargs, " "), err, stderr.Bytes())
		}
		got, err := os.ReadFile(filepath.Join(out, emit+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		w, g := sortedLines(want), sortedLines(got)
		if !slices.Equal(w, g) {
			for i := range max(len(w), len(g)) {
				var a, b string
				if i < len(w) {
					a = w[i]
				}
				if i < len(g) {
					b = g[i]
				}
				if a != b {
					t.Fatalf("%v --emit %s: %d lines, simidx dedup %d; first difference:\n dedup: %s\n beam:  %s", args, emit, len(g), len(w), a, b)
				}
			}
		}
		t.Logf("%v --emit %s: %d lines, the same", args, emit, len(w))
	}
}

// withoutClusterFlags drops --keep and --linkage, which dedup refuses
// with --emit pairs.
func withoutClusterFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--keep" || args[i] == "--linkage" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// TestSameAsDedupLicenses runs the pipeline on the licences of
// testdata with dedup's main settings and compares every output.
func TestSameAsDedupLicenses(t *testing.T) {
	in := []string{filepath.Join("..", "..", "testdata", "licenses")}
	for _, args := range [][]string{
		nil,
		{"--linkage", "single"},
		{"--keep", "last"},
		{"--keep", "longest"},
		{"--keep", "id", "--linkage", "single"},
		{"--no-minhash"},
		{"-k", "6"},
		{"--min-similarity", "0.5", "--short-units", "0"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			checkSame(t, runPipeline(t, in, args, DefaultMaxGroup, DefaultRounds), in, args)
		})
	}
}

// TestSameAsDedupDirect runs the pipeline on the licences with the Go
// SDK's direct runner (--runner direct), with the defaults and with
// groups of more than 8 texts split into blocks, and compares every
// output with simidx dedup's.
func TestSameAsDedupDirect(t *testing.T) {
	in := []string{gencorpus.LicensesDir()}
	run := func(p *beam.Pipeline) error {
		_, err := direct.Execute(context.Background(), p)
		return err
	}
	for _, c := range []struct {
		args     []string
		maxGroup int
	}{
		{nil, DefaultMaxGroup},
		{[]string{"--linkage", "single"}, 2},
	} {
		t.Run(fmt.Sprintf("%v max-group %d", c.args, c.maxGroup), func(t *testing.T) {
			checkSame(t, runPipelineOn(t, run, in, c.args, c.maxGroup, DefaultRounds), in, c.args)
		})
	}
}

// TestSameAsDedupSample runs the pipeline on the multilingual sample,
// gzipped, and the licences: two inputs, so that file IDs have the
// input's prefix.
func TestSameAsDedupSample(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "sample.jsonl.gz")
	writeGzip(t, gz, raw)
	in := []string{gz, filepath.Join("..", "..", "testdata", "licenses")}
	checkSame(t, runPipeline(t, in, nil, DefaultMaxGroup, DefaultRounds), in, nil)
}

func writeGzip(t *testing.T, path string, b []byte) {
	t.Helper()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	z.Write(b)
	z.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSameAsDedupGenerated compares the pipeline with simidx dedup on a
// generated corpus of planted near duplicates (SIMIDX_BEAM_N documents,
// default 4,000; SIMIDX_BEAM_CORPUS keeps it), with the default group limit and with groups of more
// than 8 texts split into blocks (the hot keys' path: the 200 boilerplate texts), under both
// linkages.
func TestSameAsDedupGenerated(t *testing.T) {
	n := 4000
	if s := os.Getenv("SIMIDX_BEAM_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	// SIMIDX_BEAM_CORPUS keeps the corpus there, for timing runs.
	path := os.Getenv("SIMIDX_BEAM_CORPUS")
	if path == "" {
		path = filepath.Join(t.TempDir(), "corpus.jsonl")
	}
	if err := gencorpus.WriteFile(path, n, 7); err != nil {
		t.Fatal(err)
	}
	in := []string{path}
	for _, c := range []struct {
		args     []string
		maxGroup int
	}{
		{nil, DefaultMaxGroup},
		{nil, 8},
		{[]string{"--linkage", "single", "--keep", "longest"}, 8},
	} {
		t.Run(fmt.Sprintf("%v max-group %d", c.args, c.maxGroup), func(t *testing.T) {
			checkSame(t, runPipeline(t, in, c.args, c.maxGroup, DefaultRounds), in, c.args)
		})
	}
}
