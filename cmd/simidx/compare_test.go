package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// compareOutput is compare's JSON object, decoded.
type compareOutput struct {
	Jaccard      float64  `json:"jaccard"`
	ContainmentA float64  `json:"containment_a"`
	ContainmentB float64  `json:"containment_b"`
	Distance     int      `json:"distance"`
	Similarity   *float64 `json:"similarity"`
	Exact        bool     `json:"exact"`
	Passages     []struct {
		AStart int    `json:"a_start"`
		AEnd   int    `json:"a_end"`
		BStart int    `json:"b_start"`
		BEnd   int    `json:"b_end"`
		Words  int    `json:"words"`
		Text   string `json:"text"`
	} `json:"passages"`
}

// compareJSON runs compare with -f jsonl and decodes its one object.
func compareJSON(t *testing.T, stdin string, args ...string) compareOutput {
	t.Helper()
	r := mustRun(t, stdin, append([]string{"compare", "-f", "jsonl"}, args...)...)
	var c compareOutput
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("compare %q: not one JSON object: %v\n%s", args, err, r.stdout)
	}
	return c
}

// tableValues returns the two-column part of compare's table output.
func tableValues(t *testing.T, out string) map[string]string {
	t.Helper()
	vals := map[string]string{}
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) == 0 {
			break
		}
		if len(f) != 2 {
			t.Fatalf("row %q is not NAME VALUE in\n%s", line, out)
		}
		vals[f[0]] = f[1]
	}
	return vals
}

// truncated returns num/den truncated to digits decimals, computed apart
// from compare's code.
func truncated(num, den, digits int) string {
	if den == 0 {
		return strconv.FormatFloat(0, 'f', digits, 64)
	}
	s := strconv.Itoa(num * pow10(digits) / den)
	for len(s) <= digits {
		s = "0" + s
	}
	return s[:len(s)-digits] + "." + s[len(s)-digits:]
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}

// shingleStrings returns the set of 5-word shingles of a file, as strings
// of canonical words: built here from the tokens, apart from the hashes
// compare uses.
func shingleStrings(t *testing.T, path string) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := shingle.NewTokenizer(nil)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	tk.Reset(text)
	for tok, ok := tk.Next(); ok; tok, ok = tk.Next() {
		words = append(words, string(tok))
	}
	set := map[string]bool{}
	for i := 0; i+5 <= len(words); i++ {
		set[strings.Join(words[i:i+5], " ")] = true
	}
	return set
}

// TestCompareGolden checks compare's Jaccard similarity and containments
// of real licences against sets of shingles made and intersected here.
func TestCompareGolden(t *testing.T) {
	for _, pair := range [][2]string{{"MIT.txt", "X11.txt"}, {"BSD-2-Clause.txt", "BSD-3-Clause.txt"}} {
		a, b := testdataFile(pair[0]), testdataFile(pair[1])
		sa, sb := shingleStrings(t, a), shingleStrings(t, b)
		common := 0
		for s := range sa {
			if sb[s] {
				common++
			}
		}
		union := len(sa) + len(sb) - common
		if common == 0 || common == union {
			t.Fatalf("%s and %s: %d shingles in common of %d: not a useful test", a, b, common, union)
		}
		c := compareJSON(t, "", a, b)
		for _, v := range []struct {
			name     string
			got      float64
			num, den int
		}{
			{"jaccard", c.Jaccard, common, union},
			{"containment_a", c.ContainmentA, common, len(sa)},
			{"containment_b", c.ContainmentB, common, len(sb)},
		} {
			if want := truncated(v.num, v.den, 4); strconv.FormatFloat(v.got, 'f', 4, 64) != want {
				t.Errorf("%s vs %s: %s %v, want %s (%d/%d)", pair[0], pair[1], v.name, v.got, want, v.num, v.den)
			}
		}
		if c.Exact || c.Similarity == nil || len(c.Passages) == 0 || len(c.Passages) > 5 {
			t.Errorf("%s vs %s: %+v", pair[0], pair[1], c)
		}
		// The table shows the same values, truncated to 2 decimals.
		vals := tableValues(t, mustRun(t, "", "compare", a, b).stdout)
		want := map[string]string{
			"jaccard":       truncated(common, union, 2),
			"containment_a": truncated(common, len(sa), 2),
			"containment_b": truncated(common, len(sb), 2),
			"distance":      strconv.Itoa(c.Distance),
			"similarity":    strconv.FormatFloat(*c.Similarity, 'f', 4, 64)[:4],
			"exact":         "false",
		}
		if fmt.Sprint(vals) != fmt.Sprint(want) {
			t.Errorf("%s vs %s: table %v, want %v", pair[0], pair[1], vals, want)
		}
	}
}

