package input

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/usage"
	"github.com/spf13/pflag"
)

// parseFlags returns the Flags of a command line, with their defaults.
func parseFlags(t *testing.T, args ...string) Flags {
	t.Helper()
	var f Flags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.Add(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReader reads a tree through the exported API: documents and their
// IDs, the lines given to OnDoc, repeated IDs kept apart, and the
// counters of what was skipped, each reported on the console.
func TestReader(t *testing.T) {
	dir := t.TempDir()
	writeBytes(t, dir, map[string][]byte{
		"a.txt":        []byte("alpha text"),
		"d.jsonl":      []byte(`{"id": "x", "text": "one"}` + "\nnot json\n" + `{"id": "x", "text": "two"}`),
		"sub/c.txt.gz": gzipBytes(t, []byte("gamma")),
		"bin.dat":      []byte("a\x00b"),
		".hidden":      []byte("hidden"),
	})
	flags := parseFlags(t)
	if err := flags.Check(); err != nil {
		t.Fatal(err)
	}
	var warnings bytes.Buffer
	r, err := Open([]string{dir}, flags, nil, console.New(&warnings, "test"))
	if err != nil {
		t.Fatal(err)
	}
	r.Unique = true
	var raws []string
	r.OnDoc = func(d *index.Doc, raw []byte) { raws = append(raws, d.ID+"="+string(raw)) }
	var got []string
	for d, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.ID+"="+string(d.Text))
	}
	want := []string{"a.txt=alpha text", "x=one", "x#2=two", "sub/c.txt.gz=gamma"}
	if !slices.Equal(got, want) {
		t.Errorf("documents %q, want %q", got, want)
	}
	wantRaw := []string{"a.txt=", "x=" + `{"id": "x", "text": "one"}` + "\n", "x#2=" + `{"id": "x", "text": "two"}`, "sub/c.txt.gz="}
	if !slices.Equal(raws, wantRaw) {
		t.Errorf("OnDoc saw %q, want %q", raws, wantRaw)
	}
	if r.Docs() != 4 || r.Renamed() != 1 || r.Skipped() != 2 || r.Filtered() != 1 || r.Unread() != 0 || r.Total() != -1 {
		t.Errorf("docs %d, renamed %d, skipped %d, filtered %d, unread %d, total %d",
			r.Docs(), r.Renamed(), r.Skipped(), r.Filtered(), r.Unread(), r.Total())
	}
	if got := strings.Join(r.SkipReasons(0), ", "); got != "1 binary, 1 invalid, 1 hidden" {
		t.Errorf("SkipReasons = %q", got)
	}
	for _, w := range []string{"bin.dat: binary (holds a NUL byte), skipped", "d.jsonl:2: invalid JSON", `ID "x" is taken`} {
		if !strings.Contains(warnings.String(), w) {
			t.Errorf("no warning %q in %q", w, warnings.String())
		}
	}
}

// TestUsageErrors checks that mistakes in the flags and arguments are
// usage errors, and a list that cannot be read is not.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--input", "xml"}, {"--id-field", ""}, {"--include", "a["}, {"--min-size", "2k", "--max-size", "1k"},
		{"--max-member-size", "0"}, {"--null"},
	} {
		f := parseFlags(t, args...)
		var ue *usage.Error
		if err := f.Check(); !errors.As(err, &ue) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	con := console.New(new(bytes.Buffer), "test")
	var ue *usage.Error
	if _, err := Open([]string{"-", "-"}, parseFlags(t), nil, con); !errors.As(err, &ue) {
		t.Errorf("- twice: %v, want a usage error", err)
	}
	_, err := Open(nil, parseFlags(t, "--files-from", "/nonexistent/list"), nil, con)
	if err == nil || errors.As(err, &ue) {
		t.Errorf("a missing --files-from list: %v, want an error that is not a usage error", err)
	}
}
