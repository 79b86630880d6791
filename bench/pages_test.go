package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// The browser tests drive a real headless Chromium over the reports that
// the simidx command writes and the page that simidx serve answers. They
// skip, saying so, when no Chromium is installed.

var simidxOnce struct {
	sync.Once
	dir, bin, root string
	err            error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if simidxOnce.dir != "" {
		os.RemoveAll(simidxOnce.dir)
	}
	os.Exit(code)
}

// testSimidx returns the simidx command, built once for the tests, and the
// root of its module.
func testSimidx(t *testing.T) (bin, root string) {
	t.Helper()
	simidxOnce.Do(func() {
		if simidxOnce.root, simidxOnce.err = moduleRoot(); simidxOnce.err != nil {
			return
		}
		if simidxOnce.dir, simidxOnce.err = os.MkdirTemp("", "simidx-bench-test-"); simidxOnce.err != nil {
			return
		}
		simidxOnce.bin, simidxOnce.err = buildSimidxAt(simidxOnce.root, simidxOnce.dir)
	})
	if simidxOnce.err != nil {
		t.Fatal(simidxOnce.err)
	}
	return simidxOnce.bin, simidxOnce.root
}

// testBrowser starts a headless Chromium for the test, or skips the test
// when none is installed.
func testBrowser(t *testing.T) *browser {
	t.Helper()
	if chromiumPath() == "" {
		t.Skip("skipped: no Chromium is installed, and the browser tests need one (" + chromiumInstall + ")")
	}
	b, err := newBrowser(1280, 900)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.close)
	return b
}

// noProblems fails the test if the tab's pages wrote errors to the console
// or opened dialogs.
func noProblems(t *testing.T, tb *tab) {
	t.Helper()
	if err := pageProblems(tb); err != nil {
		t.Error(err)
	}
}

