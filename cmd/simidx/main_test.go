package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// simidxBin is the simidx command built by TestMain, for the tests of what
// crosses a process boundary: exit codes, signals, file locks, stdin.
var simidxBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "simidx-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	simidxBin = filepath.Join(dir, "simidx")
	gobin := "go"
	if p, err := exec.LookPath("go"); err == nil {
		gobin = p
	}
	cmd := exec.Command(gobin, "build", "-o", simidxBin, ".")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building simidx:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// licenses is the bundled sample corpus.
const licenses = "../../testdata/licenses"

// result is what one simidx run did.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// simidx runs the command in this process through run, with stdin.
func simidx(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// mustRun runs simidx through run and fails the test unless it exits 0.
func mustRun(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	r := simidx(t, stdin, args...)
	if r.code != 0 {
		t.Fatalf("simidx %s: %v", strings.Join(args, " "), r)
	}
	return r
}

// runBinary runs the built command as a process.
func runBinary(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, simidxBin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running simidx %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// jsonLines decodes each line of s into a map, failing the test on invalid
// JSON, and checks that each object has exactly the given fields (a field
// prefixed with ? is optional).
func jsonLines(t *testing.T, s string, fields ...string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for line := range strings.Lines(s) {
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("not a JSON object: %q: %v", line, err)
		}
		allowed := map[string]bool{}
		for _, f := range fields {
			name, optional := strings.CutPrefix(f, "?")
			allowed[name] = true
			if _, ok := m[name]; !ok && !optional {
				t.Errorf("no field %q in %s", name, line)
			}
		}
		for k := range m {
			if !allowed[k] {
				t.Errorf("unexpected field %q in %s", k, line)
			}
		}
		objs = append(objs, m)
	}
	return objs
}

// buildIndex indexes the sample corpus into a new index and returns its
// path.
func buildIndex(t *testing.T, flags ...string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "test.db")
	mustRun(t, "", append(append([]string{"index", "-q", "--db", db}, flags...), licenses)...)
	return db
}

// writeFiles writes files (name -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunDispatch(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string // substring expected on stdout
		stderr string // substring expected on stderr
	}{
		{nil, 2, "", "Usage:"},
		{[]string{"--help"}, 0, "Commands:", ""},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"index", "--no-such-flag"}, 2, "", "unknown flag: --no-such-flag"},
		{[]string{"index", "--no-such-flag"}, 2, "", "Run 'simidx help index' for usage."},
		{[]string{"query", "-h"}, 0, "", "Usage: simidx query --db PATH"},
		{[]string{"dedup", "--help"}, 0, "", "--pairs"},
		{[]string{"index", "-k", "many"}, 2, "", `invalid argument "many"`},
	} {
		r := simidx(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("simidx %q: want exit %d, stdout with %q, stderr with %q; got %v",
				tc.args, tc.code, tc.stdout, tc.stderr, r)
		}
	}
}

// TestBinaryExitCodes checks the exit status of the real process.
func TestBinaryExitCodes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.db")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"help"}, 0},
		{[]string{"index", "--help"}, 0},
		{[]string{"version"}, 0},
		{[]string{"nope"}, 2},
		{[]string{"index", "--db"}, 2},
		{[]string{"index", testdataFile("MIT.txt")}, 2},
		{[]string{"query", "--db", missing, testdataFile("MIT.txt")}, 1},
		{[]string{"stats", "--db", missing}, 1},
		{[]string{"dedup", "--format", "xml", licenses}, 2},
		{[]string{"dedup", "-q", licenses}, 0},
	} {
		if r := runBinary(t, "", tc.args...); r.code != tc.code {
			t.Errorf("simidx %q: exit %d, want %d\n%v", tc.args, r.code, tc.code, r)
		}
	}
}

func testdataFile(name string) string { return filepath.Join(licenses, name) }
