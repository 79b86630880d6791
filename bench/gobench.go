package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

func init() { commands["gobench"] = goBenchMain }

// goBench is a go test -bench command of the simidx module whose results
// the report gives: every row of it in the same run, each beside the
// first row of its command when Compare is set.
type goBench struct {
	Title   string
	What    string // what the rows measure: {N} is the number of fingerprints, {TEXTS} of texts
	Pkg     string // package pattern, "./..." for benchmarks whose package may move
	Bench   string // the -bench regexp
	Time    string // the -benchtime, "" for go test's default
	Sized   bool   // the corpus sizes SIMIDX_BENCH_N and SIMIDX_BENCH_TEXTS apply
	Compare bool   // the rows are variants of one operation: give each its ratio to the first
	Slow    bool   // left out of quick runs
}

// goBenches are the Go benchmarks of the report, in its order.
var goBenches = []goBench{
	{Title: "QueryFingerprint: the table level", Pkg: "./index", Bench: "BenchmarkQueryFingerprint$", Sized: true, Compare: true,
		What: "`QueryFingerprint` against {N} random fingerprints, half the queries near a stored one: every entry in the tables bucket (`bucket`), and the last eighth added online in commits of 1,000, so that its entries are in the in-memory table level (`level`)."},
	{Title: "Query of texts: the band filter", Pkg: "./index", Bench: "BenchmarkQueryText$", Sized: true, Compare: true,
		What: "`Query` of a new text of 30 to 80 words against {N} precomputed fingerprints and {TEXTS} texts: with the MinHash layer, with it and the band filter (`Options.BandFilter`, as `simidx serve` opens an index), the same with the levels merged at every commit, and without the layer."},
	{Title: "Query of edited copies: the levels and the table mirror", Pkg: "./index", Bench: "BenchmarkQueryEdited$", Sized: true, Compare: true,
		What: "`Query` as the server's load test asks it: {TEXTS} texts added online in commits of 1,000 to {N} fingerprints, with the band filter, half the queries copies of stored texts with two words replaced: the texts in the in-memory levels (`level`), merged into the buckets at every commit (`bucket`), and in the levels with the copy of the tables in memory (`level+mirror`, `Options.TableMirror`)."},
	{Title: "Exact copies in the table level", Pkg: "./index", Bench: "BenchmarkQueryCopies$", Compare: true,
		What: "`QueryFingerprint` of a fingerprint that 20,000 documents added online share (exact copies, as boilerplate pages are): their entries in the tables bucket, and in the in-memory table level."},
	{Title: "A commit of 1,000 texts", Pkg: "./index", Bench: `BenchmarkAddText/minhash\+filter$`, Sized: true, Time: "40x",
		What: "One commit of 1,000 new texts of 30 to 80 words, not synced, to the file of an index of {N} fingerprints and {TEXTS} texts with the band filter, by `Add` with `LogOptions.Direct` (as the applier of the log commits); ns/op is per commit."},
	{Title: "Durable adds from many goroutines", Pkg: "./index", Bench: "BenchmarkAddConcurrent$", Time: "4000x", Compare: true,
		What: "8 and 64 goroutines calling `Add` with one text of 30 to 60 words each time, every call durable when it returns: with `LogOptions.Direct` (one synced bbolt transaction per call, the first rows) and through the write-ahead log (group commits); docs/s is durable documents per second."},
	{Title: "Synced commits through a merge of the levels", Pkg: "./index", Bench: "BenchmarkAddTextMerge$", Sized: true, Time: "1x", Slow: true,
		What: "Synced commits of 1,000 texts to an index of {N} fingerprints and {TEXTS} texts until a merge of the in-memory levels has started and run all its slices, one per commit: the mean commit (time/op), the median and the slowest (a slice of the merge)."},
	{Title: "The checksum of a record", Pkg: "./index", Bench: "BenchmarkRecordChecksum$",
		What: "The check of a document record's CRC-32C that every read of a record makes (schema 6), for a text record of the default settings (MinHash K 84, 14 bands): a query reads one per candidate."},
	{Title: "The posting of a band hash in its group", Pkg: "./index", Bench: "BenchmarkBandGroupPosting$", Compare: true,
		What: "The lookup of a band hash's posting in the value of its band group, as a query makes it for each of its bands after the seek: in a group of 16 entries (the expected size of the groups of schema 13 and 14, `16`) and of 64 (schema 15, `64`), most postings of one document and one in eight of three; MB/s is the group's bytes."},
	{Title: "The analysis of a text", Pkg: "./index", Bench: "BenchmarkAnalyze$",
		What: "The analysis of a text of 30 to 80 words with the default settings, as a query or an add makes it: tokens, simhash fingerprint, exact key, MinHash signature and band hashes."},
	{Title: "The query handler", Pkg: "./...", Bench: "BenchmarkServeQuery$",
		What: "`POST /v1/query` through the server's handler without the network: the request's parsing, the query on an index of 20,000 texts, the answer and the metrics; half the queries are edited copies of stored texts."},
	{Title: "The reading of an add body", Pkg: "./...", Bench: "BenchmarkParseDocs$",
		What: "The reading of a `POST /v1/documents` body: its JSON, the checks of each document and the analysis of its text, for one document of 30 to 80 words (`1`) and for 100 (`100`)."},
	{Title: "Clusters of short texts", Pkg: "./index", Bench: "BenchmarkClustersShort$", Sized: true, Time: "5x",
		What: "What `simidx dedup` does after its load, on {TEXTS} texts of 8 to 20 words drawn from the licence texts, a third of them originals and the others copies with a word replaced: `Clusters` with center linkage (`clusters`), and each cluster's members compared with its center by ID (`compare/ids`, `CompareAll`) and by `Member` (`compare/members`, `CompareMembers`); MB/s is millions of documents, or of members, a second."},
	{Title: "Queries over pending adds", Pkg: "./index", Bench: "BenchmarkQueryPending$",
		What: "`Query` of a text against an index of 2,000 texts in the file and 1,000 added through the log and not yet applied to it, half the queries edited copies of pending texts: the file's answer merged with the pending level's."},
}

