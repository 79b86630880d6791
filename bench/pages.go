package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

func init() { commands["pages"] = pagesMain }

// pagesConfig says what the pages subcommand measures.
type pagesConfig struct {
	Clusters int    // clusters of the generated corpus
	Rounds   int    // openings of each report
	Shots    string // directory of the screenshots, "" for none
	JSON     string // where to write the results, "" for none
	MD       string // a benchmarks.md whose section to rewrite, "" for none
	Command  string
}

func pagesMain(args []string) error {
	fs := flag.NewFlagSet("pages", flag.ExitOnError)
	c := pagesConfig{Command: "cd bench && go run . pages " + shellJoin(args)}
	fs.IntVar(&c.Clusters, "clusters", 10_000, "clusters of the generated corpus")
	fs.IntVar(&c.Rounds, "rounds", 5, "openings of each report, each in a new tab")
	fs.StringVar(&c.Shots, "shots", "../docs", "directory of the screenshots (report.png, report-diff.png, serve.png); empty for none")
	fs.StringVar(&c.JSON, "json", "", "write the results to `FILE`, for all --pages-results")
	fs.StringVar(&c.MD, "md", "", "rewrite the section of the results in `FILE` (a benchmarks.md written by all)")
	from := fs.String("from", "", "measure nothing: take the results that `FILE` (written by -json) holds, for -md")
	fs.Parse(args)
	if c.Clusters < 1 || c.Rounds < 1 {
		return errors.New("pages: -clusters and -rounds must be at least 1")
	}
	var res *pagesResults
	var err error
	if *from != "" {
		res, err = readPagesResults(*from)
	} else {
		res, err = runPages(c, os.Stderr)
	}
	if err != nil {
		return err
	}
	if c.JSON != "" {
		if err := writePagesJSON(c.JSON, res); err != nil {
			return err
		}
	}
	if c.MD != "" {
		md, err := os.ReadFile(c.MD)
		if err != nil {
			return err
		}
		var b strings.Builder
		writePagesSection(&b, res)
		out, err := replacePagesSection(string(md), b.String())
		if err != nil {
			return fmt.Errorf("%s: %w", c.MD, err)
		}
		if err := os.WriteFile(c.MD, []byte(out), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runPages builds simidx, writes the reports of testdata/licenses and of
// a generated corpus of c.Clusters clusters, opens each c.Rounds times in
// headless Chromium and times it, times a diff, a filter and a search in
// it, and takes the screenshots of the report and of the page of simidx
// serve.
func runPages(c pagesConfig, logw io.Writer) (*pagesResults, error) {
	dir, err := os.MkdirTemp("", "simidx-pages-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	bin, err := buildSimidxAt(root, dir)
	if err != nil {
		return nil, err
	}
	res := &pagesResults{Command: c.Command, Machine: machine(), Rounds: c.Rounds,
		Build: "cmd/simidx of the working tree" + treeState(root)}

	fmt.Fprintln(logw, "pages: the report of testdata/licenses")
	// Named as in the repository: dir/testdata is the repository's.
	if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		return nil, err
	}
	lic := filepath.Join(dir, "licenses.html")
	licRun, err := writeReport(bin, lic, "testdata/licenses")
	if err != nil {
		return nil, err
	}
	licRun.Corpus = "testdata/licenses"
	fmt.Fprintf(logw, "pages: a corpus of %d clusters\n", c.Clusters)
	corpus := filepath.Join(dir, "clusters.jsonl")
	docs, err := writeClusterCorpus(corpus, c.Clusters)
	if err != nil {
		return nil, err
	}
	big := filepath.Join(dir, "clusters.html")
	bigRun, err := writeReport(bin, big, "--input", "jsonl", filepath.Base(corpus))
	if err != nil {
		return nil, err
	}
	if bigRun.Clusters != c.Clusters || bigRun.Docs != docs {
		return nil, fmt.Errorf("the generated corpus made %d clusters of %d documents, want %d of %d", bigRun.Clusters, bigRun.Docs, c.Clusters, docs)
	}
	bigRun.Corpus = fmt.Sprintf("generated, %s clusters", thousands(c.Clusters))
	bigRun.Detail = fmt.Sprintf("%s clusters of 2 to 4 texts of 150 random words (a third of the clusters 2, 3 and 4 texts; copies with the same canonical text, their case and spacing changed, or with one word changed), and %s texts alone, in JSON lines, shuffled", thousands(c.Clusters), thousands(docs-bigRun.Members))

	b, err := newBrowser(1280, 900)
	if err != nil {
		return nil, err
	}
	defer b.close()
	res.Browser = b.Version + " (" + chromiumPath() + ")"
	for _, r := range []struct {
		run  *pagesReport
		path string
		diff string // a member whose diff to time
	}{{&licRun, lic, "MIT.txt"}, {&bigRun, big, ""}} {
		fmt.Fprintf(logw, "pages: opening %s %d times\n", r.run.Corpus, c.Rounds)
		for i := range c.Rounds {
			t, o, err := openReport(b, r.path)
			if err != nil {
				return nil, err
			}
			r.run.ReadyMs = append(r.run.ReadyMs, round1(o.Ready))
			r.run.LoadMs = append(r.run.LoadMs, round1(o.Load))
			if i == c.Rounds-1 {
				err = timeInteractions(t, r.run, r.diff)
			}
			if err == nil {
				err = pageProblems(t)
			}
			t.close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.run.Corpus, err)
			}
		}
		res.Reports = append(res.Reports, *r.run)
	}
	if c.Shots != "" {
		fmt.Fprintln(logw, "pages: screenshots")
		shots, err := reportShots(b, lic, c.Shots)
		if err != nil {
			return nil, err
		}
		res.Screenshots = append(res.Screenshots, shots...)
		shot, err := serveShot(b, bin, root, dir, c.Shots)
		if err != nil {
			return nil, err
		}
		res.Screenshots = append(res.Screenshots, shot)
	}
	for _, r := range res.Reports {
		fmt.Fprintf(logw, "pages: %s: %d clusters, %s bytes; ready %s ms, load %s ms (median, max of %d)\n",
			r.Corpus, r.Clusters, thousands(int(r.FileBytes)), msPair(r.ReadyMs), msPair(r.LoadMs), len(r.ReadyMs))
	}
	return res, nil
}

// moduleRoot returns the directory of the simidx module (../ through the
// replace of go.mod).
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/simidx/simidx").Output()
	if err != nil {
		return "", fmt.Errorf("locating the simidx module: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// buildSimidxAt builds cmd/simidx of the module at root into dir.
func buildSimidxAt(root, dir string) (string, error) {
	bin := filepath.Join(dir, "simidx")
	build := exec.Command("go", "build", "-o", bin, "./cmd/simidx")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/simidx: %v\n%s", err, out)
	}
	return bin, nil
}

// wroteReport is the line simidx dedup --report ends with.
var wroteReport = regexp.MustCompile(`wrote .*: (\d+) clusters, (\d+) documents in them`)

// writeReport runs simidx dedup --report out with args (the INPUT and
// its flags), in the directory of out, and returns what it wrote and how
// long it took.
func writeReport(bin, out string, args ...string) (pagesReport, error) {
	cmd := exec.Command(bin, append([]string{"dedup", "--report", filepath.Base(out)}, args...)...)
	cmd.Dir = filepath.Dir(out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return pagesReport{}, fmt.Errorf("simidx dedup --report: %v\n%s", err, stderr.String())
	}
	r := pagesReport{WriteMs: round1(float64(time.Since(start).Microseconds()) / 1e3)}
	m := wroteReport.FindStringSubmatch(stderr.String())
	n := regexp.MustCompile(`indexed (\d+) documents`).FindStringSubmatch(stderr.String())
	if m == nil || n == nil {
		return r, fmt.Errorf("simidx dedup --report said:\n%s", stderr.String())
	}
	r.Clusters, _ = strconv.Atoi(m[1])
	r.Members, _ = strconv.Atoi(m[2])
	r.Docs, _ = strconv.Atoi(n[1])
	fi, err := os.Stat(out)
	if err != nil {
		return r, err
	}
	r.FileBytes = fi.Size()
	return r, nil
}

// writeClusterCorpus writes a JSONL corpus of n clusters to path: texts of
// 150 words drawn from the words of the serve bench, each with 1 to 3
// copies (2 to 4 members a cluster), every other cluster's first copy an
// exact copy (the same canonical text: its case and spacing changed), the
// other copies with one word changed, in an order that mixes the clusters;
// and n/5 texts alone. The texts of different clusters share nothing, and
// a copy with one word of 150 changed is found with a probability of
// 1 - 3e-7 (its estimated similarity reaches 0.6 and it shares a band), so
// that the clusters are the groups of copies. It returns the number of
// documents.
func writeClusterCorpus(path string, n int) (int, error) {
	rng := rand.New(rand.NewPCG(25, 2026))
	type doc struct{ id, text string }
	var docs []doc
	text := func() []string {
		ws := make([]string, 150)
		for i := range ws {
			ws[i] = words[rng.IntN(len(words))]
		}
		return ws
	}
	for c := range n {
		base := text()
		docs = append(docs, doc{fmt.Sprintf("c%05d-0", c), sentences(base)})
		for k := range 1 + c%3 {
			t := ""
			if k == 0 && c%2 == 0 {
				t = strings.ToUpper(sentences(base[:12])) + "  " + sentences(base[12:])
			} else {
				cp := append([]string(nil), base...)
				cp[rng.IntN(len(cp))] = words[rng.IntN(len(words))]
				t = sentences(cp)
			}
			docs = append(docs, doc{fmt.Sprintf("c%05d-%d", c, k+1), t})
		}
	}
	for s := range n / 5 {
		docs = append(docs, doc{fmt.Sprintf("single%05d", s), sentences(text())})
	}
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriter(f)
	for _, d := range docs {
		b, _ := json.Marshal(map[string]string{"id": d.id, "text": d.text})
		w.Write(append(b, '\n'))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return len(docs), f.Close()
}

// sentences joins words as sentences of 12 words.
func sentences(ws []string) string {
	var b strings.Builder
	for i, w := range ws {
		if i%12 == 0 {
			if i > 0 {
				b.WriteString(". ")
			}
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	return b.String()
}

// openTiming is what an opening of a report measured, in milliseconds from
// the start of the navigation (performance.timeOrigin).
type openTiming struct {
	Ready    float64 `json:"ready"`    // the first page of clusters drawn and painted
	Load     float64 `json:"load"`     // the end of the load event: the whole file parsed
	Articles int     `json:"articles"` // clusters drawn
	Clusters int     `json:"clusters"` // clusters in the data
}

// openReport opens the report at path in a new tab and waits for its
// first page of clusters and for the end of its load event.
func openReport(b *browser, path string) (*tab, openTiming, error) {
	t, err := b.newTab()
	if err != nil {
		return nil, openTiming{}, err
	}
	var o openTiming
	err = t.do(chromedp.Navigate("file://"+path),
		chromedp.Poll[chromedp.Void](`document.documentElement.dataset.ready && performance.getEntriesByType("navigation")[0].loadEventEnd > 0`, chromedp.WithPollingTimeout(time.Minute)))
	if err == nil {
		o, err = evalIn[openTiming](t, `(() => {
			const n = performance.getEntriesByType("navigation")[0];
			return {ready: Number(document.documentElement.dataset.ready), load: n.loadEventEnd,
				articles: document.querySelectorAll("#list article").length,
				clusters: JSON.parse(document.getElementById("simidx-data").textContent).clusters.length};
		})()`)
	}
	if err != nil {
		t.close()
		return nil, o, fmt.Errorf("opening %s: %w", path, err)
	}
	if want := min(o.Clusters, 50); o.Articles != want {
		t.close()
		return nil, o, fmt.Errorf("opening %s: %d clusters drawn, want %d", path, o.Articles, want)
	}
	return t, o, nil
}

// pageProblems returns an error listing the console errors and dialogs of
// the tab, nil when there were none.
func pageProblems(t *tab) error {
	errs, dialogs := t.problems()
	if len(errs) == 0 && len(dialogs) == 0 {
		return nil
	}
	return fmt.Errorf("the page reported errors %q and opened dialogs %q", errs, dialogs)
}

// diffResult is what opening a diff showed.
type diffResult struct {
	Ms     float64 `json:"ms"`
	Open   bool    `json:"open"`
	Del    int     `json:"del"`    // runs of words only in the kept text
	Ins    int     `json:"ins"`    // runs only in the member's
	Shared int     `json:"shared"` // runs in shared passages
	Kept   string  `json:"kept"`   // the kept text as shown
	Member string  `json:"member"` // the member's
}

// openDiff clicks the diff button of the member id (the first member
// dropped on the page when id is "") and returns what the diff shows and
// how long the click took to draw it.
func openDiff(t *tab, id string) (diffResult, error) {
	q, _ := json.Marshal(id)
	return evalIn[diffResult](t, `((id) => {
		for (const tr of document.querySelectorAll("#list tr.drop")) {
			if (id && tr.querySelector("td.id").textContent !== id) continue;
			const b = tr.querySelector("button.diff-button");
			if (!b || b.disabled) continue;
			const t0 = performance.now();
			b.click();
			const ms = performance.now() - t0;
			const d = tr.closest("article").querySelector(".diff");
			const texts = d.querySelectorAll(".text");
			return {ms, open: !d.hidden && texts.length === 2, del: d.querySelectorAll(".del").length,
				ins: d.querySelectorAll(".ins").length, shared: d.querySelectorAll(".shared").length,
				kept: texts.length === 2 ? texts[0].textContent : "", member: texts.length === 2 ? texts[1].textContent : ""};
		}
		throw new Error("no diff button for " + (id || "any member"));
	})(`+string(q)+`)`)
}

// filterResult is what the list shows after a change of the filters.
type filterResult struct {
	Ms       float64   `json:"ms"`
	Count    string    `json:"count"`    // the line that counts the clusters shown
	Articles int       `json:"articles"` // clusters drawn
	Least    []float64 `json:"least"`    // the least similarity of each cluster drawn
	IDs      []string  `json:"ids"`      // the IDs drawn
}

// setFilters sets the filters of the report (least similarity, size and
// ID search) and returns the list drawn and how long that took.
func setFilters(t *tab, least float64, size int, search string) (filterResult, error) {
	q, _ := json.Marshal(search)
	return evalIn[filterResult](t, fmt.Sprintf(`((least, size, search) => {
		const set = (id, v) => { const e = document.getElementById(id); e.value = v; return e; };
		set("min-sim", String(least)); set("min-size", String(size));
		const t0 = performance.now();
		set("search", search).dispatchEvent(new Event("input"));
		const ms = performance.now() - t0;
		const arts = [...document.querySelectorAll("#list article")];
		const least_ = arts.map((a) => {
			const s = [...a.querySelectorAll("tr.drop td.num[title]")].map((td) => Number(td.title.replace("similarity ", "")));
			return s.length ? Math.min(...s) : 1;
		});
		return {ms, count: document.getElementById("count").textContent, articles: arts.length, least: least_,
			ids: [...document.querySelectorAll("#list td.id")].map((td) => td.textContent)};
	})(%g, %d, %s)`, least, size, q))
}

// timeInteractions times, in the tab of an opened report, the opening of
// the diff of member (the first one dropped when ""), a filter to least
// similarity 0.9 and a search by ID.
func timeInteractions(t *tab, r *pagesReport, member string) error {
	d, err := openDiff(t, member)
	if err != nil {
		return err
	}
	if !d.Open {
		return errors.New("the diff did not open")
	}
	r.DiffMs = round1(d.Ms)
	f, err := setFilters(t, 0.9, 2, "")
	if err != nil {
		return err
	}
	r.FilterMs = round1(f.Ms)
	f, err = setFilters(t, 0, 2, "-2")
	if err != nil {
		return err
	}
	r.SearchMs = round1(f.Ms)
	return nil
}

// reportShots takes the screenshots of the report at path into dir: the
// top of the page (report.png) and a diff opened (report-diff.png).
func reportShots(b *browser, path, dir string) ([]string, error) {
	t, _, err := openReport(b, path)
	if err != nil {
		return nil, err
	}
	defer t.close()
	top, err := chromedp.Run(t.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return nil, err
	}
	if _, err := openDiff(t, "MIT.txt"); err != nil {
		return nil, err
	}
	diff, err := chromedp.Run(t.ctx, chromedp.Screenshot(chromedp.CSS(`article:has(tr.open)`)))
	if err != nil {
		return nil, err
	}
	if err := pageProblems(t); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.png"), top, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "report-diff.png"), diff, 0o644); err != nil {
		return nil, err
	}
	return []string{"report.png", "report-diff.png"}, nil
}

// serveProcess is a simidx serve started on a loopback port.
type serveProcess struct {
	cmd  *exec.Cmd
	URL  string // http://127.0.0.1:PORT
	done chan error
}

// startServe runs simidx serve in dir on the index db with flags, and
// returns once it listens.
func startServe(bin, dir, db string, flags ...string) (*serveProcess, error) {
	cmd := exec.Command(bin, append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, flags...)...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &serveProcess{cmd: cmd, done: make(chan error, 1)}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var said []string
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
				u, _, _ := strings.Cut(rest, " ")
				listening <- u
				break
			}
			said = append(said, sc.Text())
		}
		close(listening)
		io.Copy(io.Discard, stderr)
		s.done <- errors.Join(cmd.Wait(), errorIf(len(said) > 0 && s.URL == "", strings.Join(said, "\n")))
	}()
	select {
	case u, ok := <-listening:
		if !ok {
			return nil, fmt.Errorf("simidx serve did not start: %v", <-s.done)
		}
		s.URL = u
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		return nil, errors.New("simidx serve did not listen within a minute")
	}
	return s, nil
}

func errorIf(cond bool, msg string) error {
	if cond {
		return errors.New(msg)
	}
	return nil
}

// stop stops the server (SIGINT) and waits for it.
func (s *serveProcess) stop() error {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-s.done:
		return err
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		return errors.New("simidx serve did not stop within 30s")
	}
}

