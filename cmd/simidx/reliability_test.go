package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// TestOutputOntoIndex runs every command that has both --db and --output,
// as a process, with an output that is the index however it is spelled
// (as given, another spelling, a symbolic link, a hard link) or a file of
// its journal: each refuses with a usage error before writing anything,
// and the index is unchanged.
func TestOutputOntoIndex(t *testing.T) {
	db := buildIndex(t)
	dir := filepath.Dir(db)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(filepath.Base(db), link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.db")
	if err := os.Link(db, hard); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	spellings := []string{db, filepath.Join(sub, "..", ".", filepath.Base(db)), link, hard}
	commands := [][]string{
		{"query", "--db", db, "--id", "MIT.txt"},
		{"dedup", "--db", db},
		{"dedup", "--db", db, "--pairs", "--limit", "3"},
		{"stats", "--db", db},
		{"fingerprint", "--db", db, testdataFile("MIT.txt")},
		{"compare", "--db", db, testdataFile("MIT.txt"), testdataFile("X11.txt")},
		{"bench", "--db", db, "--sample", "5", licenses},
	}
	for _, args := range commands {
		for _, out := range spellings {
			r := runBinary(t, "", append(args, "-o", out)...)
			if r.code != 2 || !strings.Contains(r.stderr, "is the index --db "+db+": writing the output there would destroy the index") {
				t.Errorf("simidx %s -o %s: want exit 2 and a refusal, got %v", strings.Join(args, " "), out, r)
			}
		}
	}
	if after, err := os.ReadFile(db); err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the index changed (%v)", err)
	}
	mustRun(t, "", "stats", "--check", "--db", db)

	// A file of the journal.
	jd := index.LogDir(db)
	if err := os.Mkdir(jd, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(jd, "segment")
	if err := os.WriteFile(seg, []byte("journal"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{seg, jd, filepath.Join(jd, "new")} {
		r := runBinary(t, "", "stats", "--db", db, "-o", out)
		if r.code != 2 || !strings.Contains(r.stderr, "is in the journal "+jd) {
			t.Errorf("stats -o %s: want exit 2 and a refusal, got %v", out, r)
		}
	}
	if b, err := os.ReadFile(seg); err != nil || string(b) != "journal" {
		t.Errorf("the journal file changed: %q %v", b, err)
	}

	// An index that does not exist yet, and a dangling link to it.
	fresh := filepath.Join(dir, "fresh.db")
	dangling := filepath.Join(dir, "dangling.db")
	if err := os.Symlink("fresh.db", dangling); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{fresh, dangling} {
		r := runBinary(t, "", "dedup", "--db", fresh, "-o", out, licenses)
		if r.code != 2 || !strings.Contains(r.stderr, "would destroy the index") {
			t.Errorf("dedup --db %s -o %s: want exit 2 and a refusal, got %v", fresh, out, r)
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Fatalf("dedup -o %s created the index", out)
		}
	}

	// Another file is written as before.
	other := filepath.Join(dir, "out.txt")
	mustRun(t, "", "stats", "--db", db, "-o", other)
	if b, _ := os.ReadFile(other); !strings.Contains(string(b), "documents") {
		t.Errorf("stats -o %s wrote %q", other, b)
	}
}

// TestDamagedIndexMessage zeroes each page of an index in turn (the meta
// pages aside) and opens it with stats: a damaged page is reported as
// damage, with a way out, never as a file that is not an index.
func TestDamagedIndexMessage(t *testing.T) {
	db := buildIndex(t)
	clean, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if os.Getpagesize() != page {
		t.Skipf("page size %d", os.Getpagesize())
	}
	damaged := filepath.Join(t.TempDir(), "damaged.db")
	reported := 0
	for p := 2; p < len(clean)/page; p++ {
		b := bytes.Clone(clean)
		clear(b[p*page : (p+1)*page])
		if err := os.WriteFile(damaged, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := simidx(t, "", "stats", "--db", damaged)
		if strings.Contains(r.stderr, "is not a simidx index") {
			t.Errorf("page %d zeroed: %v", p, r)
		}
		if strings.Contains(r.stderr, damaged+" is a damaged simidx index (") {
			reported++
			if r.code != 1 || !strings.Contains(r.stderr, "restore it from a backup (simidx backup), or build it again with simidx index") {
				t.Errorf("page %d zeroed: %v", p, r)
			}
		}
	}
	if reported == 0 {
		t.Error("no damaged page was reported as damage when opening")
	}
}

// TestDeleteLongLine gives delete - a 70 kB line between two IDs: the line
// is reported by its number and skipped, and the IDs around it are
// deleted.
func TestDeleteLongLine(t *testing.T) {
	db := buildIndex(t)
	stdin := "MIT.txt\n" + strings.Repeat("x", 70_000) + "\r\nX11.txt\n" + strings.Repeat("y", 600)
	r := runBinary(t, stdin, "delete", "--db", db, "-")
	want := "simidx delete: standard input:2: line of 70001 bytes, longer than an ID (at most 512 bytes), skipped\n" +
		"simidx delete: standard input:4: line of 600 bytes, longer than an ID (at most 512 bytes), skipped\n" +
		"deleted 2 of 2 documents; 2 lines longer than an ID skipped\n"
	if r.code != 0 || r.stderr != want {
		t.Errorf("want exit 0 and\n%s\ngot %v", want, r)
	}
	st := mustRun(t, "", "stats", "--db", db, "--check", "-f", "jsonl")
	if !strings.Contains(st.stdout, `"docs":66,`) {
		t.Errorf("after delete: %s", st.stdout)
	}
}

// TestJSONLineProblems checks that a line of JSON lines that cannot be
// read says why: nested too deep, invalid, or valid JSON of another kind.
func TestJSONLineProblems(t *testing.T) {
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	in := `{"id":"a","text":"x","extra":` + deep + "}\n" +
		`{"id":"b","text":` + deep + "}\n" +
		"[1, 2]\n" +
		`"a string"` + "\n" +
		`{"id":"c" "text":"x"}` + "\n" +
		`{"id":"d","text":"a fine line"}` + "\n"
	r := simidx(t, in, "fingerprint", "--input", "jsonl", "-")
	for _, want := range []string{
		"standard input:1: invalid JSON: nested more than 10000 levels deep\n",
		"standard input:2: invalid JSON: nested more than 10000 levels deep\n",
		"standard input:3: not a JSON object but a JSON array\n",
		"standard input:4: not a JSON object but a JSON string\n",
		"standard input:5: invalid JSON: invalid character '\"' after object key:value pair\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.code != 1 || !strings.HasSuffix(r.stdout, "  d\n") {
		t.Errorf("want exit 1 and the fingerprint of d: %v", r)
	}
}

// TestEmptyStdin indexes an empty standard input, as a process: nothing is
// read, so nothing is added, not even a new index, and a line says so;
// the exit status is 0. dedup says the same.
func TestEmptyStdin(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	r := runBinary(t, "", "index", "-q", "--db", db, "-")
	if r.code != 0 || r.stderr != "simidx index: no documents read (standard input was empty); "+db+" not created\n" {
		t.Errorf("index of an empty standard input: %v", r)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("%s was created", db)
	}
	// An existing index is left as it was.
	db = buildIndex(t)
	r = runBinary(t, "", "index", "--db", db, "-")
	if r.code != 0 || !strings.HasSuffix(r.stderr, "simidx index: no documents read (standard input was empty); nothing added to "+db+"\n") {
		t.Errorf("index of an empty standard input: %v", r)
	}
	st := mustRun(t, "", "stats", "--db", db, "-f", "jsonl")
	if !strings.Contains(st.stdout, `"docs":68,`) {
		t.Errorf("after an empty standard input: %s", st.stdout)
	}
	r = runBinary(t, "", "dedup", "-q", "-")
	if r.code != 0 || r.stdout != "" || r.stderr != "simidx dedup: no documents read (standard input was empty); nothing to deduplicate\n" {
		t.Errorf("dedup of an empty standard input: %v", r)
	}
	// An empty file is a document, which matches nothing.
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	db = filepath.Join(dir, "y.db")
	r = mustRun(t, "", "index", "--db", db, empty)
	if !strings.Contains(r.stderr, "indexed 1 document,") {
		t.Errorf("index of an empty file: %v", r)
	}
}

// TestPairsSpilled checks the pairs of dedup --emit pairs when they do not
// fit in memory: sorted runs written to disk and merged, the table
// measured first and written as it goes. With runs of 1 to 64 pairs, the
// output equals that of the pairs held in memory, for each format and
// limit, and the pairs are those of index.Pairs, sorted.
func TestPairsSpilled(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	copyText := licenseText(t, "MIT.txt")
	for i := range 30 {
		files[fmt.Sprintf("copies/é-%02d.txt", i)] = copyText // an exact group of 435 pairs, IDs wider in bytes than in runes
	}
	files["copies/tab\tname.txt"] = copyText // a quoted cell
	writeFiles(t, dir, files)
	db := filepath.Join(t.TempDir(), "x.db")
	mustRun(t, "", "index", "-q", "--db", db, licenses, filepath.Join(dir, "copies"))
	x, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	opts := &index.QueryOptions{}
	var brute []string
	err = x.Pairs(context.Background(), opts, func(p index.Pair) error {
		brute = append(brute, p.A+"\x00"+p.B)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(brute)
	if len(brute) < 500 {
		t.Fatalf("%d pairs", len(brute))
	}
	write := func(format string, limit, run int) string {
		t.Helper()
		of := outputFlags{format: format}
		if err := of.check(""); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		w, err := of.open(&b)
		if err != nil {
			t.Fatal(err)
		}
		err = writePairs(context.Background(), x, opts, limit, run, w)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, format := range []string{"table", "jsonl"} {
		for _, limit := range []int{0, 1, 7, 100, len(brute) + 10} {
			want := write(format, limit, 1<<20)
			n := len(brute)
			if limit > 0 {
				n = min(n, limit)
			}
			if lines := strings.Count(want, "\n"); format == "jsonl" && lines != n || format == "table" && lines != n+1 {
				t.Fatalf("%s, limit %d: %d lines for %d pairs", format, limit, lines, n)
			}
			if format == "jsonl" {
				for i, line := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
					var rec pairRecord
					if err := json.Unmarshal([]byte(line), &rec); err != nil {
						t.Fatal(err)
					}
					if got := rec.A + "\x00" + rec.B; got != brute[i] {
						t.Fatalf("limit %d, pair %d: %q, want %q", limit, i, got, brute[i])
					}
				}
			}
			for _, run := range []int{1, 5, 64} {
				if got := write(format, limit, run); got != want {
					t.Fatalf("%s, limit %d, runs of %d pairs: output differs from the pairs in memory:\n%s\nwant:\n%s", format, limit, run, got, want)
				}
			}
		}
	}
}

// TestDedupPairsMemory runs dedup --pairs on 1,500 copies of one text
// (1.1 million pairs) as a process and measures its peak resident memory:
// with --limit 10 the pairs past the limit are not held, and without a
// limit they are held on disk; collected in memory they took over 300 MB.
func TestDedupPairsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 1,500 documents and reads 1.1 million pairs")
	}
	var in strings.Builder
	text, _ := json.Marshal(licenseText(t, "MIT.txt"))
	for i := range 1500 {
		fmt.Fprintf(&in, `{"id":"doc%04d","text":%s}`+"\n", i, text)
	}
	corpus := filepath.Join(t.TempDir(), "same.jsonl")
	if err := os.WriteFile(corpus, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		lines int
	}{
		{[]string{"--limit", "10"}, 11},
		{nil, 1500*1499/2 + 1},
	} {
		args := append([]string{"dedup", "-q", "--pairs", corpus}, tc.args...)
		cmd := exec.Command(simidxBin, args...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		peak := make(chan int64, 1)
		go func() { peak <- sampleHWM(cmd.Process.Pid, done) }()
		// Counted as it comes: the output of a million pairs is not held
		// here either.
		lines, last := 0, ""
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines++
			last = sc.Text()
		}
		close(done)
		rss := <-peak
		if err := cmd.Wait(); err != nil {
			t.Fatalf("simidx %s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		t.Logf("simidx %s: %d lines, peak RSS %d MB", strings.Join(args[2:], " "), lines, rss>>10)
		if lines != tc.lines {
			t.Errorf("simidx %s: %d lines, want %d; the last %q", strings.Join(args, " "), lines, tc.lines, last)
		}
		if rss > 200<<10 {
			t.Errorf("simidx %s: peak RSS %d MB", strings.Join(args, " "), rss>>10)
		}
	}
}

// sampleHWM returns the peak resident memory, in kB, of the process pid
// (VmHWM in /proc/PID/status, 0 without /proc) as last read before done
// was closed: the peak is a high-water mark, so a late reading holds
// every earlier peak. (The rusage of a child is no measure: Linux counts
// in it the memory of the parent that forked it, the whole test binary.)
func sampleHWM(pid int, done <-chan struct{}) int64 {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var hwm int64
	read := func() {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				var kb int64
				if _, err := fmt.Sscan(v, &kb); err == nil {
					hwm = max(hwm, kb)
				}
			}
		}
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		read()
		select {
		case <-done:
			read() // a zombie has no VmHWM: the last reading stands
			return hwm
		case <-tick.C:
		}
	}
}
