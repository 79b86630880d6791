package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	bolt "go.etcd.io/bbolt"
)

func TestQueryTable(t *testing.T) {
	db := buildIndex(t)
	r := mustRun(t, "", "query", "--db", db, testdataFile("MIT.txt"))
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "QUERY ID DISTANCE SIMILARITY EXACT" {
		t.Errorf("header %q", lines[0])
	}
	// The first match is the document itself, at distance 0.
	if len(lines) < 3 || strings.Join(strings.Fields(lines[1]), " ") != testdataFile("MIT.txt")+" MIT.txt 0 1.00 yes" {
		t.Errorf("query MIT.txt:\n%s", r.stdout)
	}
	// Without MinHash there is no similarity column.
	nm := mustRun(t, "", "query", "--db", buildIndex(t, "--no-minhash"), testdataFile("MIT.txt"))
	if first := strings.SplitN(nm.stdout, "\n", 2)[0]; strings.Join(strings.Fields(first), " ") != "QUERY ID DISTANCE EXACT" {
		t.Errorf("header without MinHash %q", first)
	}
	// Columns are aligned: every ID column starts at the same offset.
	col := strings.Index(lines[0], "ID")
	for _, l := range lines[1:] {
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("misaligned row %q (ID column at %d)", l, col)
		}
	}
}

func TestQueryJSONL(t *testing.T) {
	db := buildIndex(t)
	r := mustRun(t, "", "query", "--db", db, "--format", "jsonl", "--id", "GPL-2.0-only.txt")
	objs := jsonLines(t, r.stdout, "query", "id", "distance", "similarity", "exact")
	found := map[any]bool{}
	for _, o := range objs {
		if o["query"] != "GPL-2.0-only.txt" {
			t.Errorf("query field %v", o["query"])
		}
		found[o["id"]] = true
	}
	if !found["GPL-2.0-or-later.txt"] || found["GPL-2.0-only.txt"] {
		t.Errorf("--id GPL-2.0-only.txt found %v", found)
	}

	// -k 0 asks for identical fingerprints only; --limit caps the matches.
	r = mustRun(t, "", "query", "--db", db, "-f", "jsonl", "-k", "0", "--id", "GPL-2.0-only.txt", "--id", "MIT.txt")
	for _, o := range jsonLines(t, r.stdout, "query", "id", "distance", "similarity", "exact") {
		if o["distance"].(interface{ String() string }).String() != "0" {
			t.Errorf("-k 0 gave %v", o)
		}
	}
	r = mustRun(t, "", "query", "--db", db, "-f", "jsonl", "--limit", "1", "--id", "BSD-3-Clause.txt")
	if n := strings.Count(r.stdout, "\n"); n != 1 {
		t.Errorf("--limit 1 gave %d matches", n)
	}
}

func TestQueryMinHash(t *testing.T) {
	db := buildIndex(t, "--minhash")
	r := mustRun(t, "", "query", "--db", db, "-f", "jsonl", "--min-similarity", "0.8", "--id", "BSD-2-Clause.txt")
	objs := jsonLines(t, r.stdout, "query", "id", "distance", "similarity", "exact")
	if len(objs) == 0 {
		t.Fatal("no match with similarity >= 0.8")
	}
	for _, o := range objs {
		s, err := o["similarity"].(interface{ Float64() (float64, error) }).Float64()
		if err != nil || s < 0.8 || s > 1 {
			t.Errorf("similarity %v", o["similarity"])
		}
	}
	r = mustRun(t, "", "query", "--db", db, testdataFile("MIT.txt"))
	if !strings.Contains(r.stdout, "SIMILARITY") || !strings.Contains(r.stdout, "1.00") {
		t.Errorf("table without similarity:\n%s", r.stdout)
	}
}

