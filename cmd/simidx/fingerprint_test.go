package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

func TestFingerprint(t *testing.T) {
	r := mustRun(t, "", "fingerprint", testdataFile("MIT.txt"), testdataFile("ISC.txt"))
	re := regexp.MustCompile(`^[0-9a-f]{16}  \S+$`)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), r.stdout)
	}
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("line %q is not HEX16  NAME", l)
		}
	}
	if !strings.HasSuffix(lines[0], "  "+testdataFile("MIT.txt")) {
		t.Errorf("first line %q", lines[0])
	}

	// The fingerprint is the one the index stores.
	db := buildIndex(t)
	x, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	fp, err := x.Fingerprint("MIT.txt")
	x.Close()
	if err != nil {
		t.Fatal(err)
	}
	if lines[0][:16] != hex16(fp) {
		t.Errorf("fingerprint %s, index stores %s", lines[0][:16], hex16(fp))
	}
	// --db takes the index's settings.
	if r := mustRun(t, "", "fingerprint", "--db", db, testdataFile("MIT.txt")); r.stdout[:16] != hex16(fp) {
		t.Errorf("fingerprint --db: %s", r.stdout)
	}
	// Other text settings give another fingerprint.
	if r := mustRun(t, "", "fingerprint", "--unit", "chars", testdataFile("MIT.txt")); r.stdout[:16] == hex16(fp) {
		t.Errorf("--unit chars gives the same fingerprint")
	}
}

func TestFingerprintJSONL(t *testing.T) {
	r := mustRun(t, "", "fingerprint", "--format", "jsonl", licenses)
	objs := jsonLines(t, r.stdout, "id", "fingerprint")
	if len(objs) != 68 {
		t.Errorf("%d fingerprints", len(objs))
	}
	hex := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, o := range objs {
		if s, ok := o["fingerprint"].(string); !ok || !hex.MatchString(s) {
			t.Errorf("fingerprint %v is not a 16-digit hex string", o["fingerprint"])
		}
	}
}

// TestFingerprintStdin reads a document from standard input and feeds the
// output back as precomputed fingerprints.
func TestFingerprintStdin(t *testing.T) {
	mit, err := os.ReadFile(testdataFile("MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, string(mit), "fingerprint")
	file := mustRun(t, "", "fingerprint", testdataFile("MIT.txt"))
	if r.code != 0 || r.stdout != file.stdout[:16]+"  -\n" {
		t.Errorf("fingerprint of stdin: %v", r)
	}

	// simidx fingerprint output is input for --input hashes. Such documents
	// have no MinHash signature and match by distance alone, as they do in
	// an index without MinHash.
	all := mustRun(t, "", "fingerprint", licenses)
	db := filepath.Join(t.TempDir(), "h.db")
	mustRun(t, all.stdout, "index", "-q", "--db", db, "--input", "hashes", "-")
	// The same clusters, with the same members kept and the same
	// distances; only the texts say which are exact copies.
	a := mustRun(t, "", "dedup", "--db", db, "-f", "jsonl")
	b := mustRun(t, "", "dedup", "-q", "--no-minhash", "-f", "jsonl", licenses)
	if noExact := regexp.MustCompile(`,"exact":(true|false)`); a.stdout != noExact.ReplaceAllString(b.stdout, "") || a.stdout == "" {
		t.Errorf("clusters of precomputed fingerprints differ:\n%s\n%s", a.stdout, b.stdout)
	}
}

func TestFingerprintErrors(t *testing.T) {
	db := buildIndex(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"fingerprint", "--input", "hashes", licenses}, "--input hashes already holds fingerprints"},
		{[]string{"fingerprint", "--db", db, "--keep-case", licenses}, "give either --db or settings flags, not both"},
		{[]string{"fingerprint", "--shingle-size", "0", licenses}, "--shingle-size must be positive, not 0"},
		{[]string{"fingerprint", "--markup", "html", licenses}, `--markup must be auto, strip or keep, not "html"`},
	} {
		if r := simidx(t, "", tc.args...); r.code != 2 || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("simidx %q: want exit 2 and %q, got %v", tc.args, tc.msg, r)
		}
	}
}

