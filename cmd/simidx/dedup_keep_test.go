package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// TestDedupTwoFolders checks that files of the same name in two INPUTs are
// two documents, named from the INPUT as given, and that a byte-identical
// copy is found and flagged as exact while an edited copy is not.
func TestDedupTwoFolders(t *testing.T) {
	dir := t.TempDir()
	mit := readTestdata(t, "MIT.txt")
	edited := strings.Replace(mit, "Permission", "Leave", 1)
	writeFiles(t, dir, map[string]string{
		"a/LICENSE":   mit,
		"b/LICENSE":   mit,
		"b/edited":    edited,
		"a/README":    "A readme about something else entirely, with words of its own.",
		"b/empty.txt": "",
		"a/dashes":    "--- ... ---\n",
	})
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	r := runBinary(t, "", "dedup", "--pairs", "--format", "jsonl", a, b+"/")
	if r.code != 0 {
		t.Fatalf("dedup: %v", r)
	}
	got := map[string]map[string]any{}
	for _, o := range jsonLines(t, r.stdout, "a", "b", "distance", "similarity", "exact") {
		got[o["a"].(string)+" "+o["b"].(string)] = o
	}
	la, lb, ed := a+"/LICENSE", b+"/LICENSE", b+"/edited"
	if p := got[la+" "+lb]; p == nil || p["exact"] != true || p["distance"].(json.Number).String() != "0" {
		t.Errorf("identical LICENSE files: %v in\n%s", p, r.stdout)
	}
	for _, k := range []string{la + " " + ed, lb + " " + ed} {
		if p := got[k]; p == nil || p["exact"] != false {
			t.Errorf("edited copy %s: %v", k, p)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d pairs, want 3 (the empty texts match nothing):\n%s", len(got), r.stdout)
	}
	for _, want := range []string{
		"indexed 6 documents", "; 1 exact duplicate;", "; 2 empty;",
		"simidx dedup: 2 documents have no words and match nothing: " + a + "/dashes, " + b + "/empty.txt\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr has no %q:\n%s", want, r.stderr)
		}
	}
}