// TestCompareIdentical runs the built binary on a file and itself, and on
// a copy of it.
func TestCompareIdentical(t *testing.T) {
	a := testdataFile("X11.txt")
	text, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(t.TempDir(), "copy.txt")
	// Case, spacing and punctuation are canonicalized away.
	if err := os.WriteFile(b, []byte(strings.ToUpper(strings.ReplaceAll(string(text), "\n", "  \n"))), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{a, b} {
		r := runBinary(t, "", "compare", a, other)
		if r.code != 0 {
			t.Fatalf("compare %s %s: %v", a, other, r)
		}
		vals := tableValues(t, r.stdout)
		want := "map[containment_a:1.00 containment_b:1.00 distance:0 exact:true jaccard:1.00 similarity:1.00]"
		if fmt.Sprint(vals) != want {
			t.Errorf("compare %s %s: %v, want %s", a, other, vals, want)
		}
		// One passage: the whole text.
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if n := len(lines); n != 9 || !strings.HasPrefix(lines[7], "A_START") {
			t.Fatalf("compare %s %s: %d lines:\n%s", a, other, n, r.stdout)
		}
		f := strings.Fields(lines[8])
		if f[0] != "0" || f[1] != strconv.Itoa(len(strings.TrimRight(string(text), ".\n"))) {
			t.Errorf("compare %s %s: passage %q", a, other, lines[8])
		}
	}
}

// TestCompareOneWord compares a text with a copy in which one word
// differs: the two passages around it are the longest, and their offsets
// hold the same text in both files.
func TestCompareOneWord(t *testing.T) {
	a := testdataFile("X11.txt")
	text, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(text), "furnished")
	if at < 0 {
		t.Fatal("no 'furnished' in X11.txt")
	}
	changed := string(text[:at]) + "provided" + string(text[at+len("furnished"):])
	b := filepath.Join(t.TempDir(), "changed.txt")
	if err := os.WriteFile(b, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	c := compareJSON(t, "", a, b)
	if c.Exact || !(c.Jaccard > 0.9 && c.Jaccard < 1) || c.Distance > 6 {
		t.Errorf("one word changed: %+v", c)
	}
	if len(c.Passages) < 2 {
		t.Fatalf("passages %+v", c.Passages)
	}
	first, second := c.Passages[0], c.Passages[1]
	if first.AStart > second.AStart {
		first, second = second, first
	}
	if first.AStart != 0 || first.AEnd > at || second.AStart < at+len("furnished") ||
		first.BEnd > at || second.BStart < at+len("provided") {
		t.Errorf("the passages do not stop at the changed word (byte %d): %+v", at, c.Passages[:2])
	}
	for _, p := range c.Passages {
		if pa, pb := string(text[p.AStart:p.AEnd]), changed[p.BStart:p.BEnd]; pa != pb || pa != p.Text {
			t.Errorf("passage %+v: %q in A, %q in B", p, pa, pb)
		}
	}
}

func TestCompareUnrelated(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.txt": "The quick brown fox jumps over the lazy dog.",
		"b.txt": "Colorless green ideas sleep furiously, said Chomsky.",
	})
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	c := compareJSON(t, "", a, b)
	if c.Jaccard != 0 || c.ContainmentA != 0 || c.ContainmentB != 0 || c.Exact || len(c.Passages) != 0 ||
		c.Similarity == nil || *c.Similarity > 0.2 {
		t.Errorf("unrelated texts: %+v", c)
	}
	// Without passages, the table has the measures alone.
	r := mustRun(t, "", "compare", a, b)
	if strings.Contains(r.stdout, "\n\n") || len(tableValues(t, r.stdout)) != 6 {
		t.Errorf("table:\n%s", r.stdout)
	}
}