// goBenchSizes are the corpus sizes of the index benchmarks: those of a
// full run (the benchmarks' defaults) or of a quick one.
func goBenchSizes(quick bool) (n, texts int, env []string) {
	if quick {
		return 10_000, 1_000, []string{"SIMIDX_BENCH_N=10000", "SIMIDX_BENCH_TEXTS=1000"}
	}
	return 100_000, 10_000, nil
}

// goBenchRow is one benchmark's result, the median of its runs by time.
type goBenchRow struct {
	Pkg     string
	Name    string  // without the GOMAXPROCS suffix
	NsOp    float64 // ns/op
	BOp     float64 // B/op, -1 if not reported
	Allocs  float64 // allocs/op, -1 if not reported
	Metrics []string
}

// goBenchResult is what one goBench gave.
type goBenchResult struct {
	Spec    goBench
	Command string
	Rows    []goBenchRow
}

// goBenchCommand is the command line of one run of spec.
func goBenchCommand(spec goBench, quick bool) []string {
	args := []string{"go", "test", spec.Pkg, "-run", "^$", "-bench", spec.Bench, "-benchmem"}
	t := spec.Time
	if quick && t == "" {
		t = "10x"
	}
	if t != "" {
		args = append(args, "-benchtime", t)
	}
	return args
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// simidxRoot returns the directory of the simidx module.
func simidxRoot() (string, error) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/simidx/simidx").Output()
	if err != nil {
		return "", fmt.Errorf("locating the simidx module: %w", err)
	}
	return strings.TrimSpace(string(root)), nil
}