// TestFingerprintFeatures checks that --features names the default
// explicitly and that the other choices change the fingerprint.
func TestFingerprintFeatures(t *testing.T) {
	def := mustRun(t, "", "fingerprint", testdataFile("MIT.txt")).stdout
	if got := mustRun(t, "", "fingerprint", "--features", "units+pairs", testdataFile("MIT.txt")).stdout; got != def {
		t.Errorf("--features units+pairs gives %q, the default %q", got, def)
	}
	for _, f := range []string{"units", "shingles"} {
		if got := mustRun(t, "", "fingerprint", "--features", f, testdataFile("MIT.txt")).stdout; got == def {
			t.Errorf("--features %s gives the default fingerprint", f)
		}
	}
	if r := simidx(t, "", "fingerprint", "--features", "bogus", testdataFile("MIT.txt")); r.code != exitUsage ||
		!strings.Contains(r.stderr, "--features must be units+pairs, units or shingles") {
		t.Errorf("bad --features: %v", r)
	}
}

// TestFingerprintHashesRoundTrip feeds simidx fingerprint output to
// index --input hashes when the names look like hex digits or numbers, or
// hold spaces: each line is read as fingerprint, two spaces, name.
func TestFingerprintHashesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	titles := filepath.Join(dir, "titles.txt")
	files := filepath.Join(dir, "files")
	writeFiles(t, dir, map[string]string{
		"titles.txt":       "the first title\nthe second title\nthe third title\n",
		"files/2024":       "a file named like a year",
		"files/deadbeef":   "a file named like a fingerprint",
		"files/cafe":       "another hex name",
		"files/my file 12": "a name with spaces and a hex last word",
		"files/x ff  ab":   "two spaces in the name",
	})
	for _, tc := range []struct {
		args []string
		ids  []string
	}{
		{[]string{"--input", "lines", titles}, []string{"1", "2", "3"}},
		{[]string{files}, []string{"2024", "deadbeef", "cafe", "my file 12", "x ff  ab"}},
	} {
		out := mustRun(t, "", append([]string{"fingerprint"}, tc.args...)...).stdout
		want := map[string]string{} // ID -> fingerprint
		for line := range strings.Lines(out) {
			want[strings.TrimSuffix(line[18:], "\n")] = line[:16]
		}
		db := filepath.Join(t.TempDir(), "fp.db")
		r := mustRun(t, out, "index", "--db", db, "--input", "hashes", "-")
		if !strings.Contains(r.stderr, "; 0 skipped") {
			t.Errorf("index --input hashes: %v", r)
		}
		x, err := index.Open(db, &index.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if x.Len() != len(tc.ids) {
			t.Errorf("%d documents, want %d (%q)", x.Len(), len(tc.ids), tc.ids)
		}
		for _, id := range tc.ids {
			fp, err := x.Fingerprint(id)
			if err != nil {
				t.Errorf("%q: %v", id, err)
			} else if hex16(fp) != want[id] {
				t.Errorf("%q: fingerprint %s, simidx fingerprint printed %s", id, hex16(fp), want[id])
			}
		}
		x.Close()
	}
}

// TestFingerprintTooLarge checks that documents over the size limit are
// refused whether they are files, lines or JSON lines.
func TestFingerprintTooLarge(t *testing.T) {
	huge := strings.Repeat("a ", index.MaxDocSize/2+1)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"huge.txt":   huge + "\nsmall document\n",
		"huge.jsonl": `{"id": "big", "text": "` + huge + `"}` + "\n" + `{"id": "small", "text": "small document"}` + "\n",
	})
	small := mustRun(t, "small document", "fingerprint").stdout[:16]
	txt, jsonl := filepath.Join(dir, "huge.txt"), filepath.Join(dir, "huge.jsonl")
	for _, tc := range []struct {
		args []string
		warn string
		out  string
	}{
		{[]string{txt}, txt + ": larger than 16 MiB, skipped", ""},
		{[]string{"--input", "lines", txt}, txt + ":1: larger than 16 MiB, skipped", small + "  2\n"},
		{[]string{jsonl}, jsonl + ":1: larger than 16 MiB, skipped", small + "  small\n"},
	} {
		args := append([]string{"fingerprint"}, tc.args...)
		r := simidx(t, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.warn) || r.stdout != tc.out {
			t.Errorf("simidx %q: want exit 1, %q and output %q, got %v", args, tc.warn, tc.out, r)
		}
	}
}

