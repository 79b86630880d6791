package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/simidx/simidx/internal/console"
)

// licenseLines returns the sample texts as JSON lines, and their
// paragraphs as further lines: lines of a few bytes to tens of KiB.
func licenseLines(t *testing.T) [][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(licenses, "*.txt"))
	if err != nil || len(names) == 0 {
		t.Fatal(names, err)
	}
	var lines [][]byte
	for _, name := range names {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		paras := append([]string{string(text)}, strings.Split(string(text), "\n\n")...)
		for i, p := range paras {
			b, err := json.Marshal(map[string]any{"id": filepath.Base(name) + "#" + string(rune('a'+i%26)), "text": p})
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, b)
		}
	}
	return lines
}

// estimate opens args as a Reader of flags and returns its EstimateDocs.
func estimate(t *testing.T, args []string, flags ...string) (int64, bool) {
	t.Helper()
	f := parseFlags(t, flags...)
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(args, f, strings.NewReader("{}\n"), console.New(io.Discard, "test"))
	if err != nil {
		t.Fatal(err)
	}
	return r.EstimateDocs()
}

// TestEstimateDocs checks the estimate against the documents read: exact
// for files and for line formats of at most 4 MiB in all, within 10% for
// larger ones sampled, and unknown where the documents are not known
// before reading.
func TestEstimateDocs(t *testing.T) {
	lines := licenseLines(t)
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	// JSON lines files of about 1.5 and 9 MiB, the lines in random
	// order; the second ends without a newline.
	write := func(name string, size int, end string) int64 {
		var b bytes.Buffer
		var n int64
		for b.Len() < size {
			b.Write(lines[rng.IntN(len(lines))])
			b.WriteString("\n")
			n++
		}
		data := strings.TrimSuffix(b.String(), "\n") + end
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return n
	}
	small := write("small.jsonl", 3<<19, "\n")
	large := write("large.jsonl", 9<<20, "")
	open := write("open.jsonl", 100<<10, "")
	if err := os.WriteFile(filepath.Join(dir, "empty.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	gz := gzipBytes(t, []byte(`{"id":"a","text":"b"}`+"\n"))
	if err := os.WriteFile(filepath.Join(dir, "z.jsonl.gz"), gz, 0o644); err != nil {
		t.Fatal(err)
	}
	path := func(name string) string { return filepath.Join(dir, name) }

	exact := []struct {
		name  string
		args  []string
		flags []string
		want  int64
	}{
		{"files", []string{licenses}, nil, 68},
		{"small lines", []string{path("small.jsonl")}, nil, small},
		{"last line without a newline", []string{path("open.jsonl")}, nil, open},
		{"small lines and files", []string{path("small.jsonl"), path("empty.jsonl"), licenses}, nil, small + 68},
		{"lines format", []string{path("small.jsonl")}, []string{"--input", "lines"}, small},
		{"files format", []string{path("small.jsonl"), path("large.jsonl")}, []string{"--input", "files"}, 2},
	}
	for _, tc := range exact {
		n, ok := estimate(t, tc.args, tc.flags...)
		if !ok || n != tc.want {
			t.Errorf("%s: estimate %d, %v, want %d", tc.name, n, ok, tc.want)
		}
	}

	sampled := []struct {
		name string
		args []string
		want int64
	}{
		{"large lines", []string{path("large.jsonl")}, large},
		{"large and small lines", []string{path("small.jsonl"), path("large.jsonl")}, small + large},
		{"large lines and files", []string{path("large.jsonl"), licenses}, large + 68},
	}
	for _, tc := range sampled {
		n, ok := estimate(t, tc.args)
		if !ok || n < tc.want*9/10 || n > tc.want*11/10 {
			t.Errorf("%s: estimate %d, %v, want %d within 10%%", tc.name, n, ok, tc.want)
		}
	}

	// Many small files, more than EstimateDocs opens: lines of one to
	// four sample paragraphs, in files of one to five lines.
	many := filepath.Join(dir, "many")
	var manyLines int64
	for i := range estimateOpens + 500 {
		var b bytes.Buffer
		for range 1 + rng.IntN(5) {
			for k := range 1 + rng.IntN(4) {
				if k > 0 {
					b.WriteString(" ")
				}
				b.Write(lines[rng.IntN(len(lines))])
			}
			b.WriteString("\n")
			manyLines++
		}
		name := filepath.Join(many, fmt.Sprintf("%04d.jsonl", i))
		if err := os.MkdirAll(many, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n, ok := estimate(t, []string{many}); !ok || n < manyLines*3/4 || n > manyLines*5/4 {
		t.Errorf("many small files: estimate %d, %v, want %d within 25%%", n, ok, manyLines)
	}

	unknown := [][]string{
		{"-"},
		{path("small.jsonl"), "-"},
		{path("z.jsonl.gz")},
		{path("small.jsonl"), path("z.jsonl.gz")},
	}
	for _, args := range unknown {
		if n, ok := estimate(t, args); ok {
			t.Errorf("%q: estimate %d, want unknown", args, n)
		}
	}
}

// TestEstimateDocsChanged checks files that change between the listing
// and the estimate: one that shrank counts what it holds, one that became
// a named pipe makes the estimate unknown at once (it is not waited on).
func TestEstimateDocsChanged(t *testing.T) {
	dir := t.TempDir()
	writeBytes(t, dir, map[string][]byte{
		"a.jsonl": []byte("{}\n{}\n{}\n"),
		"b.jsonl": []byte("{}\n{}\n"),
	})
	open := func() *Reader {
		f := parseFlags(t)
		r, err := Open([]string{dir}, f, nil, console.New(io.Discard, "test"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := open()
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, ok := r.EstimateDocs(); !ok || n != 3 {
		t.Errorf("after a.jsonl shrank: estimate %d, %v, want 3", n, ok)
	}
	r = open()
	pipe := filepath.Join(dir, "b.jsonl")
	if err := os.Remove(pipe); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if n, ok := r.EstimateDocs(); ok {
		t.Errorf("b.jsonl a named pipe: estimate %d, want unknown", n)
	}
}