func TestQueryStdin(t *testing.T) {
	db := buildIndex(t)
	mit, err := os.ReadFile(testdataFile("MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// No FILE: one document from standard input, named "-".
	r := runBinary(t, string(mit), "query", "--db", db, "-f", "jsonl")
	if r.code != 0 || !strings.Contains(r.stdout, `{"query":"-","id":"MIT.txt","distance":0,"similarity":1,"exact":true}`) {
		t.Errorf("query from stdin: %v", r)
	}
	// A fingerprint as printed by simidx fingerprint: it has no MinHash
	// signature, so no similarity.
	fp := strings.Fields(mustRun(t, "", "fingerprint", testdataFile("MIT.txt")).stdout)[0]
	r = mustRun(t, "", "query", "--db", db, "-f", "jsonl", "--fingerprint", fp)
	if !strings.Contains(r.stdout, `{"query":"`+fp+`","id":"MIT.txt","distance":0}`) {
		t.Errorf("--fingerprint %s: %s", fp, r.stdout)
	}
}

func TestQueryOutputFile(t *testing.T) {
	db := buildIndex(t)
	out := filepath.Join(t.TempDir(), "matches.jsonl")
	r := mustRun(t, "", "query", "--db", db, "-f", "jsonl", "-o", out, "--id", "MIT.txt")
	if r.stdout != "" {
		t.Errorf("stdout with --output: %q", r.stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	jsonLines(t, string(b), "query", "id", "distance", "similarity", "exact")
	if len(b) == 0 {
		t.Error("empty output file")
	}
}

func TestQueryErrors(t *testing.T) {
	db := buildIndex(t)
	noMinHash := buildIndex(t, "--no-minhash")
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	junk := filepath.Join(dir, "junk.db")
	writeFiles(t, dir, map[string]string{"junk.db": strings.Repeat("x", 10000)})

	// An index written by a newer version of the schema.
	newer := filepath.Join(dir, "newer.db")
	mustRun(t, "", "index", "-q", "--db", newer, testdataFile("MIT.txt"))
	bdb, err := bolt.Open(newer, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = bdb.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("version"), binary.BigEndian.AppendUint32(nil, index.SchemaVersion+1))
	})
	bdb.Close()
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing", []string{"query", "--db", missing, "--id", "x"}, 1,
			"simidx query: no index at " + missing + "; create one with simidx index"},
		{"not an index", []string{"query", "--db", junk, "--id", "x"}, 1,
			"simidx query: " + junk + " is not a simidx index"},
		{"newer", []string{"query", "--db", newer, "--id", "x"}, 1,
			"simidx query: " + newer + " was written by a newer version of simidx"},
		{"newer advice", []string{"query", "--db", newer, "--id", "x"}, 1, "upgrade simidx to use it"},
		{"no db", []string{"query", "--id", "x"}, 2, "--db PATH is required"},
		{"unknown id", []string{"query", "--db", db, "--id", "nope.txt"}, 1, `no document "nope.txt" in ` + db},
		{"k too far", []string{"query", "--db", db, "-k", "5", "--id", "MIT.txt"}, 2,
			"-k 5 is more than the 3 bits " + db + " answers exactly; create the index with --max-distance 5"},
		{"similarity without minhash", []string{"query", "--db", noMinHash, "--min-similarity", "0.5", "--id", "MIT.txt"}, 2,
			"--min-similarity needs a similarity: " + noMinHash + " was created without the MinHash layer"},
		{"similarity of a fingerprint", []string{"query", "--db", db, "--min-similarity", "0.5", "--fingerprint", "1"}, 2,
			"--min-similarity cannot be used with --fingerprint"},
		{"similarity range", []string{"query", "--db", db, "--min-similarity", "1.5", "--id", "MIT.txt"}, 2,
			"--min-similarity must be 0 to 1, not 1.5"},
		{"similarity NaN", []string{"query", "--db", db, "--min-similarity", "NaN", "--id", "MIT.txt"}, 2,
			"--min-similarity must be 0 to 1, not NaN"},
		{"similarity Inf", []string{"query", "--db", db, "--min-similarity", "Inf", "--id", "MIT.txt"}, 2,
			"--min-similarity must be 0 to 1, not +Inf"},
		{"similarity -Inf", []string{"query", "--db", db, "--min-similarity", "-Inf", "--id", "MIT.txt"}, 2,
			"--min-similarity must be 0 to 1, not -Inf"},
		{"similarity before the index", []string{"query", "--db", missing, "--min-similarity", "nan", "--id", "MIT.txt"}, 2,
			"--min-similarity must be 0 to 1, not NaN"},
		{"bad fingerprint", []string{"query", "--db", db, "--fingerprint", "xyz"}, 2,
			`--fingerprint wants 1 to 16 hexadecimal digits, not "xyz"`},
		{"format", []string{"query", "--db", db, "--format", "csv", "--id", "MIT.txt"}, 2,
			`--format must be table or jsonl, not "csv"`},
		{"unreadable file", []string{"query", "--db", db, filepath.Join(dir, "nope.txt")}, 1,
			"cannot read " + filepath.Join(dir, "nope.txt") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := simidx(t, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("want exit %d and %q, got %v", tc.code, tc.msg, r)
			}
			if tc.code == exitUsage && r.stdout != "" {
				t.Errorf("a usage error wrote to stdout: %q", r.stdout)
			}
		})
	}
}

