package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// pagesResults is what one run of the pages subcommand measured, as its
// -json writes it and as all --pages-results reads it into
// docs/benchmarks.md.
type pagesResults struct {
	Command string `json:"command"`
	Build   string `json:"build"` // where the simidx measured came from
	Machine string `json:"machine"`
	Browser string `json:"browser"`
	Rounds  int    `json:"rounds"`
	// Reports are the reports opened: testdata/licenses, then the
	// generated corpus.
	Reports []pagesReport `json:"reports"`
	// Screenshots are the files written into docs/.
	Screenshots []string `json:"screenshots,omitempty"`
}

// pagesReport is what one report measured. Times are milliseconds.
type pagesReport struct {
	Corpus    string `json:"corpus"`
	Detail    string `json:"detail,omitempty"` // what the corpus is, when not its name
	Docs      int    `json:"docs"`
	Clusters  int    `json:"clusters"`
	Members   int    `json:"members"` // documents in clusters
	FileBytes int64  `json:"file_bytes"`
	// WriteMs is the wall time of simidx dedup --report, the whole job.
	WriteMs float64 `json:"write_ms"`
	// ReadyMs and LoadMs are, for each opening, the time from the start of
	// the navigation to the first page of clusters drawn and painted, and
	// to the end of the load event.
	ReadyMs []float64 `json:"ready_ms"`
	LoadMs  []float64 `json:"load_ms"`
	// DiffMs, FilterMs and SearchMs are the times the page took to draw
	// a diff, the list filtered to least similarity 0.9, and the list of
	// a search by ID.
	DiffMs   float64 `json:"diff_ms"`
	FilterMs float64 `json:"filter_ms"`
	SearchMs float64 `json:"search_ms"`
}

// pagesTarget is the longest a report may take to open, in milliseconds.
const pagesTarget = 2000

