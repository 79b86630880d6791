package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/input"
	"github.com/spf13/pflag"
)

// TestDedupSample runs the command of the README on the sample corpus: real
// licence families come out as clusters. With single linkage every
// family is in one cluster; with center linkage (the default), the BSD
// licences, which chain, are split.
func TestDedupSample(t *testing.T) {
	r := mustRun(t, "", "dedup", licenses)
	if !strings.HasPrefix(r.stderr, "indexed 68 documents") {
		t.Errorf("stderr: %q", r.stderr)
	}
	center := tableClusters(t, r.stdout)
	families := [][]string{
		{"GPL-2.0-only.txt", "GPL-2.0-or-later.txt"},
		{"Apache-2.0.txt", "ECL-2.0.txt"},
		{"JSON.txt", "MIT.txt"},
		{"GPL-3.0-only.txt", "GPL-3.0-or-later.txt"},
		{"CC-BY-4.0.txt", "CC-BY-SA-4.0.txt"},
		{"MPL-2.0.txt", "MPL-2.0-no-copyleft-exception.txt"},
	}
	checkFamilies(t, center, families)
	single := tableClusters(t, mustRun(t, "", "dedup", "-q", "--linkage", "single", licenses).stdout)
	checkFamilies(t, single, append(families, []string{"BSD-3-Clause.txt", "BSD-3-Clause-Attribution.txt"}))
	if len(center) <= len(single) {
		t.Errorf("%d clusters with center linkage, %d with single: the chains are not split", len(center), len(single))
	}
}

// tableClusters returns the clusters of the table dedup writes, each the
// kept member then the others.
func tableClusters(t *testing.T, out string) [][]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if got := strings.Join(strings.Fields(lines[0]), " "); got != "CLUSTER SIZE ID KEEP DISTANCE SIMILARITY EXACT" {
		t.Errorf("header %q", lines[0])
	}
	// Rebuild the clusters from the table: a row with a number starts one,
	// with the kept member; the others follow.
	var clusters [][]string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		switch {
		case len(f) == 7 && f[3] == "keep" && f[4] == "-" && f[5] == "-" && f[6] == "-":
			clusters = append(clusters, []string{f[2]})
		case len(f) == 5 && f[1] == "drop" && (f[4] == "yes" || f[4] == "no"):
			clusters[len(clusters)-1] = append(clusters[len(clusters)-1], f[0])
		default:
			t.Fatalf("row %q", l)
		}
	}
	return clusters
}

// checkFamilies checks that each of families is in one of clusters, that
// unrelated licences are in none, and that there are 10 clusters or more.
func checkFamilies(t *testing.T, clusters [][]string, families [][]string) {
	t.Helper()
	for _, family := range families {
		if !slices.ContainsFunc(clusters, func(c []string) bool {
			return slices.Contains(c, family[0]) && slices.Contains(c, family[1])
		}) {
			t.Errorf("%s and %s are not in one cluster", family[0], family[1])
		}
	}
	// Unrelated licences are in none.
	for _, c := range clusters {
		for _, lone := range []string{"Zlib.txt", "WTFPL.txt", "Unlicense.txt"} {
			if slices.Contains(c, lone) {
				t.Errorf("%s is in cluster %v", lone, c)
			}
		}
	}
	if len(clusters) < 10 {
		t.Errorf("only %d clusters: %v", len(clusters), clusters)
	}
}

func TestDedupJSONL(t *testing.T) {
	r := mustRun(t, "", "dedup", "-q", "--format", "jsonl", licenses)
	objs := jsonLines(t, r.stdout, "cluster", "representative", "ids", "keep", "members")
	for i, o := range objs {
		if o["cluster"].(interface{ String() string }).String() != strconv.Itoa(i) {
			t.Errorf("cluster %v at position %d", o["cluster"], i)
		}
		// With center linkage (the default) the representative is the
		// center, which is kept.
		ids := o["ids"].([]any)
		if len(ids) < 2 || o["representative"] != o["keep"] || !slices.Contains(ids, o["representative"]) {
			t.Errorf("cluster %v", o)
		}
		for j := 1; j < len(ids); j++ {
			if ids[j-1].(string) >= ids[j].(string) {
				t.Errorf("IDs not sorted: %v", ids)
			}
		}
	}
}