// TestDedupRepeatedIDs checks that JSON lines that repeat an ID are kept
// apart, named and counted, on standard input and across files.
func TestDedupRepeatedIDs(t *testing.T) {
	dir := t.TempDir()
	text := "the same text posted twice by two sources, word for word, with nothing else"
	writeFiles(t, dir, map[string]string{
		"one.jsonl": `{"id":"x","text":"` + text + `"}` + "\n" + `{"id":"x","text":"` + text + `"}` + "\n",
		"two.jsonl": `{"id":"x","text":"` + text + `!"}` + "\n" + `{"id":"x#2","text":"another text, with nothing in common at all"}` + "\n",
	})
	r := runBinary(t, "", "dedup", "--emit", "keep", filepath.Join(dir, "one.jsonl"), filepath.Join(dir, "two.jsonl"))
	if r.code != 0 {
		t.Fatalf("dedup: %v", r)
	}
	for _, want := range []string{
		`one.jsonl:2: ID "x" is taken (read before, or given to an earlier repeat); this document is "x#2"`,
		`two.jsonl:1: ID "x" is taken (read before, or given to an earlier repeat); this document is "x#3"`,
		`two.jsonl:2: ID "x#2" is taken (read before, or given to an earlier repeat); this document is "x#2#2"`,
		"indexed 4 documents", "3 repeated IDs kept apart",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr has no %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "x\nx#2#2\n" {
		t.Errorf("kept:\n%s", r.stdout)
	}
	// The same from standard input.
	in, err := os.ReadFile(filepath.Join(dir, "one.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, string(in), "dedup", "--emit", "drop", "-")
	if r.code != 0 || r.stdout != "x#2\n" || !strings.Contains(r.stderr, `standard input:2: ID "x" is taken`) {
		t.Errorf("from standard input: %v", r)
	}
}

// TestDedupKeepEmit checks every --keep policy and every --emit: keep and
// drop list every document once, records writes the kept input lines
// byte for byte, in input order.
func TestDedupKeepEmit(t *testing.T) {
	mit := readTestdata(t, "MIT.txt")
	bsd := readTestdata(t, "BSD-3-Clause.txt")
	lines := []string{
		jsonLine(t, "m1", strings.Replace(mit, "Permission", "Leave", 1)) + "\r\n", // CRLF kept as read
		jsonLine(t, "m2", mit+" And one more sentence at the end of it.") + "\n",
		jsonLine(t, "solo", "A text of its own that nothing else resembles in any way at all.") + "\n",
		jsonLine(t, "b1", bsd) + "\n",
		jsonLine(t, "m3", mit) + "\n",
		jsonLine(t, "b0", bsd+"\n") + "\n",
		jsonLine(t, "empty", "...") + "\n",
		jsonLine(t, "last", "Another lone text, about trains, rivers and the price of bread."), // no final newline
	}
	in := strings.Join(lines, "")
	all := []string{"m1", "m2", "solo", "b1", "m3", "b0", "empty", "last"}
	for _, tc := range []struct {
		policy string
		drop   []string
	}{
		// In input order. m2 is the longest of the MIT texts, m1 the
		// shortest ("Leave" for "Permission"); b0 the longer BSD text.
		{"first", []string{"m2", "m3", "b0"}},
		{"last", []string{"m1", "m2", "b1"}},
		{"longest", []string{"m1", "b1", "m3"}},
		{"shortest", []string{"m2", "m3", "b0"}},
		{"id", []string{"m2", "b1", "m3"}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			keep := mustRun(t, in, "dedup", "-q", "--keep", tc.policy, "--emit", "keep", "-")
			drop := mustRun(t, in, "dedup", "-q", "--keep", tc.policy, "--emit", "drop", "-f", "jsonl", "-")
			var kept, dropped []string
			for l := range strings.Lines(keep.stdout) {
				kept = append(kept, strings.TrimSuffix(l, "\n"))
			}
			for _, o := range jsonLines(t, drop.stdout, "id") {
				dropped = append(dropped, o["id"].(string))
			}
			if !slices.Equal(dropped, tc.drop) {
				t.Errorf("dropped %v, want %v", dropped, tc.drop)
			}
			// Every document once, in input order.
			var want []string
			for _, id := range all {
				if !slices.Contains(tc.drop, id) {
					want = append(want, id)
				}
			}
			if !slices.Equal(kept, want) {
				t.Errorf("kept %v, want %v", kept, want)
			}
			rec := mustRun(t, in, "dedup", "-q", "--keep", tc.policy, "--emit", "records", "-")
			var wantRec strings.Builder
			for i, id := range all {
				if !slices.Contains(tc.drop, id) {
					l := lines[i]
					if !strings.HasSuffix(l, "\n") {
						l += "\n"
					}
					wantRec.WriteString(l)
				}
			}
			if rec.stdout != wantRec.String() {
				t.Errorf("records:\n%q\nwant\n%q", rec.stdout, wantRec.String())
			}
			// The clusters show the kept member first.
			cl := mustRun(t, in, "dedup", "-q", "--keep", tc.policy, "-f", "jsonl", "-")
			for _, o := range jsonLines(t, cl.stdout, "cluster", "representative", "ids", "keep", "members") {
				k := o["keep"].(string)
				if slices.Contains(tc.drop, k) || o["members"].([]any)[0].(map[string]any)["id"] != k {
					t.Errorf("cluster %v keeps %s", o["ids"], k)
				}
			}
		})
	}
	// Errors: what cannot be done is said before any work.
	db := buildIndex(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--keep", "biggest", "-"}, "--keep must be first, last, longest, shortest or id"},
		{[]string{"--emit", "all", "-"}, "--emit must be clusters, pairs, keep, drop or records"},
		{[]string{"--db", db, "--keep", "longest"}, "give the INPUT"},
		{[]string{"--db", db, "--emit", "records"}, "give the INPUT"},
		{[]string{"--pairs", "--emit", "keep", "-"}, "--pairs is --emit pairs"},
		{[]string{"--emit", "pairs", "--keep", "last", "-"}, "--emit pairs keeps nothing"},
	} {
		r := simidx(t, in, append([]string{"dedup", "-q"}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("dedup %q: want exit 2 and %q, got %v", tc.args, tc.msg, r)
		}
	}
	// Records need lines: a whole file has none.
	r := simidx(t, "", "dedup", "-q", "--emit", "records", testdataFile("MIT.txt"), testdataFile("X11.txt"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "--emit records writes input lines") {
		t.Errorf("records of files: %v", r)
	}
}

// TestDedupVerify checks that dedup --verify reports the exact Jaccard
// similarity of the shingle sets, computed here independently with
// internal/eval's exact join, and drops the pairs below the threshold.
func TestDedupVerify(t *testing.T) {
	dir := t.TempDir()
	entries, err := os.ReadDir(licenses)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var sets [][]uint64
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(licenses, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.Name())
		sets = append(sets, slices.Clone(f.Shingles(b)))
	}
	exact := map[string]float64{}
	if err := eval.Join(sets, 0.05, func(i, j int, jac float64) {
		a, b := min(ids[i], ids[j]), max(ids[i], ids[j])
		exact[a+" "+b] = jac
	}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "v.db")
	r := mustRun(t, "", "dedup", "-q", "--db", db, "--verify", "--pairs", "-f", "jsonl", licenses)
	n := 0
	for _, o := range jsonLines(t, r.stdout, "a", "b", "distance", "similarity", "exact") {
		k := o["a"].(string) + " " + o["b"].(string)
		sim, _ := o["similarity"].(json.Number).Float64()
		if want := math.Floor(exact[k]*1e4+1e-7) / 1e4; sim != want || exact[k] < index.DefaultMinSimilarity {
			t.Errorf("pair %s: similarity %v, exact %v", k, sim, exact[k])
		}
		n++
	}
	if n < 20 {
		t.Errorf("only %d verified pairs:\n%s", n, r.stdout)
	}
	// The estimate reports pairs below the threshold that --verify drops.
	est := mustRun(t, "", "dedup", "-q", "--db", db, "--pairs", "-f", "jsonl")
	below := 0
	for _, o := range jsonLines(t, est.stdout, "a", "b", "distance", "similarity", "exact") {
		if exact[o["a"].(string)+" "+o["b"].(string)] < index.DefaultMinSimilarity {
			below++
		}
	}
	if below == 0 {
		t.Errorf("no estimated pair is below the threshold: the test shows nothing")
	}
	t.Logf("%d verified pairs; the estimate reports %d pairs whose exact similarity is below %v", n, below, index.DefaultMinSimilarity)
	// An index made without the sets cannot verify.
	plain := buildIndex(t)
	if r := simidx(t, "", "dedup", "--db", plain, "--verify"); r.code != exitUsage || !strings.Contains(r.stderr, "--store-shingles") {
		t.Errorf("--verify without the sets: %v", r)
	}
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(testdataFile(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonLine(t *testing.T, id, text string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"id": id, "text": text})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDedupFailedLoad checks that dedup reports nothing when the index
// could not be written (here a file size limit): --emit records must not
// pass every line read as clean.
func TestDedupFailedLoad(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i := range 20000 {
		in.WriteString(jsonLine(t, strconv.Itoa(i), fmt.Sprintf("document %d has words of its own, %d and %d, and a few more", i, i*7, i*13)) + "\n")
		if i%10 == 0 { // and a copy
			in.WriteString(jsonLine(t, strconv.Itoa(i)+"-copy", fmt.Sprintf("document %d has words of its own, %d and %d, and a few more", i, i*7, i*13)) + "\n")
		}
	}
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file size limit of 4 MB, far below the index of these documents.
	cmd := exec.Command("sh", "-c", `ulimit -f 8192 && exec "$0" dedup -q --emit records "$1"`, simidxBin, path)
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil || stdout.Len() != 0 {
		t.Errorf("dedup with a failed index: %v, %d bytes written, stderr %s", err, stdout.Len(), stderr.String())
	}
}
