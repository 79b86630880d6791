package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// serveResults is what one run of the serve subcommand measured, as its
// -json writes it and as all --serve-results reads it into
// docs/benchmarks.md.
type serveResults struct {
	// Command is the command line that produced the results.
	Command string `json:"command"`
	// Baseline is the revision given to -baseline, when one was.
	Baseline *serveRev `json:"baseline,omitempty"`
	Machine  string    `json:"machine"`
	Index    string    `json:"index"`  // the index served, and how it was made
	Server   string    `json:"server"` // how the servers ran
	Load     string    `json:"load"`   // the clients and the phases
	// Wrk says how wrk ran, or that it was not installed; empty with
	// -wrk=false.
	Wrk string `json:"wrk,omitempty"`
	// Sides are the servers measured: the current one alone, or the
	// baseline and then the current.
	Sides []*serveSideResult `json:"sides"`
}

// serveRev is the baseline revision.
type serveRev struct {
	Rev    string `json:"rev"`    // as given to -baseline
	Commit string `json:"commit"` // the commit it names
}

// serveSideResult is what one server measured.
type serveSideResult struct {
	Name  string      `json:"name"`  // "baseline" or "current"
	Build string      `json:"build"` // where its binary came from
	Rows  []serveRow  `json:"rows"`
	Total serveTotals `json:"total"`
}

// serveRow is one row of the load test's report.
type serveRow struct {
	// Phase is query, add or mixed for the Go clients, wrk for wrk.
	Phase string `json:"phase"`
	// Op is query or add for requests, lag for how late the clients sent
	// behind their schedule (with -rate), index for the documents
	// committed to the index during the phase.
	Op string `json:"op"`
	// Requests is the count of requests; of the documents committed, in
	// an index row.
	Requests   int64   `json:"requests"`
	ReqPerSec  float64 `json:"req_per_sec,omitempty"`
	DocsPerSec float64 `json:"docs_per_sec,omitempty"`
	P50        float64 `json:"p50_ms,omitempty"`
	P99        float64 `json:"p99_ms,omitempty"`
	Max        float64 `json:"max_ms,omitempty"`
	// ServerP50 and ServerP99 are the upper bounds of the buckets of the
	// server's histograms that hold the quantiles ("2.5ms", "inf").
	ServerP50 string `json:"server_p50,omitempty"`
	ServerP99 string `json:"server_p99,omitempty"`
	// Errors are the failed requests (wrk: the answers not 2xx or 3xx).
	Errors     int64  `json:"errors,omitempty"`
	FirstError string `json:"first_error,omitempty"`
	// Pending is what the index had still to commit at the end of the
	// phase, in an index row.
	Pending float64 `json:"pending,omitempty"`
}

// serveTotals is a server's own view of the whole run, from /metrics and
// /healthz at its end.
type serveTotals struct {
	Commits    float64 `json:"group_commits"`
	CommitDocs float64 `json:"group_commit_docs"` // on average
	CommitMs   float64 `json:"group_commit_ms"`   // on average
	Applies    float64 `json:"index_commits"`
	ApplyDocs  float64 `json:"index_commit_docs"` // on average
	ApplyMs    float64 `json:"index_commit_ms"`   // on average
	Pending    float64 `json:"pending"`           // at the end
	LagMs      float64 `json:"pending_oldest_ms"` // at the end
	DocsBefore int     `json:"docs_before"`
	DocsEnd    int     `json:"docs_end"`
}

func (r serveRow) key() string { return r.Phase + "/" + r.Op }

