package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

func TestIndexDirectory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lic.db")
	r := mustRun(t, "", "index", "--db", db, licenses)
	if r.stdout != "" {
		t.Errorf("index wrote to stdout: %q", r.stdout)
	}
	// One summary line: documents, bytes, seconds, exact duplicates, skipped.
	re := regexp.MustCompile(`^indexed 68 documents, [0-9.]+ kB in [0-9.]+s \([0-9.]+ [kMG]?B/s\); 4 exact duplicates; 0 skipped\n$`)
	if !re.MatchString(r.stderr) {
		t.Errorf("summary line %q does not match %s", r.stderr, re)
	}
	x, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Len() != 68 {
		t.Errorf("index has %d documents, want 68", x.Len())
	}
	// IDs are paths relative to the directory given.
	if _, err := x.Get("MIT.txt"); err != nil {
		t.Errorf("Get(MIT.txt): %v", err)
	}
	if err := x.Check(); err != nil {
		t.Error(err)
	}

	// Indexing again replaces every document; -q prints nothing.
	x.Close()
	if r := mustRun(t, "", "index", "-q", "--db", db, licenses); r.stderr != "" {
		t.Errorf("index -q wrote %q", r.stderr)
	}
}

func TestIndexFilesAsGiven(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	mustRun(t, "", "index", "-q", "--db", db, testdataFile("MIT.txt"), testdataFile("ISC.txt"))
	// The IDs are the paths as given.
	mustRun(t, "", "query", "--db", db, "--id", testdataFile("MIT.txt"), "--id", testdataFile("ISC.txt"))
}

func TestIndexSkipsBinaryAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.txt":     "Permission is hereby granted, free of charge, to any person obtaining a copy",
		"sub/b.txt": "Redistribution and use in source and binary forms, with or without modification",
		"image.bin": "GIF89a\x00\x01\x02 binary",
	})
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling.txt")); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "x.db")
	// With --follow, a link in a directory is read, and one to nothing
	// cannot be (without it, links are skipped: see TestCollection).
	r := simidx(t, "", "index", "--follow", "--db", db, dir)
	if r.code != 1 {
		t.Fatalf("want exit 1 for an unreadable file, got %v", r)
	}
	for _, want := range []string{
		"simidx index: cannot read " + filepath.Join(dir, "dangling.txt") + ": no such file or directory\n",
		"simidx index: " + filepath.Join(dir, "image.bin") + ": binary (holds a NUL byte), skipped\n",
		"indexed 2 documents",
		"2 skipped (1 binary, 1 unreadable)",
		"simidx index: 1 input could not be read (see above); indexed the rest\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	r = mustRun(t, "", "stats", "--db", db, "--format", "jsonl")
	if !strings.Contains(r.stdout, `"docs":2,`) {
		t.Errorf("stats: %s", r.stdout)
	}
	// The IDs are relative to the directory, with slashes.
	mustRun(t, "", "query", "--db", db, "--id", "sub/b.txt")
}