// runGoBenches runs every goBench (not the slow ones in a quick run) in
// the root module, its command count times in turn, so that the rows of
// one command alternate (go test -count would run each row's runs one
// after the other, and a drift of the machine's speed between them would
// show in the ratios). It returns the benchmarks that gave rows and the
// titles of those that matched no benchmark.
func runGoBenches(count int, quick bool, logw io.Writer) (res []goBenchResult, missing []string, err error) {
	root, err := simidxRoot()
	if err != nil {
		return nil, nil, err
	}
	_, _, env := goBenchSizes(quick)
	for _, spec := range goBenches {
		if quick && spec.Slow {
			continue
		}
		args := goBenchCommand(spec, quick)
		var all []byte
		for range count {
			fmt.Fprintf(logw, "bench: %s\n", strings.Join(args, " "))
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				return nil, nil, fmt.Errorf("gobench: %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			all = append(all, out...)
		}
		rows, err := parseGoBench(bytes.NewReader(all))
		if err != nil {
			return nil, nil, fmt.Errorf("gobench: %s: %w", strings.Join(args, " "), err)
		}
		if len(rows) == 0 {
			missing = append(missing, spec.Title)
			continue
		}
		var quoted []string
		if spec.Sized {
			quoted = append(quoted, env...)
		}
		for _, a := range args {
			quoted = append(quoted, shellQuote(a))
		}
		res = append(res, goBenchResult{Spec: spec, Command: strings.Join(quoted, " "), Rows: rows})
	}
	return res, missing, nil
}

// parseGoBench reads the output of go test -bench: for each benchmark, in
// the order of its first run, the run with the median time per operation.
func parseGoBench(r io.Reader) ([]goBenchRow, error) {
	var order []string
	runs := map[string][]goBenchRow{}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		row := goBenchRow{Pkg: pkg, Name: trimProcs(f[0]), NsOp: -1, BOp: -1, Allocs: -1}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("bad value %q in %q", f[i], line)
			}
			switch unit := f[i+1]; unit {
			case "ns/op":
				row.NsOp = v
			case "B/op":
				row.BOp = v
			case "allocs/op":
				row.Allocs = v
			default:
				row.Metrics = append(row.Metrics, f[i]+" "+unit)
			}
		}
		if row.NsOp < 0 {
			return nil, fmt.Errorf("no ns/op in %q", line)
		}
		key := row.Pkg + " " + row.Name
		if _, ok := runs[key]; !ok {
			order = append(order, key)
		}
		runs[key] = append(runs[key], row)
	}
	var rows []goBenchRow
	for _, key := range order {
		rs := runs[key]
		slices.SortStableFunc(rs, func(a, b goBenchRow) int {
			switch {
			case a.NsOp < b.NsOp:
				return -1
			case a.NsOp > b.NsOp:
				return 1
			}
			return 0
		})
		rows = append(rows, rs[len(rs)/2])
	}
	return rows, sc.Err()
}

// trimProcs removes the GOMAXPROCS suffix (-2) of a benchmark's name.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

// writeGoBenches writes the section of the report.
func writeGoBenches(w io.Writer, res []goBenchResult, count int, quick bool) {
	if len(res) == 0 {
		return
	}
	n, texts, _ := goBenchSizes(quick)
	fmt.Fprintln(w, "### Go benchmarks of the index and the server")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "The Go benchmarks of the packages, each command run %d times in turn (so that the rows of one command alternate) and each row the median of its runs by time. Where the rows of a command are variants of one operation, the ratio is each row's time over the first row's, measured in the same runs. The index benchmarks build their corpora of random fingerprints and of texts drawn from the licences of `testdata`; `SIMIDX_BENCH_N` and `SIMIDX_BENCH_TEXTS` set other sizes (for example an index of a million fingerprints).\n\n", count)
	for _, x := range res {
		what := strings.NewReplacer("{N}", thousands(n), "{TEXTS}", thousands(texts)).Replace(x.Spec.What)
		fmt.Fprintf(w, "**%s.** %s\n\n", x.Spec.Title, what)
		fmt.Fprintf(w, "```\n%s\n```\n\n", x.Command)
		fmt.Fprintln(w, "| benchmark | time/op | ratio to the first row | other figures | bytes/op | allocs/op |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|")
		for _, row := range x.Rows {
			ratio := "-"
			if x.Spec.Compare && x.Rows[0].NsOp > 0 {
				ratio = fmt.Sprintf("%.2fx", row.NsOp/x.Rows[0].NsOp)
			}
			other := strings.Join(row.Metrics, ", ")
			if other == "" {
				other = "-"
			}
			b, a := "-", "-"
			if row.BOp >= 0 {
				b = formatBytes(int64(row.BOp))
			}
			if row.Allocs >= 0 {
				a = strconv.FormatFloat(row.Allocs, 'f', -1, 64)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", row.Name, nsOp(row.NsOp), ratio, other, b, a)
		}
		fmt.Fprintln(w)
	}
}

// nsOp formats a time per operation given in nanoseconds.
func nsOp(ns float64) string {
	if ns < 1000 {
		return fmt.Sprintf("%.1f ns", ns)
	}
	return dur(time.Duration(ns))
}

// thousands writes n with thousands separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// goBenchMain is the gobench subcommand: the Go benchmarks of the report
// alone, its section written to standard output.
func goBenchMain(args []string) error {
	fs := flag.NewFlagSet("gobench", flag.ExitOnError)
	count := fs.Int("count", 3, "runs of each command (1 with -quick)")
	quick := fs.Bool("quick", false, "small corpora, short runs, the slow benchmarks left out")
	fs.Parse(args)
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "count" })
	if *quick && !set {
		*count = 1
	}
	res, missing, err := runGoBenches(*count, *quick, os.Stderr)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "bench: no benchmark matched for: %s\n", strings.Join(missing, "; "))
	}
	writeGoBenches(os.Stdout, res, *count, *quick)
	return nil
}