func TestDedupPairs(t *testing.T) {
	r := mustRun(t, "", "dedup", "-q", "--pairs", "--format", "jsonl", licenses)
	objs := jsonLines(t, r.stdout, "a", "b", "distance", "similarity", "exact")
	if len(objs) < 10 {
		t.Fatalf("%d pairs", len(objs))
	}
	for i, o := range objs {
		a, b := o["a"].(string), o["b"].(string)
		if a >= b {
			t.Errorf("pair a %q >= b %q", a, b)
		}
		if i > 0 {
			pa, pb := objs[i-1]["a"].(string), objs[i-1]["b"].(string)
			if pa > a || (pa == a && pb >= b) {
				t.Errorf("pairs not sorted: %v before %v", objs[i-1], o)
			}
		}
	}
	// The default threshold: every pair reaches DefaultMinSimilarity.
	for _, o := range objs {
		if s, _ := o["similarity"].(interface{ Float64() (float64, error) }).Float64(); s < index.DefaultMinSimilarity {
			t.Errorf("pair below the default similarity: %v", o)
		}
	}
	// Without MinHash, pairs have no similarity and are within -k bits.
	r = mustRun(t, "", "dedup", "-q", "--pairs", "--no-minhash", "-f", "jsonl", licenses)
	for _, o := range jsonLines(t, r.stdout, "a", "b", "distance", "exact") {
		if d, _ := o["distance"].(interface{ Int64() (int64, error) }).Int64(); d > index.DefaultMaxDistance {
			t.Errorf("pair beyond k: %v", o)
		}
	}
	// With --min-similarity and a method without MinHash by default, the
	// temporary index has MinHash.
	r = mustRun(t, "", "dedup", "-q", "--pairs", "--method", "mfonda", "--min-similarity", "0.9", "-f", "jsonl", licenses)
	for _, o := range jsonLines(t, r.stdout, "a", "b", "distance", "similarity", "exact") {
		if s, _ := o["similarity"].(interface{ Float64() (float64, error) }).Float64(); s < 0.9 {
			t.Errorf("pair below 0.9: %v", o)
		}
	}
	r = mustRun(t, "", "dedup", "-q", "--pairs", "--limit", "3", licenses)
	if n := strings.Count(r.stdout, "\n"); n != 4 {
		t.Errorf("--limit 3: %d lines:\n%s", n, r.stdout)
	}
	if !strings.HasPrefix(r.stdout, "A ") {
		t.Errorf("table header: %q", r.stdout)
	}
	// --limit N gives the first N pairs of the sorted list, in the
	// temporary index and in a stored one.
	db := buildIndex(t)
	for _, args := range [][]string{{"-q", licenses}, {"--db", db}} {
		all := mustRun(t, "", append([]string{"dedup", "--pairs", "-f", "jsonl"}, args...)...).stdout
		lines := strings.SplitAfter(all, "\n")
		for _, n := range []int{1, 5, 12} {
			r := mustRun(t, "", append([]string{"dedup", "--pairs", "-f", "jsonl", "--limit", strconv.Itoa(n)}, args...)...)
			if want := strings.Join(lines[:n], ""); r.stdout != want {
				t.Errorf("dedup --pairs --limit %d %q:\n%s\nwant the first %d pairs:\n%s", n, args, r.stdout, n, want)
			}
		}
	}
	// Clusters are reported whole: --limit without --pairs is refused.
	if r := simidx(t, "", "dedup", "--db", db, "--limit", "2"); r.code != exitUsage ||
		!strings.Contains(r.stderr, "--limit applies to --emit pairs only") || r.stdout != "" {
		t.Errorf("--limit without --pairs: %v", r)
	}
}

func TestDedupDB(t *testing.T) {
	db := buildIndex(t)
	a := mustRun(t, "", "dedup", "--db", db, "-f", "jsonl")
	b := mustRun(t, "", "dedup", "-q", "-f", "jsonl", licenses)
	if a.stdout != b.stdout {
		t.Errorf("dedup --db and dedup of the same input differ:\n%s\n%s", a.stdout, b.stdout)
	}
	// -k narrows the report.
	k0 := mustRun(t, "", "dedup", "--db", db, "-k", "0", "-f", "jsonl")
	if len(k0.stdout) >= len(a.stdout) || k0.stdout == "" {
		t.Errorf("-k 0 reports %d bytes, -k 3 %d", len(k0.stdout), len(a.stdout))
	}

	// --db with INPUT adds the input to that index, and keeps it.
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.db")
	mustRun(t, "", "dedup", "-q", "--db", kept, "-k", "2", licenses)
	r := mustRun(t, "", "stats", "--db", kept, "-f", "jsonl")
	if !strings.Contains(r.stdout, `"docs":68,`) || !strings.Contains(r.stdout, `"max_distance":2,`) {
		t.Errorf("kept index: %s", r.stdout)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"dedup"}, 2, "give INPUT to deduplicate (files, directories or -), or --db PATH of an index"},
		{[]string{"dedup", "--db", db, "--minhash"}, 2, "settings flags apply to a new index"},
		{[]string{"dedup", "--db", filepath.Join(dir, "none.db")}, 1, "no index at " + filepath.Join(dir, "none.db")},
		{[]string{"dedup", "--limit", "-1", licenses}, 2, "--limit must not be negative"},
		{[]string{"dedup", "--db", db, "--min-similarity", "NaN"}, 2, "--min-similarity must be 0 to 1, not NaN"},
		{[]string{"dedup", "--min-similarity", "NaN", licenses}, 2, "--min-similarity must be 0 to 1, not NaN"},
		{[]string{"dedup", "--db", db, "--min-similarity", "+Inf"}, 2, "--min-similarity must be 0 to 1, not +Inf"},
	} {
		if r := simidx(t, "", tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
			t.Errorf("simidx %q: want exit %d and %q, got %v", tc.args, tc.code, tc.msg, r)
		}
	}
}