func TestIndexFormats(t *testing.T) {
	dir := t.TempDir()
	mit, err := os.ReadFile(testdataFile("MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	mitJSON := fmt.Sprintf("%q", mit)
	writeFiles(t, dir, map[string]string{
		"docs.jsonl": `{"id": "mit", "text": ` + mitJSON + "}\n" +
			`{"id": 42, "text": "a number as ID"}` + "\n" +
			"\n" +
			`{"id": "bad", "text": 7}` + "\n" +
			"not json\n" +
			`{"id": "lone \ud800", "text": "a lone surrogate in the ID"}` + "\n",
		"custom.json": `{"name": "mit2", "body": ` + mitJSON + "}\n",
		"lines.txt":   "first document\n\nthird document, second one\n",
		"hashes.txt":  "alpha 00000000000000ff\nbeta 0x00000000000000fe\n0123456789abcdef  gamma\n# not a hash\n",
	})

	t.Run("jsonl", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "x.db")
		r := simidx(t, "", "index", "--db", db, filepath.Join(dir, "docs.jsonl"))
		if r.code != 0 {
			t.Fatal(r)
		}
		for _, want := range []string{
			"docs.jsonl:4: field \"text\" is not a string",
			"docs.jsonl:5: invalid JSON: invalid character",
			"docs.jsonl:6: field \"id\" holds the lone UTF-16 surrogate \\ud800",
			"indexed 2 documents",
			"3 skipped (3 invalid)",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
		mustRun(t, "", "query", "--db", db, "--id", "42")
		q := mustRun(t, "", "query", "--db", db, "--format", "jsonl", testdataFile("MIT.txt"))
		if !strings.Contains(q.stdout, `"id":"mit","distance":0`) {
			t.Errorf("MIT.txt does not find mit: %s", q.stdout)
		}
	})

	t.Run("id-field", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "x.db")
		mustRun(t, "", "index", "-q", "--db", db, "--input", "jsonl", "--id-field", "name", "--text-field", "body",
			filepath.Join(dir, "custom.json"))
		mustRun(t, "", "query", "--db", db, "--id", "mit2")
		r := simidx(t, "", "index", "--db", db, "--input", "jsonl", filepath.Join(dir, "custom.json"))
		if !strings.Contains(r.stderr, `no "id" field (set the ID field with --id-field)`) {
			t.Errorf("missing ID field: %v", r)
		}
	})

	t.Run("lines", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "x.db")
		mustRun(t, "", "index", "-q", "--db", db, "--input", "lines", filepath.Join(dir, "lines.txt"))
		for _, id := range []string{"1", "3"} {
			mustRun(t, "", "query", "--db", db, "--id", id)
		}
		if r := simidx(t, "", "query", "--db", db, "--id", "2"); r.code != 1 || !strings.Contains(r.stderr, `no document "2" in`) {
			t.Errorf("blank line 2 should not be a document: %v", r)
		}
		// With several inputs, line IDs name their input.
		db2 := filepath.Join(t.TempDir(), "y.db")
		mustRun(t, "one\ntwo\n", "index", "-q", "--db", db2, "--input", "lines", filepath.Join(dir, "lines.txt"), "-")
		mustRun(t, "", "query", "--db", db2, "--id", "-:2", "--id", filepath.Join(dir, "lines.txt")+":3")
	})

	t.Run("hashes", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "x.db")
		r := simidx(t, "", "index", "--db", db, "--input", "hashes", filepath.Join(dir, "hashes.txt"))
		if r.code != 0 || !strings.Contains(r.stderr, "indexed 3 documents") || !strings.Contains(r.stderr, "1 skipped (1 invalid)") {
			t.Fatalf("hashes: %v", r)
		}
		q := mustRun(t, "", "query", "--db", db, "--format", "jsonl", "--id", "alpha")
		objs := jsonLines(t, q.stdout, "query", "id", "distance")
		if len(objs) != 1 || objs[0]["id"] != "beta" || objs[0]["distance"].(fmt.Stringer).String() != "1" {
			t.Errorf("alpha should find beta at distance 1: %s", q.stdout)
		}
		mustRun(t, "", "query", "--db", db, "--id", "gamma")

		// Precomputed fingerprints can go into an index with MinHash (the
		// default) beside documents with text; they match by distance.
		if s := mustRun(t, "", "stats", "--db", db, "-f", "jsonl").stdout; !strings.Contains(s, `"minhash":true`) {
			t.Errorf("default index without MinHash: %s", s)
		}
		mustRun(t, "", "index", "-q", "--db", db, testdataFile("MIT.txt"))
		mustRun(t, "", "query", "--db", db, "--id", "alpha", testdataFile("MIT.txt"))
	})

	t.Run("stdin", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "x.db")
		// Auto: JSON lines when standard input starts with '{'.
		mustRun(t, "\n"+`{"id": "mit", "text": `+mitJSON+"}\n", "index", "-q", "--db", db, "-")
		mustRun(t, "", "query", "--db", db, "--id", "mit")
		// Otherwise one document named "-".
		mustRun(t, string(mit), "index", "-q", "--db", db, "-")
		q := mustRun(t, "", "query", "--db", db, "--format", "jsonl", "--id", "-")
		if !strings.Contains(q.stdout, `"id":"mit"`) {
			t.Errorf("stdin document does not match: %s", q.stdout)
		}
	})
}