// checkedText is the text the page checks in the screenshot and the
// tests: testdata/licenses/MIT.txt with its first sentence rewritten.
func checkedText(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "testdata", "licenses", "MIT.txt"))
	if err != nil {
		return "", err
	}
	return strings.Replace(string(b), "Permission is hereby granted, free of charge,", "Permission is granted, at no cost,", 1), nil
}

// servePageFlow indexes testdata/licenses into a new index in dir, serves
// it, and on the page checks checkedText, opens the shared passages with
// MIT.txt and returns the tab, for a screenshot or a test; stop stops the
// server.
func servePageFlow(b *browser, bin, root, dir string, flags ...string) (_ *tab, _ *serveProcess, err error) {
	db := filepath.Join(dir, "licenses.db")
	if out, err := exec.Command(bin, "index", "-q", "--db", db, filepath.Join(root, "testdata", "licenses")).CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("simidx index: %v\n%s", err, out)
	}
	s, err := startServe(bin, dir, "licenses.db", flags...)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	text, err := checkedText(root)
	if err != nil {
		return nil, nil, err
	}
	mit, err := os.ReadFile(filepath.Join(root, "testdata", "licenses", "MIT.txt"))
	if err != nil {
		return nil, nil, err
	}
	t, err := b.newTab()
	if err != nil {
		return nil, nil, err
	}
	err = t.do(chromedp.Navigate(s.URL+"/"),
		chromedp.Poll[chromedp.Void](`document.getElementById("stats-table").querySelector("table") !== null`),
		chromedp.SetValue(chromedp.ID("text"), text),
		chromedp.Click(chromedp.ID("query")),
		chromedp.Poll[chromedp.Void](`document.querySelector("#matches table") !== null`),
		chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll("#matches tr")].find((tr) => tr.querySelector("td.id")?.textContent === "MIT.txt").querySelector("td:last-child button").click()`),
		chromedp.SetValue(chromedp.ID("other"), string(mit)),
		chromedp.Click(chromedp.ID("compare")),
		chromedp.Poll[chromedp.Void](`document.querySelector("#comparison .cols") !== null`),
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`),
	)
	if err != nil {
		t.close()
		return nil, nil, fmt.Errorf("the page of simidx serve: %w", err)
	}
	return t, s, nil
}

// serveShot takes the screenshot of the page of simidx serve (serve.png):
// a text checked, its matches, and the passages it shares with MIT.txt.
func serveShot(b *browser, bin, root, dir, shots string) (string, error) {
	t, s, err := servePageFlow(b, bin, root, dir)
	if err != nil {
		return "", err
	}
	defer s.stop()
	defer t.close()
	png, err := chromedp.Run(t.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return "", err
	}
	if err := pageProblems(t); err != nil {
		return "", err
	}
	return "serve.png", os.WriteFile(filepath.Join(shots, "serve.png"), png, 0o644)
}

// round1 rounds ms to a tenth of a millisecond, the resolution of the
// page's clock.
func round1(ms float64) float64 { return math.Round(ms*10) / 10 }

// msPair returns the median and the largest of ms, "12.3 / 15.0".
func msPair(ms []float64) string {
	return fmt.Sprintf("%.1f / %.1f", median(ms), maxOf(ms))
}