// TestDedupDBFlagsCheckedFirst checks that dedup --db INDEX INPUT refuses
// query flags the index cannot answer before it adds INPUT to the index.
func TestDedupDBFlagsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	k5 := filepath.Join(dir, "k5.db")
	mustRun(t, "", "index", "-q", "--db", k5, "-k", "5", testdataFile("MIT.txt"))
	plain := filepath.Join(dir, "plain.db")
	mustRun(t, "", "index", "-q", "--db", plain, "--no-minhash", testdataFile("MIT.txt"))
	docs := func(db string) int {
		t.Helper()
		x, err := index.Open(db, &index.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		return x.Len()
	}
	for _, tc := range []struct {
		db   string
		args []string
		msg  string
	}{
		{k5, []string{"-k", "6"}, "-k 6 is more than the 5 bits"},
		{plain, []string{"--min-similarity", "0.5"}, "--min-similarity needs a similarity"},
		{k5, []string{"-", "-"}, "standard input (-) given more than once"},
	} {
		args := append([]string{"dedup", "-q", "--db", tc.db, licenses}, tc.args...)
		r := simidx(t, "", args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
			t.Errorf("simidx %q: want exit 2 and %q, got %v", args, tc.msg, r)
		}
		if n := docs(tc.db); n != 1 {
			t.Errorf("simidx %q added to the index: %d documents, want 1", args, n)
		}
	}
	// A new index made for flags it cannot answer is not left behind.
	fresh := filepath.Join(dir, "fresh.db")
	r := simidx(t, "", "dedup", "-q", "--db", fresh, "--no-minhash", "--min-similarity", "0.5", licenses)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--min-similarity needs a similarity") {
		t.Errorf("new index without MinHash and --min-similarity: %v", r)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", fresh, err)
	}
}

// TestDedupNoRows checks that a corpus without near duplicates prints
// nothing, not even the table header.
func TestDedupNoRows(t *testing.T) {
	for _, args := range [][]string{nil, {"--pairs"}} {
		args = append(append([]string{"dedup", "-q"}, args...), testdataFile("MIT.txt"), testdataFile("Zlib.txt"))
		if r := mustRun(t, "", args...); r.stdout != "" {
			t.Errorf("simidx %q printed %q", args, r.stdout)
		}
	}
}

// TestDedupTempRemoved checks that the temporary index is removed.
func TestDedupTempRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mustRun(t, "", "dedup", "-q", licenses)
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("left behind in TMPDIR: %v", entries)
	}
}