// TestIndexByteOrderMark checks that a UTF-8 byte order mark at the start
// of an input is skipped, in every format and on standard input.
func TestIndexByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	dir := t.TempDir()
	jsonl := `{"id": "a", "text": "the quick brown fox jumps over the lazy dog"}` + "\n" +
		`{"id": "b", "text": "an entirely different sentence about databases"}` + "\n"
	writeFiles(t, dir, map[string]string{
		"docs.jsonl": bom + jsonl,
		"lines.txt":  bom + "first line\nsecond line\n",
		"hashes.txt": bom + "0123456789abcdef  12\n",
		"doc.txt":    bom + "the quick brown fox jumps over the lazy dog",
		"plain.txt":  "the quick brown fox jumps over the lazy dog",
	})
	for _, tc := range []struct {
		stdin string
		args  []string
		ids   []string
	}{
		{"", []string{filepath.Join(dir, "docs.jsonl")}, []string{"a", "b"}},
		{bom + jsonl, []string{"-"}, []string{"a", "b"}},
		{bom + "\n" + jsonl, []string{"-"}, []string{"a", "b"}},
		{"", []string{"--input", "lines", filepath.Join(dir, "lines.txt")}, []string{"1", "2"}},
		{"", []string{"--input", "hashes", filepath.Join(dir, "hashes.txt")}, []string{"12"}},
	} {
		db := filepath.Join(t.TempDir(), "x.db")
		args := append([]string{"index", "--db", db}, tc.args...)
		r := mustRun(t, tc.stdin, args...)
		if !strings.Contains(r.stderr, fmt.Sprintf("indexed %d document", len(tc.ids))) || !strings.Contains(r.stderr, "; 0 skipped") {
			t.Errorf("simidx %q: %v", args, r)
		}
		for _, id := range tc.ids {
			mustRun(t, "", "query", "--db", db, "--id", id)
		}
	}
	// A document is read without it: the fingerprint is that of the text.
	fp := mustRun(t, "", "fingerprint", filepath.Join(dir, "doc.txt"), filepath.Join(dir, "plain.txt")).stdout
	if lines := strings.Split(fp, "\n"); lines[0][:16] != lines[1][:16] {
		t.Errorf("a byte order mark changes the fingerprint:\n%s", fp)
	}
	if r := mustRun(t, bom+"some text", "fingerprint"); r.stdout != mustRun(t, "some text", "fingerprint").stdout {
		t.Errorf("a byte order mark on standard input changes the fingerprint: %v", r)
	}
}

// TestIndexNamesSkipped checks that documents an index would refuse (an
// ID over 512 bytes or not UTF-8, a text over 16 MiB) are reported with
// their file and line, and skipped.
func TestIndexNamesSkipped(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", index.MaxIDLen+1)
	deep := filepath.Join(strings.Repeat("d", 200), strings.Repeat("e", 200), strings.Repeat("f", 200)+".txt")
	writeFiles(t, dir, map[string]string{
		"docs.jsonl": `{"id": "ok", "text": "a fine document"}` + "\n" +
			`{"id": "` + long + `", "text": "an ID too long"}` + "\n" +
			`{"id": "big", "text": "` + strings.Repeat("a ", index.MaxDocSize/2+1) + `"}` + "\n",
		"hashes.txt":       "0123456789abcdef  " + long + "\n" + "0123456789abcdef  caf\xe9\n" + "0123456789abcdef  fine\n",
		"tree/" + deep:     "a file whose ID is too long",
		"tree/caf\xe9.txt": "a file whose name is not UTF-8",
		"tree/fine.txt":    "a fine file",
	})
	for _, tc := range []struct {
		args []string
		warn []string
		docs int
	}{
		{[]string{filepath.Join(dir, "docs.jsonl")}, []string{
			filepath.Join(dir, "docs.jsonl") + ":2: ID of 513 bytes, more than 512, skipped\n",
			filepath.Join(dir, "docs.jsonl") + ":3: larger than 16 MiB, skipped\n",
		}, 1},
		{[]string{"--input", "hashes", filepath.Join(dir, "hashes.txt")}, []string{
			filepath.Join(dir, "hashes.txt") + ":1: ID of 513 bytes, more than 512, skipped\n",
			filepath.Join(dir, "hashes.txt") + `:2: ID "caf\xe9" is not valid UTF-8, skipped` + "\n",
		}, 1},
		{[]string{filepath.Join(dir, "tree")}, []string{
			filepath.Join(dir, "tree", deep) + ": ID of 606 bytes, more than 512, skipped\n",
			filepath.Join(dir, "tree", "caf\xe9.txt") + `: ID "caf\xe9.txt" is not valid UTF-8, skipped` + "\n",
		}, 1},
	} {
		db := filepath.Join(t.TempDir(), "x.db")
		args := append([]string{"index", "--db", db}, tc.args...)
		r := simidx(t, "", args...)
		if r.code != 0 {
			t.Errorf("simidx %q: %v", args, r)
		}
		for _, w := range tc.warn {
			if !strings.Contains(r.stderr, "simidx index: "+w) {
				t.Errorf("simidx %q: stderr lacks %q:\n%s", args, w, r.stderr)
			}
		}
		want := fmt.Sprintf("indexed %d document, ", tc.docs)
		skipped := fmt.Sprintf("; %d skipped (%d invalid)\n", len(tc.warn), len(tc.warn))
		if !strings.Contains(r.stderr, want) || !strings.HasSuffix(r.stderr, skipped) {
			t.Errorf("simidx %q: want %q and %q in:\n%s", args, want, skipped, r.stderr)
		}
	}
	// Querying does not store: a name that is not UTF-8 is no problem.
	db := buildIndex(t)
	mustRun(t, "", "query", "--db", db, filepath.Join(dir, "tree", "caf\xe9.txt"))
}

func TestIndexErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k2.db")
	mustRun(t, "", "index", "-q", "--db", db, "-k", "2", testdataFile("MIT.txt"))
	// The same settings, or none, add to the index.
	mustRun(t, "", "index", "-q", "--db", db, "-k", "2", testdataFile("ISC.txt"))
	mustRun(t, "", "index", "-q", "--db", db, testdataFile("Zlib.txt"))

	notIndex := filepath.Join(dir, "notes.txt")
	writeFiles(t, dir, map[string]string{"notes.txt": strings.Repeat("not an index\n", 1000)})

	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"conflict", []string{"index", "--db", db, "-k", "3", testdataFile("X11.txt")}, 1,
			"the flags conflict with the settings " + db + " was created with"},
		{"conflict advice", []string{"index", "--db", db, "--no-minhash", testdataFile("X11.txt")}, 1,
			"leave out the creation flags to add to it, or use a new --db path"},
		{"not an index", []string{"index", "--db", notIndex, testdataFile("X11.txt")}, 1,
			notIndex + " is not a simidx index"},
		{"k too large", []string{"index", "--db", filepath.Join(dir, "new.db"), "-k", "9", testdataFile("X11.txt")}, 2,
			"--max-distance must be 0 to 8, not 9"},
		{"bands", []string{"index", "--db", filepath.Join(dir, "new.db"), "--minhash", "--bands", "5", testdataFile("X11.txt")}, 2,
			"invalid index settings"},
		{"input format", []string{"index", "--db", filepath.Join(dir, "new.db"), "--input", "csv", testdataFile("X11.txt")}, 2,
			`--input must be auto, files, jsonl, lines or hashes, not "csv"`},
		{"no db", []string{"index", testdataFile("X11.txt")}, 2, "--db PATH is required"},
		{"no input", []string{"index", "--db", db}, 2, "no INPUT given"},
		{"unit", []string{"index", "--db", filepath.Join(dir, "new.db"), "--unit", "bytes", licenses}, 2,
			`--unit must be words or chars, not "bytes"`},
		{"no directory", []string{"index", "--db", filepath.Join(dir, "nodir", "x.db"), licenses}, 1,
			"simidx index: cannot create " + filepath.Join(dir, "nodir", "x.db") + ": the directory " + filepath.Join(dir, "nodir") +
				" does not exist; create it first, or give a --db path in an existing directory\n"},
		{"dedup no directory", []string{"dedup", "--db", filepath.Join(dir, "nodir", "x.db"), licenses}, 1,
			"simidx dedup: cannot create " + filepath.Join(dir, "nodir", "x.db") + ": the directory " + filepath.Join(dir, "nodir") + " does not exist"},
		{"not a directory", []string{"index", "--db", filepath.Join(notIndex, "x.db"), licenses}, 1,
			"simidx index: cannot create " + filepath.Join(notIndex, "x.db") + ": " + notIndex + " is not a directory\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := simidx(t, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("want exit %d and %q, got %v", tc.code, tc.msg, r)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "new.db")); err == nil {
		// An invalid creation must not leave a file behind that later
		// looks like an index.
		if r := simidx(t, "", "stats", "--db", filepath.Join(dir, "new.db")); r.code == 0 {
			t.Errorf("a failed creation left an index: %v", r)
		}
	}
}