// writeServeJSON writes res to path.
func writeServeJSON(path string, res *serveResults) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the command's && as it is
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// readServeResults reads the results that serve -json wrote.
func readServeResults(path string) (*serveResults, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	res, err := parseServeResults(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

func parseServeResults(b []byte) (*serveResults, error) {
	var res serveResults
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("not the results of bench serve -json: %w", err)
	}
	switch {
	case res.Command == "":
		return nil, errors.New("the results do not say the command that produced them")
	case len(res.Sides) == 0 || len(res.Sides) > 2:
		return nil, fmt.Errorf("%d servers measured, want 1 or 2", len(res.Sides))
	case len(res.Sides) == 2 && (res.Baseline == nil || res.Sides[0].Name != "baseline"):
		return nil, errors.New("two servers measured, but the first is not a baseline")
	}
	return &res, nil
}

// serveLine is one line of the table of the phases: a server's row, or
// the ratio of the current server's row to the baseline's.
type serveLine struct {
	build string // "baseline", "current", "cur/base", or "" with one server
	cells []string
}

// serveColumns are the columns of the table of the phases after phase, op
// and build.
var serveColumns = []string{"requests", "req/s", "docs/s", "p50", "p99", "max", "server p50", "server p99", "errors", "pending"}

// cells returns the row's cells under serveColumns, empty where the row's
// kind has no such figure.
func (r serveRow) cells() []string {
	c := make([]string, len(serveColumns))
	c[0] = fmt.Sprint(r.Requests)
	switch r.Op {
	case "index":
		c[2] = fmt.Sprintf("%.0f", r.DocsPerSec)
		c[9] = fmt.Sprintf("%.0f", r.Pending)
		return c
	case "lag":
		c[3], c[4], c[5] = msf(r.P50), msf(r.P99), msf(r.Max)
		return c
	}
	c[1] = fmt.Sprintf("%.0f", r.ReqPerSec)
	c[3], c[4] = msf(r.P50), msf(r.P99)
	c[8] = fmt.Sprint(r.Errors)
	if r.Phase != "wrk" {
		c[2] = fmt.Sprintf("%.0f", r.DocsPerSec)
		c[5] = msf(r.Max)
	}
	if r.ServerP50 != "" {
		c[6], c[7] = "<="+r.ServerP50, "<="+r.ServerP99
	}
	return c
}

// ratioCells returns the current row's figures over the baseline's, for
// the rates and the latencies both rows have.
func ratioCells(base, cur serveRow) []string {
	bc, cc := base.cells(), cur.cells()
	vals := func(r serveRow) []float64 {
		return []float64{0, r.ReqPerSec, r.DocsPerSec, r.P50, r.P99, r.Max}
	}
	bv, cv := vals(base), vals(cur)
	c := make([]string, len(serveColumns))
	for i := 1; i < len(bv); i++ {
		if bc[i] != "" && cc[i] != "" && bv[i] > 0 {
			c[i] = fmt.Sprintf("%.2fx", cv[i]/bv[i])
		}
	}
	return c
}

// phaseLines returns the lines of the table of the phases: with one
// server its rows; with two, each row of the baseline, the current
// server's row of the same phase and op, and their ratio.
func phaseLines(sides [][]serveRow) []serveLine {
	var out []serveLine
	if len(sides) == 1 {
		for _, r := range sides[0] {
			out = append(out, serveLine{cells: append([]string{r.Phase, r.Op}, r.cells()...)})
		}
		return out
	}
	base, cur := sides[0], sides[1]
	used := make([]bool, len(cur))
	line := func(build string, r serveRow, cells []string) serveLine {
		return serveLine{build: build, cells: append([]string{r.Phase, r.Op}, cells...)}
	}
	for _, b := range base {
		out = append(out, line("baseline", b, b.cells()))
		for j, c := range cur {
			if !used[j] && c.key() == b.key() {
				used[j] = true
				out = append(out, line("current", c, c.cells()), line("cur/base", c, ratioCells(b, c)))
				break
			}
		}
	}
	for j, c := range cur {
		if !used[j] {
			out = append(out, line("current", c, c.cells()))
		}
	}
	return out
}

// totalLines returns the lines of the table of the whole run: a label and
// each server's figure, and with two servers their ratio.
func totalLines(ts []serveTotals) [][]string {
	type fig struct {
		label  string
		val    func(t serveTotals) float64
		format string
	}
	figs := []fig{
		{"group commits (journal append + fdatasync)", func(t serveTotals) float64 { return t.Commits }, "%.0f"},
		{"documents per group commit, on average", func(t serveTotals) float64 { return t.CommitDocs }, "%.1f"},
		{"ms per group commit, on average", func(t serveTotals) float64 { return t.CommitMs }, "%.2f"},
		{"index commits of the journal", func(t serveTotals) float64 { return t.Applies }, "%.0f"},
		{"documents per index commit, on average", func(t serveTotals) float64 { return t.ApplyDocs }, "%.0f"},
		{"ms per index commit, on average", func(t serveTotals) float64 { return t.ApplyMs }, "%.1f"},
		{"pending at the end", func(t serveTotals) float64 { return t.Pending }, "%.0f"},
		{"oldest pending at the end, ms", func(t serveTotals) float64 { return t.LagMs }, "%.0f"},
		{"documents before", func(t serveTotals) float64 { return float64(t.DocsBefore) }, "%.0f"},
		{"documents at the end", func(t serveTotals) float64 { return float64(t.DocsEnd) }, "%.0f"},
		{"documents added", func(t serveTotals) float64 { return float64(t.DocsEnd - t.DocsBefore) }, "%.0f"},
	}
	var out [][]string
	for _, f := range figs {
		row := []string{f.label}
		for _, t := range ts {
			row = append(row, fmt.Sprintf(f.format, f.val(t)))
		}
		if len(ts) == 2 {
			ratio := ""
			if b := f.val(ts[0]); b > 0 {
				ratio = fmt.Sprintf("%.2fx", f.val(ts[1])/b)
			}
			row = append(row, ratio)
		}
		out = append(out, row)
	}
	return out
}

// compareHeader is the head of the terminal's table of the phases when
// two servers are compared.
func compareHeader(w io.Writer) {
	cols := append([]string{"PHASE", "OP", "BUILD"}, serveColumns...)
	for i := range cols {
		cols[i] = strings.ToUpper(cols[i])
	}
	cols[9], cols[10] = "SRV P50", "SRV P99"
	printCompareCells(w, cols)
}

// compareWidths are the widths of the columns of the terminal's table of
// the phases when two servers are compared; the first three are left
// aligned.
var compareWidths = []int{6, 6, 8, 9, 9, 9, 9, 9, 9, 9, 9, 6, 8}

func printCompareCells(w io.Writer, cells []string) {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i < 3 {
			fmt.Fprintf(&b, "%-*s", compareWidths[i], c)
		} else {
			fmt.Fprintf(&b, "%*s", compareWidths[i], c)
		}
	}
	fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
}