// TestDedupSized checks that dedup's temporary index is designed for the
// input's estimated size, and that its pairs and clusters do not depend
// on the design: they are the same with the design for that estimate, for
// one document and for the default million. An index named with --db
// keeps the default design. The inputs are the sample texts as
// files, and their paragraphs as JSON lines, each with an edited copy,
// which the short-text layer and the bands pair.
func TestDedupSized(t *testing.T) {
	var f input.Flags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.Add(fs)
	r, err := input.Open([]string{licenses}, f, nil, console.New(io.Discard, "test"))
	if err != nil {
		t.Fatal(err)
	}
	var s index.Settings
	if sizeTemporary(&s, r); s.ExpectedDocs != 68 {
		t.Errorf("temporary index of 68 files designed for %d documents", s.ExpectedDocs)
	}

	names, err := filepath.Glob(filepath.Join(licenses, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for _, name := range names {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range strings.Split(string(text), "\n\n") {
			if len(strings.Fields(p)) < 8 {
				continue
			}
			for j, v := range []string{p, strings.Replace(p, " the ", " a ", 1)} {
				b, err := json.Marshal(map[string]string{"id": fmt.Sprintf("%s/%d/%d", filepath.Base(name), i, j), "text": v})
				if err != nil {
					t.Fatal(err)
				}
				lines.Write(append(b, '\n'))
			}
		}
	}
	paras := filepath.Join(t.TempDir(), "paragraphs.jsonl")
	if err := os.WriteFile(paras, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = input.Open([]string{paras}, f, nil, console.New(io.Discard, "test"))
	if err != nil {
		t.Fatal(err)
	}
	s = index.Settings{}
	if sizeTemporary(&s, r); s.ExpectedDocs != strings.Count(lines.String(), "\n") {
		t.Errorf("temporary index of %d lines designed for %d documents", strings.Count(lines.String(), "\n"), s.ExpectedDocs)
	}
	for _, in := range []string{licenses, paras} {
		for _, emit := range []string{"pairs", "clusters"} {
			args := []string{"dedup", "-q", "-f", "jsonl", "--emit", emit, in}
			want := mustRun(t, "", args...).stdout
			if strings.Count(want, "\n") < 10 {
				t.Fatalf("%q: %d lines", args, strings.Count(want, "\n"))
			}
			if emit == "pairs" && in == paras {
				// Pairs the tables do not find, beyond k = 3 bits.
				far := 0
				for _, o := range jsonLines(t, want, "a", "b", "distance", "similarity", "exact") {
					if d, _ := o["distance"].(json.Number).Int64(); d > 3 {
						far++
					}
				}
				if far == 0 {
					t.Errorf("%q: no pair beyond 3 bits", args)
				}
			}
			for _, n := range []string{"1", "1000000"} {
				if got := mustRun(t, "", append(args, "--expected-docs", n)...).stdout; got != want {
					t.Errorf("%q with --expected-docs %s: %d lines, %d with the design for the input's size", args, n, strings.Count(got, "\n"), strings.Count(want, "\n"))
				}
			}
		}
	}
	// An index named with --db keeps the default design, or the one asked
	// for.
	dir := t.TempDir()
	for _, tc := range []struct {
		flags []string
		want  string
	}{{nil, `"expected_docs":1000000,`}, {[]string{"--expected-docs", "5000"}, `"expected_docs":5000,`}} {
		db := filepath.Join(dir, fmt.Sprintf("kept%d.db", len(tc.flags)))
		mustRun(t, "", append([]string{"dedup", "-q", "--db", db, paras}, tc.flags...)...)
		if r := mustRun(t, "", "stats", "--db", db, "-f", "jsonl"); !strings.Contains(r.stdout, tc.want) {
			t.Errorf("dedup --db %s %q: stats %s, want %s", db, tc.flags, r.stdout, tc.want)
		}
	}
}

func TestDedupStdin(t *testing.T) {
	in := `{"id": "a", "text": "the quick brown fox jumps over the lazy dog near the river bank"}
{"id": "b", "text": "The quick brown fox jumps over the lazy dog near the river bank!"}
{"id": "c", "text": "an entirely different sentence about databases and indexes"}
`
	r := runBinary(t, in, "dedup", "-q", "-f", "jsonl", "-")
	want := `{"cluster":0,"representative":"a","ids":["a","b"],"keep":"a","members":[{"id":"a","keep":true},{"id":"b","keep":false,"distance":0,"similarity":1,"exact":true}]}` + "\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("dedup from stdin: %v", r)
	}
}

// TestDedupCores checks that the clusters come out the same, in the same
// order, whatever the number of cores that make their records.
func TestDedupCores(t *testing.T) {
	for _, format := range []string{"table", "jsonl"} {
		var outs []string
		for _, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			r := mustRun(t, "", "dedup", "-q", "--format", format, "--linkage", "single", licenses)
			runtime.GOMAXPROCS(old)
			outs = append(outs, r.stdout)
		}
		if outs[0] != outs[1] || strings.Count(outs[0], "\n") < 10 {
			t.Errorf("%s: %d lines on one core, %d on four; differ: %v", format, strings.Count(outs[0], "\n"), strings.Count(outs[1], "\n"), outs[0] != outs[1])
		}
	}
}

// TestScanLine checks the progress line of dedup's scan for pairs.
func TestScanLine(t *testing.T) {
	for _, c := range []struct {
		p    *index.ScanProgress
		want string
	}{
		{nil, "finding pairs, 3s"},
		{&index.ScanProgress{Tables: 4, Bands: 34}, "finding pairs: tables 0 of 4, bands 0 of 34, 3s"},
		{&index.ScanProgress{TablesDone: 4, Tables: 4, BandsDone: 12, Bands: 34}, "finding pairs: tables 4 of 4, bands 12 of 34, 3s"},
		{&index.ScanProgress{TablesDone: 2, Tables: 4}, "finding pairs: tables 2 of 4, 3s"},
		{&index.ScanProgress{BandsDone: 5, Bands: 14}, "finding pairs: bands 5 of 14, 3s"},
	} {
		if got := scanLine(c.p, 3200*time.Millisecond); got != c.want {
			t.Errorf("scanLine(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}