// TestCompareStdin reads A from standard input, through the binary and in
// this process, with a byte order mark that offsets count.
func TestCompareStdin(t *testing.T) {
	b := testdataFile("ISC.txt")
	text, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	stdin := byteOrderMark + "Preface.\n" + string(text)
	want := len(byteOrderMark) + len("Preface.\n")
	r := runBinary(t, stdin, "compare", "-f", "jsonl", "-", b)
	if r.code != 0 {
		t.Fatal(r)
	}
	var c compareOutput
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatal(err)
	}
	if c.ContainmentB != 1 || c.Exact || len(c.Passages) == 0 || c.Passages[0].AStart != want || c.Passages[0].BStart != 0 {
		t.Errorf("compare - %s: %+v", b, c)
	}
	if got := compareJSON(t, stdin, b, "-"); got.ContainmentA != 1 || got.Passages[0].BStart != want {
		t.Errorf("compare %s -: %+v", b, got)
	}
}

// TestCompareEmpty checks that a text without words matches nothing, not
// even another one.
func TestCompareEmpty(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"empty.txt": "", "punct.txt": " ... !\n"})
	empty, punct := filepath.Join(dir, "empty.txt"), filepath.Join(dir, "punct.txt")
	for _, args := range [][]string{{empty, testdataFile("MIT.txt")}, {empty, empty}, {empty, punct}, {testdataFile("MIT.txt"), punct}} {
		c := compareJSON(t, "", args...)
		if c.Jaccard != 0 || c.ContainmentA != 0 || c.ContainmentB != 0 || c.Exact || len(c.Passages) != 0 ||
			c.Similarity == nil || *c.Similarity != 0 {
			t.Errorf("compare %q: %+v", args, c)
		}
	}
}

func TestCompareJSONL(t *testing.T) {
	a, b := testdataFile("MIT.txt"), testdataFile("X11.txt")
	r := mustRun(t, "", "compare", "--format", "jsonl", "--passages", "2", a, b)
	objs := jsonLines(t, r.stdout, "jaccard", "containment_a", "containment_b", "distance", "similarity", "exact", "passages")
	if len(objs) != 1 {
		t.Fatalf("%d objects", len(objs))
	}
	ps, ok := objs[0]["passages"].([]any)
	if !ok || len(ps) != 2 {
		t.Fatalf("passages: %v", objs[0]["passages"])
	}
	for _, p := range ps {
		line, _ := json.Marshal(p)
		jsonLines(t, string(line)+"\n", "a_start", "a_end", "b_start", "b_end", "words", "text")
	}
	// Four decimals at most, truncated.
	for _, f := range []string{"jaccard", "containment_a", "containment_b", "similarity"} {
		s := objs[0][f].(json.Number).String()
		if _, frac, _ := strings.Cut(s, "."); len(frac) > 4 {
			t.Errorf("%s is %s", f, s)
		}
	}
	// Without the MinHash layer there is no similarity: "-" in the table.
	r = mustRun(t, "", "compare", "-f", "jsonl", "--method", "mfonda", "--passages", "0", a, b)
	jsonLines(t, r.stdout, "jaccard", "containment_a", "containment_b", "distance", "exact", "passages")
	if !strings.HasSuffix(r.stdout, `"passages":[]}`+"\n") {
		t.Errorf("--passages 0: %s", r.stdout)
	}
	if v := tableValues(t, mustRun(t, "", "compare", "--method", "mfonda", a, b).stdout); v["similarity"] != "-" {
		t.Errorf("--method mfonda: similarity %q", v["similarity"])
	}
}

