package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testServeResults are the results of a run with a baseline: each kind of
// row, a row that only the current server has, a failed request and
// every total.
func testServeResults() *serveResults {
	return &serveResults{
		Command:  "cd bench && go run . serve -n 20000 -texts 2000 -phases query,add -baseline 76290bd -json /tmp/s.json",
		Baseline: &serveRev{Rev: "76290bd", Commit: "76290bd0000000000000000000000000000000aa"},
		Machine:  "Test CPU, 2 cores (GOMAXPROCS 2), go1.26",
		Index:    "22000 documents (20000 precomputed fingerprints, 2000 texts of 30-80 words), default settings, with the MinHash layer, 9.5 MB, built in 1.0s",
		Server:   "simidx serve, the baseline's and the current, ...",
		Load:     "4 clients (keep-alive, a minimal HTTP/1.1 client each), ...",
		Wrk:      "not installed (apt-get install wrk): the wrk phases are skipped",
		Sides: []*serveSideResult{
			{Name: "baseline", Build: "cmd/simidx of the simidx repository at 76290bd (commit 76290bd0000000000000000000000000000000aa)",
				Rows: []serveRow{
					{Phase: "query", Op: "query", Requests: 1000, ReqPerSec: 500, DocsPerSec: 500, P50: 1, P99: 4, Max: 10, ServerP50: "1ms", ServerP99: "5ms"},
					{Phase: "add", Op: "add", Requests: 900, ReqPerSec: 450, DocsPerSec: 450, P50: 2, P99: 8, Max: 20, ServerP50: "2.5ms", ServerP99: "10ms", Errors: 1, FirstError: "status 503: busy | try again"},
					{Phase: "add", Op: "index", Requests: 900, DocsPerSec: 450, Pending: 12},
				},
				Total: serveTotals{Commits: 100, CommitDocs: 9, CommitMs: 2, Applies: 4, ApplyDocs: 225, ApplyMs: 30, DocsBefore: 22000, DocsEnd: 22899}},
			{Name: "current", Build: "cmd/simidx of the working tree at commit 812e721",
				Rows: []serveRow{
					{Phase: "query", Op: "query", Requests: 1250, ReqPerSec: 625, DocsPerSec: 625, P50: 0.8, P99: 5, Max: 8, ServerP50: "0.5ms", ServerP99: "5ms"},
					{Phase: "add", Op: "add", Requests: 1000, ReqPerSec: 500, DocsPerSec: 500, P50: 1, P99: 4, Max: 10, ServerP50: "1ms", ServerP99: "5ms"},
					{Phase: "add", Op: "lag", Requests: 1000, P50: 0.1, P99: 0.5, Max: 1},
					{Phase: "add", Op: "index", Requests: 1000, DocsPerSec: 500},
				},
				Total: serveTotals{Commits: 200, CommitDocs: 5, CommitMs: 1, Applies: 2, ApplyDocs: 500, ApplyMs: 40, Pending: 3, LagMs: 7, DocsBefore: 22000, DocsEnd: 23000}},
		},
	}
}

func TestServeResultsRoundTrip(t *testing.T) {
	res := testServeResults()
	path := filepath.Join(t.TempDir(), "s.json")
	if err := writeServeJSON(path, res); err != nil {
		t.Fatal(err)
	}
	got, err := readServeResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, res) {
		t.Errorf("read back:\n%+v\nwrote:\n%+v", got, res)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"command": "cd bench && go run . serve -n 20000`, `"rev": "76290bd"`, `"p50_ms": 0.8`, `"server_p50": "2.5ms"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the JSON lacks %s:\n%s", want, b)
		}
	}
	for _, bad := range []string{
		`{"sides": [{"name": "current"}]}`,                                   // no command
		`{"command": "x", "sides": []}`,                                      // no server
		`{"command": "x", "sides": [{"name": "current"}, {"name": "b"}]}`,    // two, no baseline
		`{"command": "x", "sides": [{"name": "current"}], "surprise": true}`, // not these results
		`not json`,
	} {
		if _, err := parseServeResults([]byte(bad)); err == nil {
			t.Errorf("parseServeResults(%s): no error", bad)
		}
	}
}