// TestQuerySkipsTooLarge checks that a document over the size limit is
// skipped with a warning naming it, and the others are still queried.
func TestQuerySkipsTooLarge(t *testing.T) {
	db := buildIndex(t)
	mit, err := os.ReadFile(testdataFile("MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	oneLine := strings.Join(strings.Fields(string(mit)), " ")
	huge := strings.Repeat("a ", index.MaxDocSize/2+1)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"huge.txt":   huge + "\n" + oneLine + "\n",
		"huge.jsonl": `{"id": "big", "text": "` + huge + `"}` + "\n" + `{"id": "mit", "text": ` + strconv.Quote(oneLine) + `}` + "\n",
	})
	for _, tc := range []struct {
		args  []string
		warn  string
		query string
	}{
		{[]string{"--input", "lines", filepath.Join(dir, "huge.txt")}, filepath.Join(dir, "huge.txt") + ":1: larger than 16 MiB, skipped", "2"},
		{[]string{filepath.Join(dir, "huge.jsonl")}, filepath.Join(dir, "huge.jsonl") + ":1: larger than 16 MiB, skipped", "mit"},
	} {
		args := append([]string{"query", "--db", db, "-f", "jsonl"}, tc.args...)
		r := simidx(t, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.warn) || !strings.Contains(r.stderr, "1 input was skipped (see above)") {
			t.Errorf("simidx %q: want exit 1 and %q, got %v", args, tc.warn, r)
		}
		if !strings.Contains(r.stdout, `{"query":"`+tc.query+`","id":"MIT.txt"`) {
			t.Errorf("simidx %q: the document after the large one was not queried:\n%s", args, r.stdout)
		}
	}
}

// TestQueryNoRows checks that the table header is written only with a row:
// a query without matches, or one that fails, prints nothing.
func TestQueryNoRows(t *testing.T) {
	db := buildIndex(t)
	if r := mustRun(t, "Permission is hereby granted", "query", "--db", db); r.stdout != "" {
		t.Errorf("a query without matches printed %q", r.stdout)
	}
	r := simidx(t, "", "query", "--db", db, "--id", "nope.txt")
	if r.code != 1 || r.stdout != "" {
		t.Errorf("a failed query: %v", r)
	}
	out := filepath.Join(t.TempDir(), "out.txt")
	if r := simidx(t, "", "query", "--db", db, "--id", "nope.txt", "-o", out); r.code != 1 {
		t.Errorf("a failed query: %v", r)
	}
	if b, err := os.ReadFile(out); err != nil || len(b) != 0 {
		t.Errorf("a failed query wrote %q to -o (%v)", b, err)
	}
	// A failure after some matches keeps them, with the header.
	r = simidx(t, "", "query", "--db", db, "--id", "MIT.txt", "--id", "nope.txt")
	if r.code != 1 || !strings.HasPrefix(r.stdout, "QUERY ") || !strings.Contains(r.stdout, "JSON.txt") {
		t.Errorf("matches before a failure: %v", r)
	}
}

// TestQueryStoredFingerprint checks that a match added as a fingerprint
// shows no similarity: it has no MinHash signature.
func TestQueryStoredFingerprint(t *testing.T) {
	db := buildIndex(t)
	fp := mustRun(t, "", "fingerprint", testdataFile("MIT.txt")).stdout[:16]
	mustRun(t, fp+"  mit-fp\n", "index", "-q", "--db", db, "--input", "hashes", "-")

	r := mustRun(t, "", "query", "--db", db, "-f", "jsonl", testdataFile("MIT.txt"))
	if !strings.Contains(r.stdout, `"id":"mit-fp","distance":0}`) || !strings.Contains(r.stdout, `"id":"MIT.txt","distance":0,"similarity":1,"exact":true}`) {
		t.Errorf("query -f jsonl:\n%s", r.stdout)
	}
	r = mustRun(t, "", "query", "--db", db, "--id", "MIT.txt")
	if !regexp.MustCompile(`(?m)^MIT\.txt +mit-fp +0 +- +-$`).MatchString(r.stdout) {
		t.Errorf("query --id: a match added as a fingerprint has a similarity:\n%s", r.stdout)
	}
	r = mustRun(t, "", "dedup", "--db", db, "--pairs", "-f", "jsonl")
	if !strings.Contains(r.stdout, `{"a":"MIT.txt","b":"mit-fp","distance":0}`) {
		t.Errorf("dedup --pairs -f jsonl:\n%s", r.stdout)
	}
	r = mustRun(t, "", "dedup", "--db", db, "--pairs")
	if !regexp.MustCompile(`(?m)^MIT\.txt +mit-fp +0 +- +-$`).MatchString(r.stdout) {
		t.Errorf("dedup --pairs:\n%s", r.stdout)
	}
}