// TestCompareSettings checks that the settings flags and the settings of
// an index at --db are the ones compare uses.
func TestCompareSettings(t *testing.T) {
	a, b := testdataFile("BSD-2-Clause.txt"), testdataFile("BSD-3-Clause.txt")
	def := compareJSON(t, "", a, b)
	three := compareJSON(t, "", "--shingle-size", "3", a, b)
	if three.Jaccard <= def.Jaccard {
		t.Errorf("3-word shingles: Jaccard %v, 5-word %v", three.Jaccard, def.Jaccard)
	}
	db := buildIndex(t, "--shingle-size", "3")
	want := mustRun(t, "", "compare", "-f", "jsonl", "--shingle-size", "3", a, b).stdout
	if got := mustRun(t, "", "compare", "-f", "jsonl", "--db", db, a, b).stdout; got != want {
		t.Errorf("--db with 3-word shingles:\n%s\nwant\n%s", got, want)
	}
}

func TestCompareErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"bin.dat": "GIF89a\x00\x01", "a.txt": "some text"})
	huge := filepath.Join(dir, "huge.txt")
	if err := os.WriteFile(huge, []byte(strings.Repeat("a ", index.MaxDocSize/2+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	a, bin, missing := filepath.Join(dir, "a.txt"), filepath.Join(dir, "bin.dat"), filepath.Join(dir, "missing.txt")
	db := buildIndex(t)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, "compare takes two texts, A and B (files, or - for standard input); got 0"},
		{[]string{a}, 2, "got 1"},
		{[]string{a, a, a}, 2, "not 3"},
		{[]string{"-", "-"}, 2, "standard input (-) given more than once"},
		{[]string{"--passages", "-1", a, a}, 2, "--passages must be 0 or more"},
		{[]string{"--db", db, "--id", "MIT.txt", a}, 2, `cannot compare the stored document "MIT.txt": an index keeps the fingerprints and signatures of its documents, not their texts`},
		{[]string{"--db", db, "--shingle-size", "3", a, a}, 2, "give either --db or settings flags, not both"},
		{[]string{"--db", filepath.Join(dir, "none.db"), a, a}, 1, "no index at"},
		{[]string{a, missing}, 1, "cannot read " + missing + ": no such file or directory"},
		{[]string{dir, a}, 1, dir + " is a directory"},
		{[]string{a, bin}, 1, bin + " is binary (holds a NUL byte)"},
		{[]string{huge, a}, 1, huge + " is larger than 16 MiB"},
	} {
		r := simidx(t, "", append([]string{"compare"}, tc.args...)...)
		if r.code != tc.code || r.stdout != "" || !strings.Contains(r.stderr, "simidx compare: ") || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("compare %q: want exit %d and %q, got %v", tc.args, tc.code, tc.msg, r)
		}
	}
	// Through the binary, a usage error exits 2.
	if r := runBinary(t, "", "compare", a); r.code != 2 || !strings.Contains(r.stderr, "Run 'simidx help compare' for usage.") {
		t.Errorf("compare with one operand: %v", r)
	}
}

func TestExcerpt(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"short text", "short text"},
		{"  several\n\tspaces  \n", "several spaces"},
		{strings.Repeat("word ", 20), "word word word word word word word word word word word…"},
		{strings.Repeat("x", 70), strings.Repeat("x", 59) + "…"},
		{strings.Repeat("日本", 40), strings.Repeat("日本", 29) + "日…"},
	} {
		if got := excerpt(tc.in, passageWidth); got != tc.want {
			t.Errorf("excerpt(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