// writePagesJSON writes res to path.
func writePagesJSON(path string, res *pagesResults) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// readPagesResults reads the results that pages -json wrote.
func readPagesResults(path string) (*pagesResults, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	res, err := parsePagesResults(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

func parsePagesResults(b []byte) (*pagesResults, error) {
	var res pagesResults
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("not the results of bench pages -json: %w", err)
	}
	switch {
	case res.Command == "":
		return nil, errors.New("the results do not say the command that produced them")
	case len(res.Reports) == 0:
		return nil, errors.New("no report measured")
	}
	for _, r := range res.Reports {
		if len(r.ReadyMs) == 0 || len(r.ReadyMs) != len(r.LoadMs) {
			return nil, fmt.Errorf("%s: %d ready and %d load times", r.Corpus, len(r.ReadyMs), len(r.LoadMs))
		}
	}
	return &res, nil
}

// pagesHeading is the heading of the section.
const pagesHeading = "### Reports and the serve page in a browser"

// pagesIntro opens the section of docs/benchmarks.md on the pages.
const pagesIntro = `The HTML report of ` + "`simidx dedup --report`" + ` and the page of ` + "`simidx serve`" + ` in a real
headless Chromium (Debian's ` + "`chromium`" + `, driven by chromedp from the bench module). This part
is not run by ` + "`all`" + `, which copies here the results that ` + "`pages -json FILE`" + ` wrote
(` + "`all --pages-results FILE`" + `); ` + "`pages -md ../docs/benchmarks.md`" + ` rewrites this section alone. The
subcommand builds simidx, writes the report of testdata/licenses and of a generated corpus, and
opens each report in a new tab, several times. *ready* is the time from the start of the
navigation (the page's ` + "`performance.timeOrigin`" + `) to the first page of clusters drawn and
painted: the page's script records ` + "`performance.now()`" + ` in a task queued after the next
animation frame that follows its first drawing. *load* is the end of the load event
(` + "`PerformanceNavigationTiming.loadEventEnd`" + `), when the whole file, its texts included, is
parsed. *diff*, *filter* and *search* are the times, in the page, of a click that draws the
word diff of a member (with the parsing of the chunk of 1,000 texts that holds its text,
the first time), of the list filtered to least similarity 0.9, and of a search by ID.
*write* is the wall time of ` + "`simidx dedup --report`" + `, the whole job: reading the corpus into a
temporary index, its clusters and pairs, the diffs' passages and the file.`

// pagesResultsMarker opens the copy of the results that follows the
// section, in an HTML comment, from which the section can be generated
// again (TestPagesSectionInDocs).
const pagesResultsMarker = "<!-- pages-results: "

// pagesNote is the section when all is given no results of pages.
const pagesNote = pagesHeading + `

Not part of this run: the reports and the page of ` + "`simidx serve`" + ` are measured in a headless
Chromium by

` + "```" + `
cd bench && go run . pages -json /tmp/pages.json -md ../docs/benchmarks.md
` + "```" + `

which opens the report of testdata/licenses and of a generated corpus of 10,000 clusters, times
their opening, writes the screenshots docs/report.png, docs/report-diff.png and docs/serve.png,
and rewrites this section; ` + "`all --pages-results /tmp/pages.json`" + ` copies its results here.
`

// writePagesSection writes the section of docs/benchmarks.md on the
// pages: res, or without results the note on how to run them.
func writePagesSection(w io.Writer, res *pagesResults) {
	if res == nil {
		fmt.Fprint(w, pagesNote+"\n")
		return
	}
	fmt.Fprint(w, pagesHeading+"\n\n")
	fmt.Fprint(w, pagesIntro+"\n\n")
	fmt.Fprintf(w, "```\n%s\n```\n\n", res.Command)
	fmt.Fprintf(w, "- simidx: %s\n", res.Build)
	fmt.Fprintf(w, "- machine: %s\n", res.Machine)
	fmt.Fprintf(w, "- browser: %s, headless, a window of 1280 × 900\n", res.Browser)
	fmt.Fprintf(w, "- openings: %d of each report, each in a new tab; the times are the median and the slowest\n\n", res.Rounds)
	head := []string{"corpus", "documents", "clusters", "in clusters", "file", "write", "ready (median / slowest)", "load (median / slowest)", "diff", "filter", "search"}
	mdRow(w, head)
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, r := range res.Reports {
		mdRow(w, []string{r.Corpus, thousands(r.Docs), thousands(r.Clusters), thousands(r.Members), fmt.Sprintf("%.1f MB", float64(r.FileBytes)/1e6),
			fmt.Sprintf("%.2f s", r.WriteMs/1e3), msShort(median(r.ReadyMs)) + " / " + msShort(maxOf(r.ReadyMs)), msShort(median(r.LoadMs)) + " / " + msShort(maxOf(r.LoadMs)),
			msShort(r.DiffMs), msShort(r.FilterMs), msShort(r.SearchMs)})
	}
	fmt.Fprintln(w)
	for _, r := range res.Reports {
		if r.Detail != "" {
			fmt.Fprintf(w, "- %s: %s\n", r.Corpus, r.Detail)
		}
	}
	var verdicts []string
	for _, r := range res.Reports {
		v := "within"
		if max(maxOf(r.ReadyMs), maxOf(r.LoadMs)) > pagesTarget {
			v = "**not within**"
		}
		verdicts = append(verdicts, fmt.Sprintf("%s: the slowest of %d openings drew its first page in %s and ended its load event in %s, %s the target of %s",
			r.Corpus, len(r.ReadyMs), msShort(maxOf(r.ReadyMs)), msShort(maxOf(r.LoadMs)), v, msShort(pagesTarget)))
	}
	fmt.Fprintf(w, "\nThe target: a report of 10,000 clusters opens in under 2 s on this machine. %s.\n\n", strings.Join(verdicts, "; "))
	for _, s := range res.Screenshots {
		fmt.Fprintf(w, "![%s](%s)\n\n", strings.TrimSuffix(s, ".png"), s)
	}
	b, _ := json.Marshal(res) // escapes < and >, so no --> ends the comment early
	fmt.Fprintf(w, "%s%s -->\n\n", pagesResultsMarker, b)
}

// embeddedPagesResults returns the results copied after the section, or
// nil when it holds none.
func embeddedPagesResults(section string) (*pagesResults, error) {
	_, rest, ok := strings.Cut(section, pagesResultsMarker)
	if !ok {
		return nil, nil
	}
	js, _, ok := strings.Cut(rest, " -->")
	if !ok {
		return nil, errors.New("the copy of the pages results is not closed")
	}
	return parsePagesResults([]byte(js))
}

// pagesSection returns the section of md on the pages, up to the next
// heading, and where it starts; -1 when md has none.
func pagesSection(md string) (string, int) {
	i := strings.Index(md, pagesHeading+"\n")
	if i < 0 {
		return "", -1
	}
	return md[i : i+sectionEnd(md[i:], len(pagesHeading)+1)], i
}

// sectionEnd returns the end of the section that s starts with: the start
// of the next line that is a heading of level 2 or 3, after from.
func sectionEnd(s string, from int) int {
	for j := from; j < len(s); {
		line, _, _ := strings.Cut(s[j:], "\n")
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ") {
			return j
		}
		j += len(line) + 1
	}
	return len(s)
}

// replacePagesSection returns md with its section on the pages replaced
// by section, or, when it has none, with section after the section on
// simidx serve under load, where all writes it.
func replacePagesSection(md, section string) (string, error) {
	if old, i := pagesSection(md); i >= 0 {
		return md[:i] + section + md[i+len(old):], nil
	}
	const serveHead = "### simidx serve under load\n"
	i := strings.Index(md, serveHead)
	if i < 0 {
		return "", errors.New("no section on the pages, nor on simidx serve under load to put it after")
	}
	end := i + sectionEnd(md[i:], len(serveHead))
	return md[:end] + section + md[end:], nil
}

// msShort formats milliseconds: 1234 ms, 12.3 ms.
func msShort(ms float64) string {
	if ms >= 100 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.1f ms", ms)
}

// median returns the median of v (the mean of the two middle values of an
// even count).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// maxOf returns the largest of v, 0 for none.
func maxOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return slices.Max(v)
}