func TestIndexChars(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	mustRun(t, "", "index", "-q", "--db", db, "--unit", "chars", "--shingle-size", "4", "--features", "shingles",
		"--feature-size", "3", "--markup", "keep", "--keep-case", "--keep-punct", "--no-normalize",
		"--expected-docs", "1000", "-k", "4", "--minhash", "--minhash-k", "64", "--bands", "16", licenses)
	r := mustRun(t, "", "stats", "--db", db, "--format", "jsonl")
	for _, want := range []string{`"max_distance":4`, `"expected_docs":1000`, `"minhash":true`, `"minhash_k":64`, `"bands":16`, `"size":4`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stats lacks %s: %s", want, r.stdout)
		}
	}
}

// jsonlCorpus writes n JSON lines of random 40-word documents to w.
func jsonlCorpus(w io.Writer, n int) error {
	words := strings.Fields("the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there one all we their can has more if will")
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"id": "doc-%d", "text": "`, i)
		for j := range 40 {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		b.WriteString("\"}\n")
		if b.Len() > 64<<10 {
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// TestIndexInterrupt sends SIGINT (and SIGTERM) to a process indexing a
// stream that never ends: it commits what it read, says so, and exits 130,
// leaving a consistent, non-empty index.
func TestIndexInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "big.db")
			cmd := exec.Command(simidxBin, "index", "--db", db, "--input", "jsonl", "-")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			// Read while the process may still write it: synchronized.
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// The pipe holds 64 kB: once the writes return, the process
			// has read almost all of it. The pipe stays open, so indexing
			// cannot end by itself.
			const n = 50_000
			if err := jsonlCorpus(stdin, n); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			// Committing what was read takes fsyncs, which a busy disk
			// delays: the bound only catches a process that never exits.
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(4 * time.Minute):
				t.Fatalf("no exit 4 minutes after %v; stderr:\n%s", sig, stderr.String())
			}
			stdin.Close()
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Fatalf("exit %d, want 130; stderr:\n%s", code, stderr.String())
			}
			var committed int
			if _, err := fmt.Sscanf(stderr.String(), "simidx index: interrupted; committed %d documents to", &committed); err != nil {
				t.Fatalf("stderr %q: %v", stderr.String(), err)
			}
			if !strings.Contains(stderr.String(), "which is consistent; run the command again to add the rest") {
				t.Errorf("stderr: %q", stderr.String())
			}
			if committed < n/2 || committed > n {
				t.Errorf("committed %d documents of the %d written", committed, n)
			}
			x, err := index.Open(db, &index.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if x.Len() != committed {
				t.Errorf("index has %d documents, the message said %d", x.Len(), committed)
			}
			if err := x.Check(); err != nil {
				t.Error(err)
			}
			r := runBinary(t, "", "stats", "--db", db, "--format", "jsonl")
			if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf(`"docs":%d,`, committed)) {
				t.Errorf("stats after the interrupt: %v", r)
			}
		})
	}
}

// TestIndexLocked runs simidx index on an index this process holds open for
// writing: it gives up after about a second with a clear message.
func TestIndexLocked(t *testing.T) {
	db := filepath.Join(t.TempDir(), "held.db")
	x, err := index.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	start := time.Now()
	r := runBinary(t, "", "index", "--db", db, testdataFile("MIT.txt"))
	elapsed := time.Since(start)
	want := "simidx index: " + db + " is in use by another simidx process"
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("want exit 1 and %q, got %v", want, r)
	}
	if elapsed > 3*time.Second {
		t.Errorf("took %v to give up", elapsed)
	}
	// Readers are refused too while a writer holds the index.
	if r := runBinary(t, "", "stats", "--db", db); r.code != 1 || !strings.Contains(r.stderr, "is in use by another simidx process") {
		t.Errorf("stats on a held index: %v", r)
	}
}

func TestProgressLine(t *testing.T) {
	got := progressLine(1234, 2_500_000, 10_000_000, time.Second)
	want := "indexing: 1234 documents, 2.5 MB, 2.5 MB/s, 25%, ETA 3s"
	if got != want {
		t.Errorf("progressLine = %q, want %q", got, want)
	}
	if got := progressLine(1234, 2_500_000, -1, time.Second); strings.Contains(got, "ETA") {
		t.Errorf("ETA with an unknown size: %q", got)
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
}
