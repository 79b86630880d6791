package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/spf13/pflag"
)

func TestMain(m *testing.M) {
	ptest.MainWithDefault(m, "prism")
}

// TestUsage checks the usage errors: each names what is wrong and is a
// usage error (exit status 2).
func TestUsage(t *testing.T) {
	out := t.TempDir()
	lic := filepath.Join("..", "..", "..", "testdata", "licenses")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--output", out}, "give --input PATH"},
		{[]string{"--input", lic}, "give --output DIR"},
		{[]string{"--input", lic, "--output", out, "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"--input", lic, "--output", out, "--runner", "nope"}, `--runner must be prism (the default)`},
		{[]string{"--input", lic, "--output", out, "--linkage", "complete"}, `--linkage must be single or center`},
		{[]string{"--input", lic, "--output", out, "--keep", "best"}, `--keep must be first`},
		{[]string{"--input", lic, "--output", out, "--method", "nshash"}, "not supported by simidx-beam"},
		{[]string{"--input", lic, "--output", out, "--verify"}, "--verify is not supported"},
		{[]string{"--input", lic, "--output", out, "--emit", "records"}, "--emit must be a list of pairs, clusters, keep and drop"},
		{[]string{"--input", lic, "--output", out, "stray"}, `unexpected argument "stray"`},
		{[]string{"--input", lic, "--output", out, "--no-minhash", "--min-similarity", "0.5"}, "--min-similarity needs a similarity"},
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), c.args, &stderr, &stderr)
		flag.Set("runner", "") // Beam's flags are the process's
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v; want a usage error with %q", c.args, err, c.want)
		}
	}
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"--input", filepath.Join(out, "missing"), "--output", out}, &stderr, &stderr); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing input: %v", err)
	}
	stderr.Reset()
	if err := run(context.Background(), []string{"--help"}, &stderr, &stderr); !errors.Is(err, pflag.ErrHelp) ||
		!strings.Contains(stderr.String(), "--min-similarity") || !strings.Contains(stderr.String(), "--runner") {
		t.Errorf("--help: %v\n%s", err, stderr.String())
	}
}

// TestEmptyInput runs the command on an empty directory and an empty
// JSON lines file: every output is written, empty.
func TestEmptyInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"--input", empty, "--output", out}, &stderr, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, name := range []string{"pairs", "clusters", "keep", "drop"} {
		b, err := os.ReadFile(filepath.Join(out, name+".jsonl"))
		if err != nil || len(b) != 0 {
			t.Errorf("%s.jsonl: %q, %v; want an empty file", name, b, err)
		}
	}
}