// printCompareLines prints lines of the table of the phases in the
// terminal, with the first error of each failed row after it.
func printCompareLines(w io.Writer, sides [][]serveRow) {
	errs := map[string]string{}
	for i, rows := range sides {
		for _, r := range rows {
			if r.FirstError != "" {
				errs[[]string{"baseline", "current"}[i]+"/"+r.key()] = r.FirstError
			}
		}
	}
	for _, l := range phaseLines(sides) {
		printCompareCells(w, append([]string{l.cells[0], l.cells[1], l.build}, l.cells[2:]...))
		if e := errs[l.build+"/"+l.cells[0]+"/"+l.cells[1]]; e != "" {
			fmt.Fprintf(w, "       first %s error: %v\n", l.cells[1], e)
		}
	}
}

// printCompareTotals prints the table of the whole run in the terminal.
func printCompareTotals(w io.Writer, ts []serveTotals) {
	fmt.Fprintf(w, "\n%-44s %12s %12s %9s\n", "WHOLE RUN", "BASELINE", "CURRENT", "CUR/BASE")
	for _, row := range totalLines(ts) {
		fmt.Fprintf(w, "%-44s %12s %12s %9s\n", row[0], row[1], row[2], row[3])
	}
}

// serveResultsIntro opens the section of docs/benchmarks.md that holds
// the results of the load test.
const serveResultsIntro = `The load test of the HTTP server is not part of this run: it keeps every core busy for
minutes, so it is run on its own, with nothing else on the machine, and ` + "`all --serve-results FILE`" + `
copies here the results that its ` + "`-json FILE`" + ` wrote. It starts ` + "`simidx serve`" + ` on a
loopback port and measures queries, durable adds and a mix of both from concurrent clients
(and with wrk, when it is installed), each phase beside the server's own latencies and the
index's commits of the same run; [docs/server.md](server.md#load-test) says what it measures,
its flags, and what its figures depend on. ` + "`cd bench && go run . fsync -busy 3`" + ` measures
the fdatasync of an append, alone and beside three busy threads, which bounds the durable adds.`

// serveCompareLegend explains the table of a run with a baseline.
const serveCompareLegend = `Two servers ran side by side, the baseline's and the current one, each a process of its own
on its own copy of the same index; each phase ran on the baseline's server and then on the
current one before the next phase began, so that the drift of the machine falls on both.
*cur/base* is the current server's figure over the baseline's: above 1 is more throughput,
or a longer latency.`

