package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/simidx/simidx/internal/report"
)

// reportData is the data of a report as its script reads it.
type reportData struct {
	Sim      bool `json:"sim"`
	Texts    bool `json:"texts"`
	Clusters []struct {
		N int `json:"n"`
		M []struct {
			ID         string   `json:"i"`
			Distance   *int     `json:"d"`
			Similarity *float64 `json:"s"`
			Exact      *bool    `json:"x"`
			Bytes      *int64   `json:"b"`
			Text       *int     `json:"t"`
			Cut        bool     `json:"c"`
			Why        int      `json:"w"`
			Passages   [][5]int `json:"p"`
		} `json:"m"`
	} `json:"clusters"`
}

// readReport reads the report at path: its HTML, its data and its texts.
func readReport(t *testing.T, path string) (string, reportData, []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	var d reportData
	m := regexp.MustCompile(`(?s)<script type="application/json" id="simidx-data">(.*?)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("%s has no data element", path)
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	var texts []string
	var raw []json.RawMessage
	for _, m := range regexp.MustCompile(`(?s)<script type="application/json" id="simidx-texts-(\d+)">(.*?)</script>`).FindAllStringSubmatch(html, -1) {
		var chunk []json.RawMessage
		if err := json.Unmarshal([]byte(m[2]), &chunk); err != nil {
			t.Fatalf("the texts element %s: %v", m[1], err)
		}
		if m[1] != fmt.Sprint(len(raw)/1000) {
			t.Fatalf("the texts element %s after %d texts", m[1], len(raw))
		}
		raw = append(raw, chunk...)
	}
	texts = joinTexts(t, raw)
	return html, d, texts
}

// TestDedupReportLicenses checks the report of the sample corpus against
// dedup's own clusters: every cluster and every member, with its figures
// and its text as read, the clusters largest first, and the summary.
func TestDedupReportLicenses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	r := mustRun(t, "", "dedup", "--report", path, "--keep", "longest", licenses)
	want := mustRun(t, "", "dedup", "--format", "jsonl", "--keep", "longest", licenses)
	// The clusters and their members, as dedup writes them (17 and 43
	// with center linkage, the default).
	wantClusters, wantMembers := 0, 0
	for _, line := range jsonLines(t, want.stdout, "cluster", "representative", "ids", "keep", "members") {
		wantClusters++
		wantMembers += len(line["members"].([]any))
	}
	if wantClusters < 10 {
		t.Fatalf("dedup of the licences: %d clusters", wantClusters)
	}
	if r.stdout != "" || !strings.Contains(r.stderr, fmt.Sprintf("simidx dedup: wrote %s: %d clusters, %d documents in them\n", path, wantClusters, wantMembers)) {
		t.Errorf("dedup --report: %v", r)
	}
	html, d, texts := readReport(t, path)
	if !d.Sim || !d.Texts {
		t.Errorf("sim %v, texts %v", d.Sim, d.Texts)
	}
	got := map[int]int{} // cluster number -> its index in the report
	for i, c := range d.Clusters {
		got[c.N] = i
		if i > 0 && len(c.M) > len(d.Clusters[i-1].M) {
			t.Errorf("cluster %d (%d members) after a smaller one", c.N, len(c.M))
		}
	}
	members := 0
	for _, line := range jsonLines(t, want.stdout, "cluster", "representative", "ids", "keep", "members") {
		n64, _ := line["cluster"].(json.Number).Int64()
		n := int(n64)
		i, ok := got[n]
		if !ok {
			t.Errorf("cluster %d is not in the report", n)
			continue
		}
		rc := d.Clusters[i]
		wms := line["members"].([]any)
		if len(rc.M) != len(wms) {
			t.Errorf("cluster %d: %d members, want %d", n, len(rc.M), len(wms))
			continue
		}
		for j, wm := range wms {
			wm := wm.(map[string]any)
			m := rc.M[j]
			members++
			if m.ID != wm["id"] {
				t.Errorf("cluster %d member %d: %q, want %q", n, j, m.ID, wm["id"])
			}
			if j > 0 && (fmt.Sprint(*m.Distance) != fmt.Sprint(wm["distance"]) || fmt.Sprint(*m.Similarity) != fmt.Sprint(wm["similarity"]) || *m.Exact != wm["exact"]) {
				t.Errorf("cluster %d member %s: %v %v %v, want %v", n, m.ID, *m.Distance, *m.Similarity, *m.Exact, wm)
			}
			file := readTestdata(t, m.ID)
			if m.Text == nil || texts[*m.Text] != file || m.Cut || *m.Bytes != int64(len(file)) {
				t.Errorf("cluster %d member %s: the text is not the file's (%d bytes)", n, m.ID, len(file))
			}
			if j > 0 && len(m.Passages) == 0 {
				t.Errorf("cluster %d member %s: no passage shared with the kept one", n, m.ID)
			}
			// Every member's ID is in the page's data.
			if !strings.Contains(html, `"i":"`+m.ID+`"`) {
				t.Errorf("%s is not in the report", m.ID)
			}
		}
	}
	// The members that repeat passages of their kept member refer to
	// them, and read whole above.
	if n := strings.Count(html, `{"k":`); n < 10 {
		t.Errorf("%d texts refer to the kept one's, want most of the %d dropped", n, wantMembers-wantClusters)
	}
	if members != wantMembers || len(d.Clusters) != wantClusters {
		t.Errorf("%d members in %d clusters, want %d in %d", members, len(d.Clusters), wantMembers, wantClusters)
	}
	for _, want := range []string{"<code>simidx dedup --report " + path + " --keep longest ../../testdata/licenses</code>",
		`<span class="value">68</span>`, "longest: the longest text read", "Pairs by similarity"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".r.html.tmp-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestDedupReportHostile checks that IDs and texts that are markup reach
// the report as data: none of it is in the file as it is, and the data
// gives it back whole.
func TestDedupReportHostile(t *testing.T) {
	dir := t.TempDir()
	base := strings.Repeat("the same long sentence about near duplicates and what they share ", 4)
	evil := []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(2)>`, `</script><script>alert(3)</script>`}
	var lines []string
	for i, e := range evil {
		b, _ := json.Marshal(map[string]string{"id": e, "text": base + e + fmt.Sprint(" copy ", i)})
		lines = append(lines, string(b))
	}
	writeFiles(t, dir, map[string]string{"in.jsonl": strings.Join(lines, "\n") + "\n"})
	path := filepath.Join(dir, "r.html")
	mustRun(t, "", "dedup", "--report", path, "--input", "jsonl", filepath.Join(dir, "in.jsonl"))
	html, d, texts := readReport(t, path)
	for _, bad := range []string{"<script>alert", "<img", "onerror=alert(2)>"} {
		if strings.Contains(html, bad) {
			t.Errorf("the report holds %q as it is", bad)
		}
	}
	if n := strings.Count(html, "<script"); n != 3 {
		t.Errorf("%d script elements, want the page's 3", n)
	}
	if len(d.Clusters) != 1 || len(d.Clusters[0].M) != 3 {
		t.Fatalf("clusters: %+v", d.Clusters)
	}
	for _, m := range d.Clusters[0].M {
		i := -1
		for j, e := range evil {
			if m.ID == e {
				i = j
			}
		}
		if i < 0 || m.Text == nil || texts[*m.Text] != base+evil[i]+fmt.Sprint(" copy ", i) {
			t.Errorf("member %q: text %v", m.ID, m.Text)
		}
	}
}

// TestDedupReportIndex checks a report of an index alone: its clusters,
// without texts, and the usage errors of --report.
func TestDedupReportIndex(t *testing.T) {
	db := buildIndex(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	mustRun(t, "", "dedup", "--db", db, "--report", path, "-q")
	want := mustRun(t, "", "dedup", "--db", db, "--format", "jsonl")
	html, d, texts := readReport(t, path)
	if n := strings.Count(want.stdout, "\n"); d.Texts || texts != nil || len(d.Clusters) != n || n == 0 {
		t.Errorf("texts %v (%d), %d clusters", d.Texts, len(texts), len(d.Clusters))
	}
	if !strings.Contains(html, "none: an index keeps no texts; give the INPUT to see them") {
		t.Error("the report does not say why it has no texts")
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--emit", "keep"}, "--report writes the clusters as HTML to its FILE and nothing on standard output, so --emit does not go with it"},
		{[]string{"--pairs"}, "so --pairs does not go with it"},
		{[]string{"--format", "jsonl"}, "so --format does not go with it"},
		{[]string{"--output", filepath.Join(dir, "o")}, "so --output does not go with it"},
	} {
		args := append([]string{"dedup", "--db", db, "--report", path}, tc.args...)
		if r := simidx(t, "", args...); r.code != exitUsage || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("dedup %v: %v", tc.args, r)
		}
	}
	for _, tc := range []struct {
		report, msg string
	}{
		{"-", "--report takes the name of the HTML file to write, not -"},
		{db, "writing the report there would destroy the index"},
		{dir, "is a directory"},
	} {
		if r := simidx(t, "", "dedup", "--db", db, "--report", tc.report); r.code != exitUsage || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("dedup --report %s: %v", tc.report, r)
		}
	}
	// A report that cannot be written leaves nothing.
	missing := filepath.Join(dir, "no", "such", "r.html")
	if r := simidx(t, "", "dedup", "--db", db, "--report", missing); r.code == 0 || !strings.Contains(r.stderr, "cannot write the report") {
		t.Errorf("dedup --report %s: %v", missing, r)
	}
}

// joinTexts decodes the texts of a report (report.DecodeTexts), failing t on a
// malformed one; nil for none.
func joinTexts(t *testing.T, raw []json.RawMessage) []string {
	t.Helper()
	if len(raw) == 0 {
		return nil
	}
	texts, err := report.DecodeTexts(raw)
	if err != nil {
		t.Fatal(err)
	}
	return texts
}