// TestFingerprintBinary checks that a binary file is named in a warning.
func TestFingerprintBinary(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"odd/bin.dat": "GIF89a\x00\x01 binary", "odd/text.txt": "some text"})
	bin := filepath.Join(dir, "odd", "bin.dat")
	r := simidx(t, "", "fingerprint", bin)
	want := "simidx fingerprint: " + bin + ": binary (holds a NUL byte), skipped\nsimidx fingerprint: 1 input was skipped (see above)\n"
	if r.code != 1 || r.stdout != "" || r.stderr != want {
		t.Errorf("want exit 1 and %q, got %v", want, r)
	}
	// In a directory too, the warning gives the path of the file.
	r = simidx(t, "", "fingerprint", filepath.Join(dir, "odd"))
	if r.code != 1 || !strings.HasSuffix(r.stdout, "  text.txt\n") || !strings.Contains(r.stderr, "simidx fingerprint: "+bin+": binary (holds a NUL byte), skipped\n") {
		t.Errorf("fingerprint of a directory with a binary file: %v", r)
	}
}

// TestFingerprintEscapedNames checks that names with a backslash, a
// newline or a carriage return are escaped as GNU md5sum escapes them, read
// back by --input hashes, and quoted in tables.
func TestFingerprintEscapedNames(t *testing.T) {
	dir := t.TempDir()
	text := "the same text in every file, so that they are all near duplicates of each other"
	names := []string{"tab\there", "new\nline", `back\slash`, "cr\r", "plain"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = text
	}
	writeFiles(t, dir, files)
	out := mustRun(t, "", "fingerprint", dir).stdout
	fp := mustRun(t, text, "fingerprint").stdout[:16]
	for _, want := range []string{
		"\\" + fp + `  back\\slash` + "\n",
		"\\" + fp + `  cr\r` + "\n",
		"\\" + fp + `  new\nline` + "\n",
		fp + "  plain\n",
		fp + "  tab\there\n", // md5sum does not escape a tab
	} {
		if !strings.Contains(out, want) {
			t.Errorf("fingerprint output lacks %q:\n%s", want, out)
		}
	}
	db := filepath.Join(t.TempDir(), "fp.db")
	mustRun(t, out, "index", "-q", "--db", db, "--input", "hashes", "-")
	x, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if got, err := x.Fingerprint(n); err != nil || hex16(got) != fp {
			t.Errorf("%q: %s, %v", n, hex16(got), err)
		}
	}
	x.Close()

	// In tables, a name with a control character is quoted; JSON needs
	// nothing.
	db = filepath.Join(t.TempDir(), "text.db")
	mustRun(t, "", "index", "-q", "--db", db, dir)
	r := mustRun(t, "", "dedup", "--db", db, "--pairs")
	for _, want := range []string{
		`"cr\r"  `, `"new\nline"  `, `"tab\there"  `, "\nback\\slash  ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("dedup --pairs lacks %q:\n%s", want, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "\n"); n != 11 {
		t.Errorf("dedup --pairs: %d lines, want a header and 10 pairs:\n%s", n, r.stdout)
	}
	r = mustRun(t, "", "dedup", "--db", db)
	if n := strings.Count(r.stdout, "\n"); n != 6 || !strings.Contains(r.stdout, `"new\nline"`) {
		t.Errorf("dedup: want a header and 5 rows:\n%s", r.stdout)
	}
	r = mustRun(t, "", "query", "--db", db, "--id", "tab\there")
	if n := strings.Count(r.stdout, "\n"); n != 5 || !strings.Contains(r.stdout, `"tab\there"  `) {
		t.Errorf("query: want a header and 4 rows:\n%s", r.stdout)
	}
	r = mustRun(t, "", "query", "--db", db, "--id", "tab\there", "-f", "jsonl")
	if !strings.Contains(r.stdout, `{"query":"tab\there","id":"new\nline",`) {
		t.Errorf("query -f jsonl:\n%s", r.stdout)
	}
}