// serveTableLegend explains the columns of the table of the phases.
const serveTableLegend = `Latencies are the clients' (the wrk rows: wrk's). *server p50* and *server p99* are the upper
bounds of the buckets of the server's own histograms that hold them, from reading a request to
writing its answer, and have no ratio. The *index* rows count the documents that the
background commits moved from the journal into the index during the phase, with those still
pending at its end; the *lag* rows, with ` + "`-rate`" + `, how late the clients sent behind their
schedule.`

// serveResultsMarker opens the copy of the results that follows their
// section, in an HTML comment, from which the section can be generated
// again (TestServeSectionInDocs).
const serveResultsMarker = "<!-- serve-results: "

// writeServeSection writes the section of docs/benchmarks.md on the load
// test of simidx serve: res, or without results the note on how to run it.
func writeServeSection(w io.Writer, res *serveResults) {
	if res == nil {
		fmt.Fprint(w, serveNote+"\n")
		return
	}
	fmt.Fprint(w, "### simidx serve under load\n\n")
	fmt.Fprint(w, serveResultsIntro+"\n\n")
	fmt.Fprintf(w, "```\n%s\n```\n\n", res.Command)
	two := len(res.Sides) == 2
	for _, s := range res.Sides {
		fmt.Fprintf(w, "- %s: %s\n", s.Name, s.Build)
	}
	fmt.Fprintf(w, "- machine: %s\n", res.Machine)
	fmt.Fprintf(w, "- index: %s\n", res.Index)
	fmt.Fprintf(w, "- server: %s\n", res.Server)
	fmt.Fprintf(w, "- load: %s\n", res.Load)
	if res.Wrk != "" {
		fmt.Fprintf(w, "- wrk: %s\n", res.Wrk)
	}
	fmt.Fprintln(w)
	if two {
		fmt.Fprint(w, serveCompareLegend+"\n\n")
	}
	fmt.Fprint(w, serveTableLegend+"\n\n")

	sides := make([][]serveRow, len(res.Sides))
	for i, s := range res.Sides {
		sides[i] = s.Rows
	}
	head := []string{"phase", "op"}
	if two {
		head = append(head, "build")
	}
	head = append(head, serveColumns...)
	mdRow(w, head)
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, l := range phaseLines(sides) {
		cells := l.cells
		if two {
			build := l.build
			if build == "cur/base" {
				build = "*cur/base*"
			}
			cells = append([]string{l.cells[0], l.cells[1], build}, l.cells[2:]...)
		}
		mdRow(w, cells)
	}
	fmt.Fprintln(w)
	var errs []string
	for _, s := range res.Sides {
		for _, r := range s.Rows {
			if r.FirstError != "" {
				errs = append(errs, fmt.Sprintf("- first error of %s, phase %s, op %s: `%s`", s.Name, r.Phase, r.Op, strings.ReplaceAll(r.FirstError, "`", "'")))
			}
		}
	}
	if len(errs) > 0 {
		fmt.Fprintln(w, strings.Join(errs, "\n"))
		fmt.Fprintln(w)
	}

	totals := make([]serveTotals, len(res.Sides))
	head = []string{"whole run"}
	for i, s := range res.Sides {
		totals[i] = s.Total
		head = append(head, s.Name)
	}
	if two {
		head = append(head, "cur/base")
	}
	mdRow(w, head)
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, row := range totalLines(totals) {
		mdRow(w, row)
	}
	fmt.Fprintln(w)
	b, _ := json.Marshal(res) // escapes < and >, so no --> ends the comment early
	fmt.Fprintf(w, "%s%s -->\n\n", serveResultsMarker, b)
}

// embeddedServeResults returns the results copied after the section of
// the load test in a docs/benchmarks.md, or nil when it holds none.
func embeddedServeResults(section string) (*serveResults, error) {
	_, rest, ok := strings.Cut(section, serveResultsMarker)
	if !ok {
		return nil, nil
	}
	js, _, ok := strings.Cut(rest, " -->")
	if !ok {
		return nil, errors.New("the copy of the serve results is not closed")
	}
	return parseServeResults([]byte(js))
}

func mdRow(w io.Writer, cells []string) {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(esc, " | "))
}

// msf formats milliseconds as ms does a duration.
func msf(v float64) string { return fmt.Sprintf("%.2fms", v) }