// reportMembers reads the clusters of a report's data: the IDs of each,
// the kept one first, and their least similarity to it.
func reportMembers(t *testing.T, path string) (ids [][]string, least []float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="simidx-data">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no data", path)
	}
	var d struct {
		Clusters []struct {
			M []struct {
				I string   `json:"i"`
				S *float64 `json:"s"`
			} `json:"m"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Clusters {
		var cids []string
		l := 1.0
		for i, mb := range c.M {
			cids = append(cids, mb.I)
			if i > 0 && mb.S != nil {
				l = min(l, *mb.S)
			}
		}
		ids = append(ids, cids)
		least = append(least, l)
	}
	return ids, least
}

// TestReportInBrowser opens the report of testdata/licenses: it draws
// every cluster and every member, a diff opens with the texts read and
// the changes and shared passages marked, the filters and the search
// select the clusters they should, and nothing is written to the console.
func TestReportInBrowser(t *testing.T) {
	b := testBrowser(t)
	bin, root := testSimidx(t)
	path := filepath.Join(t.TempDir(), "licenses.html")
	run, err := writeReport(bin, path, filepath.Join(root, "testdata", "licenses"))
	if err != nil {
		t.Fatal(err)
	}
	ids, least := reportMembers(t, path)
	tb, o, err := openReport(b, path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.close()
	// The clusters of dedup's defaults (center linkage) on the licences.
	if o.Articles != 16 || run.Clusters != 16 || run.Members != 43 {
		t.Errorf("%d clusters drawn; the report has %d clusters of %d members, want 16 of 43", o.Articles, run.Clusters, run.Members)
	}
	all, err := evalIn[[]string](tb, `[...document.querySelectorAll("#list td.id")].map((td) => td.textContent)`)
	if err != nil {
		t.Fatal(err)
	}
	if want := slices.Concat(ids...); !slices.Equal(all, want) {
		t.Errorf("the members drawn:\n%q\nwant\n%q", all, want)
	}

	// Every member's text, as the page joins it, is its file.
	texts, err := evalIn[map[string]string](tb, `(() => {
		const out = {};
		for (const c of JSON.parse(document.getElementById("simidx-data").textContent).clusters)
			for (const m of c.m) out[m.i] = window.simidxReport.textAt(m.t);
		return out;
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range slices.Concat(ids...) {
		file, err := os.ReadFile(filepath.Join(root, "testdata", "licenses", id))
		if err != nil || texts[id] != string(file) {
			t.Errorf("the text of %s in the page is not its file (%d bytes, %d in the page): %v", id, len(file), len(texts[id]), err)
		}
	}

	d, err := openDiff(tb, "MIT.txt")
	if err != nil {
		t.Fatal(err)
	}
	kept, _ := os.ReadFile(filepath.Join(root, "testdata", "licenses", "JSON.txt"))
	mit, _ := os.ReadFile(filepath.Join(root, "testdata", "licenses", "MIT.txt"))
	if !d.Open || d.Kept != string(kept) || d.Member != string(mit) {
		t.Errorf("the diff of MIT.txt against JSON.txt: open %v, the texts shown are the files: %v, %v", d.Open, d.Kept == string(kept), d.Member == string(mit))
	}
	if d.Del == 0 || d.Ins == 0 || d.Shared == 0 {
		t.Errorf("the diff marks %d runs removed, %d added and %d shared; want some of each", d.Del, d.Ins, d.Shared)
	}

	for _, tc := range []struct {
		least  float64
		size   int
		search string
	}{{0.9, 2, ""}, {0, 5, ""}, {0, 2, "mit"}, {0.8, 3, "cc-by"}, {0.99, 2, "zzz"}, {0, 2, ""}} {
		f, err := setFilters(tb, tc.least, tc.size, tc.search)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i, c := range ids {
			found := tc.search == ""
			for _, id := range c {
				found = found || strings.Contains(strings.ToLower(id), tc.search)
			}
			if len(c) >= tc.size && least[i] >= tc.least && found {
				want = append(want, c...)
			}
		}
		if !slices.Equal(f.IDs, want) {
			t.Errorf("filters %+v: drawn %q, want %q (%s)", tc, f.IDs, want, f.Count)
		}
	}
	noProblems(t, tb)
}

// TestWordDiff checks the page's word diff against a longest common
// subsequence computed by dynamic programming, on random word sequences,
// and on a small case by hand.
func TestWordDiff(t *testing.T) {
	b := testBrowser(t)
	bin, root := testSimidx(t)
	path := filepath.Join(t.TempDir(), "licenses.html")
	if _, err := writeReport(bin, path, filepath.Join(root, "testdata", "licenses")); err != nil {
		t.Fatal(err)
	}
	tb, _, err := openReport(b, path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.close()
	got, err := evalIn[string](tb, `(() => {
		const d = window.simidxReport.wordDiff("a b c d".split(" "), "a x c d e".split(" "));
		return [...d.a].join("") + " " + [...d.b].join("") + " " + d.complete;
	})()`)
	if err != nil || got != "0100 01001 true" {
		t.Errorf("wordDiff(a b c d, a x c d e) = %q, %v; want 0100 01001 true", got, err)
	}
	// Random sequences over few words: the words left unmarked on both
	// sides are the same sequence, and as long as a longest common
	// subsequence.
	bad, err := evalIn[[]string](tb, `(() => {
		let seed = 7;
		const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
		const bad = [];
		for (let round = 0; round < 300; round++) {
			const a = Array.from({length: rnd(40)}, () => "w" + rnd(5));
			const b = a.map((w) => rnd(4) === 0 ? "w" + rnd(5) : w).filter(() => rnd(8) !== 0);
			if (rnd(3) === 0) b.splice(rnd(b.length + 1), 0, "w" + rnd(5), "w" + rnd(5));
			const d = window.simidxReport.wordDiff(a, b);
			const ka = a.filter((_, i) => !d.a[i]), kb = b.filter((_, i) => !d.b[i]);
			const L = Array.from({length: a.length + 1}, () => new Array(b.length + 1).fill(0));
			for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++)
				L[i][j] = a[i-1] === b[j-1] ? L[i-1][j-1] + 1 : Math.max(L[i-1][j], L[i][j-1]);
			if (ka.join(" ") !== kb.join(" ") || ka.length !== L[a.length][b.length] || !d.complete)
				bad.push(a.join(" ") + " | " + b.join(" ") + " -> " + ka.join(" ") + " | " + kb.join(" "));
		}
		return bad;
	})()`)
	if err != nil || len(bad) > 0 {
		t.Errorf("wordDiff is not a longest common subsequence: %v %q", err, bad)
	}
	noProblems(t, tb)
}

// hostileTexts are IDs and texts that would run script if a page put them
// in the document as markup.
var hostileTexts = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(2)>`,
	`</script><script>alert(3)</script>`,
}

// TestReportHostileInBrowser opens a report whose IDs and texts are markup
// that would run script: they show as text, no element comes of them, no
// dialog opens, and nothing is written to the console.
func TestReportHostileInBrowser(t *testing.T) {
	b := testBrowser(t)
	bin, _ := testSimidx(t)
	dir := t.TempDir()
	base := strings.Repeat("the same long sentence about near duplicates and what they share ", 4)
	var lines []string
	for i, h := range hostileTexts {
		line, _ := json.Marshal(map[string]string{"id": h, "text": base + h + fmt.Sprint(" copy ", i)})
		lines = append(lines, string(line))
	}
	corpus := filepath.Join(dir, "hostile.jsonl")
	if err := os.WriteFile(corpus, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hostile.html")
	if _, err := writeReport(bin, path, "--input", "jsonl", corpus); err != nil {
		t.Fatal(err)
	}
	tb, o, err := openReport(b, path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.close()
	if o.Articles != 1 {
		t.Fatalf("%d clusters drawn, want 1", o.Articles)
	}
	// Each member's diff shows its text and the kept one's, whose IDs are
	// in them, as text.
	rows, err := evalIn[[]string](tb, `[...document.querySelectorAll("#list tr")].slice(1).map((tr) => tr.querySelector("td.id").textContent)`)
	if err != nil || len(rows) != 3 {
		t.Fatalf("members drawn: %q, %v", rows, err)
	}
	for _, id := range rows[1:] {
		d, err := openDiff(tb, id)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Open || !strings.Contains(d.Kept, rows[0]) || !strings.Contains(d.Member, id) {
			t.Errorf("the diff of %q does not show the texts:\n%s\n%s", id, d.Kept, d.Member)
		}
	}
	got, err := evalIn[map[string]any](tb, `({
		images: document.images.length, scripts: document.scripts.length,
		ids: [...document.querySelectorAll("#list td.id")].map((td) => td.textContent).sort(),
		titles: document.querySelectorAll("[onerror]").length,
	})`)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(hostileTexts))
	if got["images"] != 0.0 || got["scripts"] != 3.0 || got["titles"] != 0.0 || fmt.Sprint(got["ids"]) != fmt.Sprint(want) {
		t.Errorf("the page: %v; want no image, the page's 3 scripts, no onerror and the IDs %q as text", got, want)
	}
	noProblems(t, tb)
}

// TestReportPages opens a report of more clusters than a page holds: the
// pages hold 50 clusters, the last the rest, and the pager says where.
func TestReportPages(t *testing.T) {
	b := testBrowser(t)
	bin, _ := testSimidx(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.jsonl")
	if _, err := writeClusterCorpus(corpus, 120); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.html")
	run, err := writeReport(bin, path, "--input", "jsonl", corpus)
	if err != nil || run.Clusters != 120 {
		t.Fatalf("%d clusters, %v; want 120", run.Clusters, err)
	}
	tb, o, err := openReport(b, path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.close()
	if o.Articles != 50 {
		t.Errorf("%d clusters on the first page, want 50", o.Articles)
	}
	for _, step := range []struct {
		button   string
		articles int
		where    string
	}{{"next page", 50, "page 2 of 3"}, {"last page", 20, "page 3 of 3"}, {"first page", 50, "page 1 of 3"}} {
		q, _ := json.Marshal(step.button)
		got, err := evalIn[map[string]any](tb, `((title) => {
			document.querySelector("#pager-top button[title='" + title + "']").click();
			return {articles: document.querySelectorAll("#list article").length,
				where: document.querySelector("#pager-top .where").textContent,
				count: document.getElementById("count").textContent};
		})(`+string(q)+`)`)
		if err != nil {
			t.Fatal(err)
		}
		if got["articles"] != float64(step.articles) || got["where"] != step.where {
			t.Errorf("%s: %v; want %d clusters, %q", step.button, got, step.articles, step.where)
		}
	}
	// Sizes: 4, 3 and 2 members, largest first.
	sizes, err := evalIn[[]int](tb, `[...document.querySelectorAll("#list article")].map((a) => a.querySelectorAll("tbody tr").length)`)
	if err != nil || !slices.IsSortedFunc(sizes, func(a, b int) int { return b - a }) || sizes[0] != 4 {
		t.Errorf("cluster sizes on the first page: %v, %v", sizes, err)
	}
	noProblems(t, tb)
}

// TestServePageInBrowser checks the page of simidx serve: the index's
// figures, the matches of a text checked, the passages it shares with a
// text given, a stored document's neighbours, hostile IDs shown as text,
// and the write actions only with --page-writes.
func TestServePageInBrowser(t *testing.T) {
	b := testBrowser(t)
	bin, root := testSimidx(t)
	for _, writes := range []bool{false, true} {
		t.Run(fmt.Sprint("writes=", writes), func(t *testing.T) {
			var flags []string
			if writes {
				flags = append(flags, "--page-writes")
			}
			tb, s, err := servePageFlow(b, bin, root, t.TempDir(), flags...)
			if err != nil {
				t.Fatal(err)
			}
			defer s.stop()
			defer tb.close()
			got, err := evalIn[map[string]any](tb, `({
				index: document.getElementById("index-line").textContent,
				matches: [...document.querySelectorAll("#matches td.id")].map((td) => td.textContent),
				sims: [...document.querySelectorAll("#matches td.num[title]")].map((td) => td.textContent),
				shared: document.querySelectorAll("#comparison .shared").length,
				measures: document.querySelector("#comparison dl").textContent,
				add: document.getElementById("add-form") !== null,
			})`)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got["index"].(string), "licenses.db: 68 documents") || fmt.Sprint(got["matches"]) != "[MIT.txt JSON.txt X11.txt MIT-feh.txt MIT-0.txt]" ||
				len(got["sims"].([]any)) != 5 || got["shared"].(float64) < 2 || !strings.Contains(got["measures"].(string), "Jaccard") || got["add"] != writes {
				t.Errorf("the page: %v", got)
			}

			// A hostile document, added through the API: its ID shows as
			// text among the matches and the neighbours.
			evil := hostileTexts[1]
			text, _ := checkedText(root)
			body, _ := json.Marshal([]map[string]string{{"id": evil, "text": text + " " + hostileTexts[0]}})
			resp, err := http.Post(s.URL+"/v1/documents", "application/json", strings.NewReader(string(body)))
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("adding a hostile document: %v %v", resp, err)
			}
			resp.Body.Close()
			err = tb.do(chromedp.Click(chromedp.ID("query")),
				chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("#matches td.id")].some((td) => td.textContent === `+jsString(evil)+`)`),
				chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll("#matches td.id button")].find((b) => b.textContent === `+jsString(evil)+`).click()`),
				chromedp.Poll[chromedp.Void](`document.querySelector("#similar-results table") !== null`))
			if err != nil {
				t.Fatal(err)
			}
			n, err := evalIn[map[string]any](tb, `({
				title: document.querySelector("#similar-results h3").textContent,
				neighbours: [...document.querySelectorAll("#similar-results td.id")].map((td) => td.textContent),
				images: document.images.length, del: document.querySelector("#similar-results button.danger") !== null,
			})`)
			if err != nil {
				t.Fatal(err)
			}
			if n["title"] != "Near duplicates of "+evil || !slices.Contains(n["neighbours"].([]any), any("MIT.txt")) || n["images"] != 0.0 || n["del"] != writes {
				t.Errorf("the neighbours of %q: %v", evil, n)
			}
			noProblems(t, tb)
			if !writes {
				return
			}
			// The writes: add the checked text, then delete it, confirmed.
			tb.accept = true
			err = tb.do(chromedp.SetValue(chromedp.ID("add-id"), "added-by-page"),
				chromedp.Evaluate[chromedp.Void](`document.getElementById("add-unique").checked = false`),
				chromedp.Click(chromedp.ID("add")),
				chromedp.Poll[chromedp.Void](`document.getElementById("status").textContent.startsWith("Added added-by-page")`),
				chromedp.Evaluate[chromedp.Void](`document.getElementById("doc-id").value = "added-by-page"`),
				chromedp.Click(chromedp.ID("similar")),
				// The neighbours of the new document, not those shown before.
				chromedp.Poll[chromedp.Void](`document.querySelector("#similar-results h3")?.textContent === "Near duplicates of added-by-page"`),
				chromedp.Click(chromedp.CSS("#similar-results button.danger")),
				chromedp.Poll[chromedp.Void](`document.getElementById("status").textContent === "Deleted added-by-page."`))
			if err != nil {
				t.Fatal(err)
			}
			errs, dialogs := tb.problems()
			if len(errs) > 0 || len(dialogs) != 1 || !strings.Contains(dialogs[0], "Delete added-by-page from the index?") {
				t.Errorf("errors %q, dialogs %q; want the one confirm of the delete", errs, dialogs)
			}
			if r, err := http.Get(s.URL + "/v1/documents/added-by-page"); err != nil || r.StatusCode != 404 {
				t.Errorf("the document deleted from the page: %v %v", r, err)
			}
		})
	}
}

// jsString returns s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// testPagesResults are the results of a run of pages.
func testPagesResults() *pagesResults {
	return &pagesResults{
		Command: "cd bench && go run . pages -json /tmp/p.json",
		Build:   "cmd/simidx of the working tree at commit 1234567",
		Machine: "Test CPU, 2 cores (GOMAXPROCS 2), go1.26",
		Browser: "HeadlessChrome/156.0.0.0",
		Rounds:  3,
		Reports: []pagesReport{
			{Corpus: "testdata/licenses", Docs: 68, Clusters: 14, Members: 45, FileBytes: 487_000, WriteMs: 300,
				ReadyMs: []float64{120, 100, 110}, LoadMs: []float64{100, 90, 95}, DiffMs: 3.5, FilterMs: 1.25, SearchMs: 0.5},
			{Corpus: "generated | 10,000", Detail: "ten thousand clusters", Docs: 32_000, Clusters: 10_000, Members: 30_000, FileBytes: 30_000_000, WriteMs: 9000,
				ReadyMs: []float64{900, 2100, 1000}, LoadMs: []float64{950, 1500, 1100}, DiffMs: 4, FilterMs: 12, SearchMs: 8},
		},
		Screenshots: []string{"report.png", "serve.png"},
	}
}

func TestPagesResults(t *testing.T) {
	res := testPagesResults()
	path := filepath.Join(t.TempDir(), "p.json")
	if err := writePagesJSON(path, res); err != nil {
		t.Fatal(err)
	}
	got, err := readPagesResults(path)
	if err != nil || !slices.Equal(got.Reports[1].ReadyMs, res.Reports[1].ReadyMs) || got.Command != res.Command {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	for _, bad := range []string{`{"reports": []}`, `{"command": "x", "reports": []}`, `{"command": "x", "reports": [{"ready_ms": [1]}]}`, `{"command": "x", "extra": 1}`} {
		if _, err := parsePagesResults([]byte(bad)); err == nil {
			t.Errorf("parsePagesResults(%s): no error", bad)
		}
	}

	var b strings.Builder
	writePagesSection(&b, res)
	md := b.String()
	for _, want := range []string{
		pagesHeading + "\n\n" + pagesIntro + "\n\n```\n" + res.Command + "\n```\n",
		"| testdata/licenses | 68 | 14 | 45 | 0.5 MB | 0.30 s | 110 ms / 120 ms | 95.0 ms / 100 ms | 3.5 ms | 1.2 ms | 0.5 ms |\n",
		"| generated \\| 10,000 | 32,000 | 10,000 | 30,000 | 30.0 MB | 9.00 s | 1000 ms / 2100 ms |",
		"\n- generated | 10,000: ten thousand clusters\n",
		"testdata/licenses: the slowest of 3 openings drew its first page in 120 ms and ended its load event in 100 ms, within the target of 2000 ms",
		"the slowest of 3 openings drew its first page in 2100 ms and ended its load event in 1500 ms, **not within** the target of 2000 ms",
		"![report](report.png)\n\n![serve](serve.png)\n\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks\n%s\nin\n%s", want, md)
		}
	}
	// The section gives back its results; without results it is the note.
	got, err = embeddedPagesResults(md)
	if err != nil || got.Reports[1].FileBytes != res.Reports[1].FileBytes {
		t.Errorf("embeddedPagesResults: %+v, %v", got, err)
	}
	b.Reset()
	writePagesSection(&b, nil)
	if b.String() != pagesNote+"\n" {
		t.Errorf("the section without results:\n%s", b.String())
	}

	// Put after the serve section, then replaced in place.
	doc := "## Speed\n\n### simidx serve under load\n\nserve\n\n## Simhash feature choices\n\nmore\n"
	out, err := replacePagesSection(doc, pagesNote+"\n")
	if err != nil || out != "## Speed\n\n### simidx serve under load\n\nserve\n\n"+pagesNote+"\n## Simhash feature choices\n\nmore\n" {
		t.Errorf("inserted:\n%s\n%v", out, err)
	}
	out2, err := replacePagesSection(out, md)
	if sec, _ := pagesSection(out2); err != nil || sec != md || !strings.HasSuffix(out2, "## Simhash feature choices\n\nmore\n") {
		t.Errorf("replaced:\n%s\n%v", out2, err)
	}
	if _, err := replacePagesSection("# nothing\n", md); err == nil {
		t.Error("replacePagesSection of a file without the sections: no error")
	}
}

// TestPagesSectionInDocs checks that docs/benchmarks.md holds the section
// on the pages that bench writes: generated from the results it holds, or
// the note on how to run them; and that the screenshots it shows are in
// docs/.
func TestPagesSectionInDocs(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, i := pagesSection(string(md))
	if i < 0 {
		t.Fatalf("docs/benchmarks.md has no section %q", pagesHeading)
	}
	res, err := embeddedPagesResults(section)
	if err != nil {
		t.Fatalf("docs/benchmarks.md: %v", err)
	}
	var want strings.Builder
	writePagesSection(&want, res)
	if section != want.String() {
		t.Errorf("the pages section of docs/benchmarks.md is not the one bench/ generates from the results it holds (go run . pages -md ../docs/benchmarks.md rewrites it); want:\n%s", want.String())
	}
	if res != nil {
		for _, s := range res.Screenshots {
			if _, err := os.Stat(filepath.Join("..", "docs", s)); err != nil {
				t.Errorf("the screenshot %s: %v", s, err)
			}
		}
	}
}