func TestServeSection(t *testing.T) {
	res := testServeResults()
	var b strings.Builder
	writeServeSection(&b, res)
	md := b.String()
	for _, want := range []string{
		"### simidx serve under load\n\n" + serveResultsIntro + "\n\n```\n" + res.Command + "\n```\n\n- baseline: cmd/simidx of the simidx repository at 76290bd",
		"\n- current: cmd/simidx of the working tree at commit 812e721\n- machine: Test CPU",
		"\n- wrk: not installed",
		serveCompareLegend,
		"| phase | op | build | requests | req/s | docs/s | p50 | p99 | max | server p50 | server p99 | errors | pending |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
			"| query | query | baseline | 1000 | 500 | 500 | 1.00ms | 4.00ms | 10.00ms | <=1ms | <=5ms | 0 |  |\n" +
			"| query | query | current | 1250 | 625 | 625 | 0.80ms | 5.00ms | 8.00ms | <=0.5ms | <=5ms | 0 |  |\n" +
			"| query | query | *cur/base* |  | 1.25x | 1.25x | 0.80x | 1.25x | 0.80x |  |  |  |  |\n" +
			"| add | add | baseline | 900 | 450 | 450 | 2.00ms | 8.00ms | 20.00ms | <=2.5ms | <=10ms | 1 |  |\n" +
			"| add | add | current | 1000 | 500 | 500 | 1.00ms | 4.00ms | 10.00ms | <=1ms | <=5ms | 0 |  |\n" +
			"| add | add | *cur/base* |  | 1.11x | 1.11x | 0.50x | 0.50x | 0.50x |  |  |  |  |\n" +
			"| add | index | baseline | 900 |  | 450 |  |  |  |  |  |  | 12 |\n" +
			"| add | index | current | 1000 |  | 500 |  |  |  |  |  |  | 0 |\n" +
			"| add | index | *cur/base* |  |  | 1.11x |  |  |  |  |  |  |  |\n" +
			"| add | lag | current | 1000 |  |  | 0.10ms | 0.50ms | 1.00ms |  |  |  |  |\n\n" +
			"- first error of baseline, phase add, op add: `status 503: busy | try again`\n\n",
		"| whole run | baseline | current | cur/base |\n|---|---|---|---|\n| group commits (journal append + fdatasync) | 100 | 200 | 2.00x |\n",
		"| pending at the end | 0 | 3 |  |\n",
		"| documents added | 899 | 1000 | 1.11x |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks\n%s\nin\n%s", want, md)
		}
	}

	// As docs/benchmarks.md holds it: the section, found by its heading,
	// gives back the results, and the results the same section.
	doc := "## Speed\n\ntext\n\n" + md + "## Simhash feature choices\n\nmore\n"
	section, ok := serveSection(doc)
	if !ok || section != md {
		t.Fatalf("serveSection = %v,\n%s\nwant\n%s", ok, section, md)
	}
	got, err := embeddedServeResults(section)
	if err != nil || !reflect.DeepEqual(got, res) {
		t.Fatalf("embeddedServeResults = %+v, %v; want %+v", got, err, res)
	}
	// Without results, the section is the note.
	if n, err := embeddedServeResults(serveNote); n != nil || err != nil {
		t.Errorf("embeddedServeResults(serveNote) = %v, %v", n, err)
	}
	b.Reset()
	writeServeSection(&b, nil)
	if b.String() != serveNote+"\n" {
		t.Errorf("the section without results is not the note:\n%s", b.String())
	}

	// One server: no build column, no ratios, no legend of the
	// comparison.
	one := testServeResults()
	one.Baseline, one.Sides = nil, one.Sides[1:]
	one.Command, one.Server = "cd bench && go run . serve -json /tmp/s.json", "simidx serve, separate process on loopback, ..."
	b.Reset()
	writeServeSection(&b, one)
	md = b.String()
	if strings.Contains(md, serveCompareLegend) || strings.Contains(md, "cur/base") || strings.Contains(md, "baseline") {
		t.Errorf("the section of one server speaks of a baseline:\n%s", md)
	}
	for _, want := range []string{
		"| phase | op | requests |",
		"| query | query | 1250 | 625 | 625 | 0.80ms | 5.00ms | 8.00ms | <=0.5ms | <=5ms | 0 |  |\n",
		"| whole run | current |\n|---|---|\n| group commits (journal append + fdatasync) | 200 |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section of one server lacks\n%s\nin\n%s", want, md)
		}
	}
}

// TestServeCompareText checks the terminal's table of two servers.
func TestServeCompareText(t *testing.T) {
	res := testServeResults()
	var b bytes.Buffer
	compareHeader(&b)
	printCompareLines(&b, [][]serveRow{res.Sides[0].Rows[:2], res.Sides[1].Rows[:2]})
	printCompareTotals(&b, []serveTotals{res.Sides[0].Total, res.Sides[1].Total})
	want := `PHASE  OP     BUILD     REQUESTS     REQ/S    DOCS/S       P50       P99       MAX   SRV P50   SRV P99 ERRORS  PENDING
query  query  baseline      1000       500       500    1.00ms    4.00ms   10.00ms     <=1ms     <=5ms      0
query  query  current       1250       625       625    0.80ms    5.00ms    8.00ms   <=0.5ms     <=5ms      0
query  query  cur/base               1.25x     1.25x     0.80x     1.25x     0.80x
add    add    baseline       900       450       450    2.00ms    8.00ms   20.00ms   <=2.5ms    <=10ms      1
       first add error: status 503: busy | try again
add    add    current       1000       500       500    1.00ms    4.00ms   10.00ms     <=1ms     <=5ms      0
add    add    cur/base               1.11x     1.11x     0.50x     0.50x     0.50x

WHOLE RUN                                        BASELINE      CURRENT  CUR/BASE
group commits (journal append + fdatasync)            100          200     2.00x
`
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("got\n%s\nwant it to begin with\n%s", b.String(), want)
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"-n", "1000", "-keep", "/tmp/a b.simidx", "-phases", "query,add", "it's"})
	if want := `-n 1000 -keep '/tmp/a b.simidx' -phases query,add 'it'\''s'`; got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}
