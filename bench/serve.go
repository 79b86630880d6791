package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simidx/simidx/index"
)

func init() { commands["serve"] = serveMain }

// serveConfig says what runServe measures.
type serveConfig struct {
	N          int           // precomputed fingerprints loaded before the test
	Texts      int           // documents with text loaded before the test, queried with edits
	Clients    int           // concurrent HTTP clients
	Duration   time.Duration // length of each phase
	MaxOps     int           // most requests per phase
	Batch      int           // documents per add request
	AddShare   float64       // share of adds in the mixed phase
	Rate       float64       // requests per second offered in each phase, 0 for as many as the clients can send
	Phases     []string
	Dir        string
	NoSync     bool
	NoMinHash  bool
	GroupDelay time.Duration
	// ApplyInterval and ApplyDocs are the server's --apply-interval and
	// --apply-docs, when non-zero.
	ApplyInterval time.Duration
	ApplyDocs     int
	Bin           string
	Keep          string // a kept copy of the index, reused when it was built with the same parameters
	Wrk           bool   // also measure with wrk, when installed
	RandomIDs     bool   // added documents get random IDs, not sequential ones
	// Baseline is a revision of the simidx repository whose cmd/simidx is
	// measured beside the current one, when not empty.
	Baseline string
	Command  string // the command line, for the results
}

// serveMain is the serve subcommand: build an index of n documents, start
// simidx serve on it on a loopback port, and run a bounded load test of
// queries, durable adds and a mix of both.
func serveMain(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	var c serveConfig
	fs.IntVar(&c.N, "n", 1_000_000, "documents in the index (precomputed fingerprints)")
	fs.IntVar(&c.Texts, "texts", 10_000, "documents with text added before the test; queries are edited copies of them")
	fs.IntVar(&c.Clients, "clients", 16, "concurrent clients")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "length of each phase")
	fs.IntVar(&c.MaxOps, "max-requests", 2_000_000, "most requests per phase")
	fs.IntVar(&c.Batch, "batch", 1, "documents per add request")
	fs.Float64Var(&c.AddShare, "add-share", 0.2, "share of add requests in the mixed phase")
	fs.Float64Var(&c.Rate, "rate", 0, "requests per second offered in each phase, spread evenly over the clients, with latencies from each request's scheduled time (0: each client sends as soon as its last answer is in)")
	phases := fs.String("phases", "query,add,mixed", "phases to run, in order: query, add, mixed")
	fs.StringVar(&c.Dir, "dir", "", "directory for the index file (default a temporary one)")
	fs.BoolVar(&c.NoSync, "no-sync", false, "run the server with --no-sync (adds are then not durable)")
	fs.BoolVar(&c.NoMinHash, "no-minhash", false, "build the index without the MinHash layer (default: the index's defaults, with it)")
	fs.DurationVar(&c.GroupDelay, "group-delay", 0, "the server's --group-delay")
	fs.DurationVar(&c.ApplyInterval, "apply-interval", 0, "the server's --apply-interval (0: its default)")
	fs.IntVar(&c.ApplyDocs, "apply-docs", 0, "the server's --apply-docs (0: its default)")
	fs.StringVar(&c.Bin, "bin", "", "simidx binary to run (default: built from ../cmd/simidx)")
	fs.StringVar(&c.Keep, "keep", "", "keep a copy of the built index at `PATH`; when PATH holds one built with the same -n, -texts and -no-minhash, serve a copy of it instead of building")
	fs.BoolVar(&c.RandomIDs, "random-ids", false, "give added documents 16 random hex digits as IDs, as hashed URLs or UUIDs are, instead of IDs in sequence per client (the Go clients only)")
	fs.BoolVar(&c.Wrk, "wrk", true, "also measure queries and adds with wrk (a C load generator), when installed")
	fs.StringVar(&c.Baseline, "baseline", "", "also measure the simidx of git revision `REV` of this repository (its cmd/simidx, built in a temporary directory), on an identical copy of the index, each phase run on it and then on the current one; the report gives both and their ratio")
	jsonPath := fs.String("json", "", "write the results, with this command line, to `FILE` (for all --serve-results)")
	fs.Parse(args)
	c.Command = "cd bench && go run . serve"
	if len(args) > 0 {
		c.Command += " " + shellJoin(args)
	}
	c.Phases = strings.Split(*phases, ",")
	for _, p := range c.Phases {
		if p != "query" && p != "add" && p != "mixed" {
			return fmt.Errorf("unknown phase %q; the phases are query, add and mixed", p)
		}
	}
	if c.Clients <= 0 || c.Batch <= 0 || c.Duration <= 0 || c.MaxOps <= 0 || c.Texts <= 0 {
		return errors.New("-clients, -batch, -duration, -max-requests and -texts must be positive")
	}
	if c.N < 0 || c.Rate < 0 {
		return errors.New("-n and -rate must not be negative")
	}
	if *jsonPath != "" {
		// A results file that cannot be written fails now, not after the
		// load test.
		if fi, err := os.Stat(filepath.Dir(*jsonPath)); err != nil || !fi.IsDir() {
			return fmt.Errorf("-json %s: no such directory", *jsonPath)
		}
	}
	res, err := runServe(c, os.Stdout)
	if err != nil {
		return err
	}
	if *jsonPath != "" {
		if err := writeServeJSON(*jsonPath, res); err != nil {
			return err
		}
		fmt.Printf("\nresults written to %s\n", *jsonPath)
	}
	return nil
}

// words is the vocabulary of generated documents.
var words = func() []string {
	rng := rand.New(rand.NewPCG(7, 8))
	const letters = "abcdefghijklmnopqrstuvwxyz"
	ws := make([]string, 5000)
	for i := range ws {
		b := make([]byte, 3+rng.IntN(7))
		for j := range b {
			b[j] = letters[rng.IntN(len(letters))]
		}
		ws[i] = string(b)
	}
	return ws
}()

// genText returns a classified-ad-sized text of 30 to 80 words.
func genText(rng *rand.Rand) string {
	n := 30 + rng.IntN(51)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}

// editText replaces one word of text.
func editText(rng *rand.Rand, text string) string {
	ws := strings.Fields(text)
	ws[rng.IntN(len(ws))] = words[rng.IntN(len(words))]
	return strings.Join(ws, " ")
}

// servePool holds the bodies of the load test's requests.
type servePool struct {
	queries [][]byte // query bodies: half edited copies of stored texts, half new texts
	adds    [][]byte // texts of new documents, as JSON strings
}

// makeServePool makes the requests' texts: 100,000 queries, and enough
// new texts for the adds of the phases that add, at 10,000 a second, up
// to a million (they are reused after that).
func makeServePool(c serveConfig, texts []string) *servePool {
	rng := rand.New(rand.NewPCG(21, 22))
	p := &servePool{queries: make([][]byte, 100_000)}
	for i := range p.queries {
		if rng.IntN(2) == 0 {
			p.queries[i] = queryBody(editText(rng, texts[rng.IntN(len(texts))]))
		} else {
			p.queries[i] = queryBody(genText(rng))
		}
	}
	const most = 1_000_000
	adding := 0
	for _, ph := range c.Phases {
		if ph != "query" {
			adding++
		}
	}
	// Each factor is capped before it multiplies, so that no product
	// overflows.
	perPhase := min(10_000*min(int(c.Duration.Seconds())+1, most), c.MaxOps, most)
	n := max(min(perPhase*adding, most)*min(c.Batch, most), 1)
	n = min(n, most)
	p.adds = make([][]byte, n)
	for i := range p.adds {
		p.adds[i], _ = json.Marshal(genText(rng))
	}
	return p
}

// latencies collects the latencies of one kind of request.
type latencies struct {
	mu   sync.Mutex
	d    []time.Duration
	docs int64
	errs int64
	err  error // the first error
}

func (l *latencies) add(ds []time.Duration, docs, errs int64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.d = append(l.d, ds...)
	l.docs += docs
	l.errs += errs
	if l.err == nil {
		l.err = err
	}
}

func (l *latencies) quantile(q float64) time.Duration {
	if len(l.d) == 0 {
		return 0
	}
	return l.d[min(int(q*float64(len(l.d))), len(l.d)-1)]
}

// runServe builds the binaries and the index, and runs the load test of c,
// writing its report to w.
func runServe(c serveConfig, w io.Writer) (*serveResults, error) {
	dir := c.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "simidx-bench-serve")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	var servers []*serveServer
	if c.Baseline != "" {
		bdir := filepath.Join(dir, "baseline")
		defer os.RemoveAll(bdir)
		bin, commit, err := buildBaseline(c.Baseline, bdir)
		if err != nil {
			return nil, err
		}
		servers = append(servers, &serveServer{name: "baseline", bin: bin, commit: commit,
			build: fmt.Sprintf("cmd/simidx of the simidx repository at %s (commit %s)", c.Baseline, commit)})
	}
	bin := c.Bin
	build := "-bin " + bin
	if bin == "" {
		bin = filepath.Join(dir, "simidx")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/simidx")
		cmd.Dir = ".."
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("building simidx (run from bench/): %v", err)
		}
		build = "cmd/simidx of the working tree" + treeState("..")
	}
	servers = append(servers, &serveServer{name: "current", bin: bin, build: build})

	path := filepath.Join(dir, "serve.simidx")
	os.Remove(path)
	defer os.Remove(path)

	// The index: n random fingerprints, loaded sorted into an empty index,
	// then c.Texts documents with text, whose edited copies are queried.
	start := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	params := keepParams(c)
	if b, err := os.ReadFile(c.Keep + ".params"); c.Keep != "" && err == nil && string(b) == params {
		// The kept index of the same parameters: the same texts, made
		// from the same random numbers, and a copy of the file.
		for range c.N {
			rng.Uint64()
		}
		texts := make([]string, c.Texts)
		for i := range texts {
			texts[i] = genText(rng)
		}
		if err := copyFile(path, c.Keep); err != nil {
			return nil, err
		}
		if err := checkKept(path, c, texts); err != nil {
			return nil, fmt.Errorf("the kept index %s: %w; remove it and its .params to build anew", c.Keep, err)
		}
		return serveIndex(c, w, servers, dir, path, texts, c.N+c.Texts, fmt.Sprintf("copied from %s in %.1fs", c.Keep, time.Since(start).Seconds()))
	}
	x, err := index.Open(path, &index.Options{Settings: &index.Settings{ExpectedDocs: c.N, NoMinHash: c.NoMinHash}})
	if err != nil {
		return nil, err
	}
	var fps iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
		for i := range c.N {
			if !yield(index.Doc{ID: fmt.Sprintf("fp%09d", i), Fingerprint: rng.Uint64(), Precomputed: true}, nil) {
				return
			}
		}
	}
	if _, err := x.Load(context.Background(), fps, nil); err != nil {
		x.Close()
		return nil, err
	}
	texts := make([]string, c.Texts)
	for i := range texts {
		texts[i] = genText(rng)
	}
	var docs iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
		for i, t := range texts {
			if !yield(index.Doc{ID: fmt.Sprintf("text%06d", i), Text: []byte(t)}, nil) {
				return
			}
		}
	}
	if _, err := x.Load(context.Background(), docs, nil); err != nil {
		x.Close()
		return nil, err
	}
	total := x.Len()
	if err := x.Close(); err != nil {
		return nil, err
	}
	loadTime := time.Since(start)
	if c.Keep != "" {
		// The copy is written under a temporary name and renamed, and
		// its parameters after it, so that an interrupted run leaves no
		// half copy with parameters.
		os.Remove(c.Keep + ".params")
		if err := copyFile(c.Keep+".tmp", path); err != nil {
			return nil, err
		}
		if err := os.Rename(c.Keep+".tmp", c.Keep); err != nil {
			return nil, err
		}
		if err := os.WriteFile(c.Keep+".params", []byte(params), 0o644); err != nil {
			return nil, err
		}
	}
	return serveIndex(c, w, servers, dir, path, texts, total, fmt.Sprintf("built in %.1fs", loadTime.Seconds()))
}

// keepParams returns what a kept index must have been built with to be
// reused: the harness's parameters, the index's schema version and
// default settings, and a sample of the text generator's output.
func keepParams(c serveConfig) string {
	settings, _ := json.Marshal(index.DefaultSettings())
	sample := genText(rand.New(rand.NewPCG(5, 6)))
	return fmt.Sprintf("n=%d texts=%d no-minhash=%v schema=%d\nsettings=%s\ngenerator=%q\n",
		c.N, c.Texts, c.NoMinHash, index.SchemaVersion, settings, sample)
}

// checkKept checks that the index at path holds what the harness would
// have built: its size, and the first and last texts, found by a query.
func checkKept(path string, c serveConfig, texts []string) error {
	x, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer x.Close()
	if x.Len() != c.N+c.Texts {
		return fmt.Errorf("%d documents, want %d", x.Len(), c.N+c.Texts)
	}
	for _, i := range []int{0, len(texts) - 1} {
		ms, err := x.Query([]byte(texts[i]), nil)
		if err != nil {
			return err
		}
		id := fmt.Sprintf("text%06d", i)
		if !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == id }) {
			return fmt.Errorf("a query of the text of %s does not find it", id)
		}
	}
	return nil
}

// copyFile copies the file src to dst.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// serveServer is one simidx serve process under test.
type serveServer struct {
	name   string // "current", or "baseline" beside it
	bin    string
	build  string // where bin came from
	commit string // the baseline's commit
	path   string // its copy of the index
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	client *http.Client
	added  atomic.Int64 // documents added by the Go clients, numbering their IDs
	res    *serveSideResult
}

// start runs simidx serve on the server's index, on a loopback port.
func (s *serveServer) start(c serveConfig) error {
	args := []string{"serve", "--db", s.path, "--addr", "127.0.0.1:0", "--group-delay", c.GroupDelay.String()}
	if c.NoSync {
		args = append(args, "--no-sync")
	}
	if c.ApplyInterval > 0 {
		args = append(args, "--apply-interval", c.ApplyInterval.String())
	}
	if c.ApplyDocs > 0 {
		args = append(args, "--apply-docs", fmt.Sprint(c.ApplyDocs))
	}
	s.cmd = exec.Command(s.bin, args...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(stderr)
	var said []string
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
			s.base, _, _ = strings.Cut(rest, " ")
			break
		}
		said = append(said, sc.Text())
	}
	if s.base == "" {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		return fmt.Errorf("simidx serve (%s, %s) did not start:\n%s", s.name, s.bin, strings.Join(said[max(0, len(said)-10):], "\n"))
	}
	go io.Copy(io.Discard, stderr)
	s.client = &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: 4 * c.Clients, MaxIdleConnsPerHost: 4 * c.Clients, DisableCompression: true},
	}
	return nil
}

// stop stops the server gracefully: SIGINT, then the server closes the
// index.
func (s *serveServer) stop() error {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("simidx serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		return errors.New("simidx serve did not stop within 30s")
	}
	return nil
}

// state reads what the index has committed and what is pending.
func (s *serveServer) state() (applied, pending float64, err error) {
	m, err := get(s.client, s.base+"/metrics")
	if err != nil {
		return 0, 0, err
	}
	return metricValue(m, "simidx_applied_operations_total"), metricValue(m, "simidx_journal_pending_operations"), nil
}

// drain waits, up to 30 seconds each, until no server has operations
// pending: the backlog of a phase would otherwise load the next, and a
// server committing its backlog in the background would load the other's
// phase.
func drain(servers []*serveServer) {
	for _, s := range servers {
		for range 600 {
			if _, p, err := s.state(); err != nil || p == 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// serveIndex runs the servers on copies of the index at path, of total
// documents, texts among them, and the load test of c against them: each
// phase on each server in turn, before the next phase.
func serveIndex(c serveConfig, w io.Writer, servers []*serveServer, dir, path string, texts []string, total int, made string) (*serveResults, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	two := len(servers) == 2
	res := &serveResults{Command: c.Command, Machine: machine()}
	for _, s := range servers {
		s.path = path
		if two {
			// Each server gets a copy of its own of the same index.
			s.path = filepath.Join(dir, "serve-"+s.name+".simidx")
			if err := copyFile(s.path, path); err != nil {
				return nil, err
			}
			defer os.Remove(s.path)
			defer os.RemoveAll(s.path + ".journal")
		}
		if s.name == "baseline" {
			res.Baseline = &serveRev{Rev: c.Baseline, Commit: s.commit}
		}
		s.res = &serveSideResult{Name: s.name, Build: s.build}
		res.Sides = append(res.Sides, s.res)
	}
	// The servers, as processes on loopback ports.
	for _, s := range servers {
		if err := s.start(c); err != nil {
			return nil, err
		}
		defer s.cmd.Process.Kill()
	}

	if two {
		for _, s := range servers {
			fmt.Fprintf(w, "%s: %s\n", s.name, s.build)
		}
	}
	fmt.Fprintf(w, "machine: %s\n", res.Machine)
	layer := "default settings, with the MinHash layer"
	if c.NoMinHash {
		layer = "without the MinHash layer"
	}
	res.Index = fmt.Sprintf("%d documents (%d precomputed fingerprints, %d texts of 30-80 words), %s, %.1f MB, %s",
		total, c.N, c.Texts, layer, float64(fi.Size())/1e6, made)
	fmt.Fprintf(w, "index: %s\n", res.Index)
	mode := "durable: journal fdatasync per group commit, applied to the index in the background"
	if c.NoSync {
		mode = "--no-sync: adds NOT durable"
	}
	res.Server = fmt.Sprintf("simidx serve, separate process on loopback, %s, --group-delay %s", mode, c.GroupDelay)
	if two {
		res.Server = fmt.Sprintf("simidx serve, the baseline's and the current, each a separate process on loopback on its own copy of the index, each phase run on the baseline and then on the current; %s, --group-delay %s", mode, c.GroupDelay)
	}
	fmt.Fprintf(w, "server: %s\n", res.Server)
	offered := "each client sends when its last answer is in"
	if c.Rate > 0 {
		offered = fmt.Sprintf("%.0f requests/s offered on a schedule, latencies from the scheduled times", c.Rate)
	}
	ids := "IDs in sequence"
	if c.RandomIDs {
		ids = "random IDs"
	}
	res.Load = fmt.Sprintf("%d clients (keep-alive, a minimal HTTP/1.1 client each), %d document(s) per add (%s), each phase at most %s and %d requests, %s",
		c.Clients, c.Batch, ids, c.Duration, c.MaxOps, offered)
	fmt.Fprintf(w, "load: %s\n\n", res.Load)

	// Warm up: touch the tables.
	for _, s := range servers {
		warm := rand.New(rand.NewPCG(5, 6))
		for range 2000 {
			if _, err := post(s.client, s.base+"/v1/query", queryBody(editText(warm, texts[warm.IntN(len(texts))]))); err != nil {
				return nil, fmt.Errorf("warm-up query: %v", err)
			}
		}
	}

	// The requests' texts are made before the load starts, so that the
	// clients spend their CPU on requests, not on making texts.
	pool := makeServePool(c, texts)
	if two {
		compareHeader(w)
	} else {
		fmt.Fprintf(w, "%-6s %-6s %9s %10s %10s %9s %9s %9s %7s\n", "PHASE", "OP", "REQUESTS", "REQ/S", "DOCS/S", "P50", "P99", "MAX", "ERRORS")
	}
	for pi, phase := range c.Phases {
		rows := make([][]serveRow, len(servers))
		for i, s := range servers {
			drain(servers)
			r, err := s.runPhase(c, pi, phase, pool)
			if err != nil {
				return nil, err
			}
			rows[i] = r
			s.res.Rows = append(s.res.Rows, r...)
		}
		if two {
			printCompareLines(w, rows)
		} else {
			printRows(w, rows[0])
		}
	}

	if c.Wrk {
		drain(servers)
		if err := runWrk(w, c, servers, dir, texts, res); err != nil {
			return nil, err
		}
	}

	// The servers' own view: commits and the documents they hold. Two
	// servers are read with nothing pending, as the one that ran the last
	// phase first has been by the time the other's is over.
	if two {
		drain(servers)
	}
	var totals []serveTotals
	for _, s := range servers {
		t, err := s.totals(total)
		if err != nil {
			return nil, err
		}
		s.res.Total = t
		totals = append(totals, t)
	}
	if two {
		printCompareTotals(w, totals)
	} else {
		printTotals(w, totals[0])
	}
	for _, s := range servers {
		if err := s.stop(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// runPhase runs the phase numbered pi against the server and returns its
// rows.
func (s *serveServer) runPhase(c serveConfig, pi int, phase string, pool *servePool) ([]serveRow, error) {
	applied0, _, err := s.state()
	if err != nil {
		return nil, err
	}
	m0, err := get(s.client, s.base+"/metrics")
	if err != nil {
		return nil, err
	}
	share := map[string]float64{"query": 0, "add": 1, "mixed": c.AddShare}[phase]
	var q, a, lag latencies // lag: how late the clients sent, with a rate
	var ops atomic.Int64
	deadline := time.Now().Add(c.Duration)
	t0 := time.Now()
	var wg sync.WaitGroup
	for ci := range c.Clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(pi), uint64(ci)))
			rc, err := newRawClient(s.base)
			if err != nil {
				q.add(nil, 0, 1, err)
				return
			}
			defer rc.close()
			var qd, ad, ld []time.Duration
			var qerr, aerr error
			var qe, ae, adocs int64
			// With a rate, the client sends on a schedule and a
			// request's latency runs from its scheduled time, so that
			// a server that falls behind is charged for the wait (no
			// coordinated omission).
			var every time.Duration
			next := t0
			if c.Rate > 0 {
				every = time.Duration(float64(c.Clients) / c.Rate * float64(time.Second))
				next = t0.Add(every * time.Duration(ci) / time.Duration(c.Clients))
			}
			for ops.Add(1) <= int64(c.MaxOps) && time.Now().Before(deadline) {
				t := time.Now()
				if every > 0 {
					if d := time.Until(next); d > 0 {
						time.Sleep(d)
					}
					ld = append(ld, time.Since(next))
					t, next = next, next.Add(every)
					if !t.Before(deadline) {
						break
					}
				}
				if rng.Float64() < share {
					b := make([]byte, 0, 512*c.Batch)
					b = append(b, '[')
					for j := range c.Batch {
						if j > 0 {
							b = append(b, ',')
						}
						k := s.added.Add(1)
						if c.RandomIDs {
							b = fmt.Appendf(b, `{"id":"%016x","text":`, rng.Uint64())
						} else {
							b = fmt.Appendf(b, `{"id":"new-%d-%d-%d","text":`, pi, ci, k)
						}
						b = append(b, pool.adds[int(k)%len(pool.adds)]...)
						b = append(b, '}')
					}
					b = append(b, ']')
					if every == 0 {
						t = time.Now()
					}
					_, err := rc.post("/v1/documents", b)
					ad = append(ad, time.Since(t))
					if err != nil {
						ae++
						aerr = cmpErr(aerr, err)
					} else {
						adocs += int64(c.Batch)
					}
				} else {
					body := pool.queries[rng.IntN(len(pool.queries))]
					_, err := rc.post("/v1/query", body)
					qd = append(qd, time.Since(t))
					if err != nil {
						qe++
						qerr = cmpErr(qerr, err)
					}
				}
			}
			q.add(qd, 0, qe, qerr)
			a.add(ad, adocs, ae, aerr)
			lag.add(ld, 0, 0, nil)
		})
	}
	wg.Wait()
	el := time.Since(t0)
	var rows []serveRow
	for _, r := range []struct {
		op string
		l  *latencies
	}{{"query", &q}, {"add", &a}} {
		if len(r.l.d) == 0 {
			continue
		}
		slices.Sort(r.l.d)
		docs := float64(r.l.docs) / el.Seconds()
		if r.op == "query" {
			docs = float64(len(r.l.d)) / el.Seconds()
		}
		row := serveRow{Phase: phase, Op: r.op, Requests: int64(len(r.l.d)), ReqPerSec: float64(len(r.l.d)) / el.Seconds(), DocsPerSec: docs,
			P50: msOf(r.l.quantile(0.5)), P99: msOf(r.l.quantile(0.99)), Max: msOf(r.l.d[len(r.l.d)-1]), Errors: r.l.errs}
		if r.l.err != nil {
			row.FirstError = r.l.err.Error()
		}
		rows = append(rows, row)
	}
	// What the server measured, from the request histograms of
	// /metrics: the time from reading a request to writing its answer,
	// without the network, the clients and the waits for the server
	// process to be scheduled before it reads.
	m1, err := get(s.client, s.base+"/metrics")
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		route := map[string]string{"query": "/v1/query", "add": "/v1/documents"}[r.Op]
		h0, h1 := latencyHistogram(m0, route), latencyHistogram(m1, route)
		if h1.count(h0) == 0 {
			continue
		}
		rows[i].ServerP50, rows[i].ServerP99 = h1.quantileBound(h0, 0.5), h1.quantileBound(h0, 0.99)
	}
	if len(lag.d) > 0 {
		// The clients' own delay is part of the latencies above: a
		// request sent late because its client was not scheduled
		// counts as late.
		slices.Sort(lag.d)
		rows = append(rows, serveRow{Phase: phase, Op: "lag", Requests: int64(len(lag.d)),
			P50: msOf(lag.quantile(0.5)), P99: msOf(lag.quantile(0.99)), Max: msOf(lag.d[len(lag.d)-1])})
	}
	if share > 0 {
		// Adds are durable once journaled; the index must keep up
		// for the rate to be sustainable.
		applied1, pending, err := s.state()
		if err != nil {
			return nil, err
		}
		rows = append(rows, serveRow{Phase: phase, Op: "index", Requests: int64(applied1 - applied0),
			DocsPerSec: (applied1 - applied0) / el.Seconds(), Pending: pending})
	}
	return rows, nil
}

// printRows prints the rows of a phase of one server.
func printRows(w io.Writer, rows []serveRow) {
	for _, r := range rows {
		if r.Op == "query" || r.Op == "add" {
			fmt.Fprintf(w, "%-6s %-6s %9d %10.0f %10.0f %9s %9s %9s %7d\n", r.Phase, r.Op, r.Requests,
				r.ReqPerSec, r.DocsPerSec, msf(r.P50), msf(r.P99), msf(r.Max), r.Errors)
			if r.FirstError != "" {
				fmt.Fprintf(w, "       first %s error: %v\n", r.Op, r.FirstError)
			}
		}
	}
	for _, r := range rows {
		if r.ServerP50 != "" {
			fmt.Fprintf(w, "%-6s %-6s %9s %10s %10s %9s %9s %9s  (server-side, from its histograms)\n", r.Phase, r.Op, "", "", "",
				"<="+r.ServerP50, "<="+r.ServerP99, "")
		}
	}
	for _, r := range rows {
		switch r.Op {
		case "lag":
			fmt.Fprintf(w, "%-6s %-6s %9d %10s %10s %9s %9s %9s  (how late the clients sent, behind their schedule)\n", r.Phase, r.Op, r.Requests, "", "",
				msf(r.P50), msf(r.P99), msf(r.Max))
		case "index":
			fmt.Fprintf(w, "%-6s %-6s %9.0f %10.0f %10.0f  (committed to the index during the phase; %.0f pending at its end)\n",
				r.Phase, r.Op, float64(r.Requests), r.DocsPerSec, r.DocsPerSec, r.Pending)
		}
	}
}

// totals reads the server's own view of the whole run: its commits and
// the documents it holds, total before the test.
func (s *serveServer) totals(total int) (serveTotals, error) {
	t := serveTotals{DocsBefore: total}
	m, err := get(s.client, s.base+"/metrics")
	if err != nil {
		return t, err
	}
	t.Commits = metricValue(m, "simidx_commits_total")
	if t.Commits > 0 {
		t.CommitDocs = metricValue(m, "simidx_commit_documents_sum") / t.Commits
		t.CommitMs = 1000 * metricValue(m, "simidx_commit_duration_seconds_sum") / t.Commits
	}
	t.Applies = metricValue(m, "simidx_applies_total")
	if t.Applies > 0 {
		t.ApplyDocs = metricValue(m, "simidx_applied_operations_total") / t.Applies
		t.ApplyMs = 1000 * metricValue(m, "simidx_apply_duration_seconds_sum") / t.Applies
	}
	t.Pending = metricValue(m, "simidx_journal_pending_operations")
	t.LagMs = 1000 * metricValue(m, "simidx_journal_apply_lag_seconds")
	h, err := get(s.client, s.base+"/healthz")
	if err != nil {
		return t, err
	}
	var hv struct{ Documents int }
	json.Unmarshal(h, &hv)
	t.DocsEnd = hv.Documents
	return t, nil
}

// printTotals prints the totals of one server.
func printTotals(w io.Writer, t serveTotals) {
	if t.Commits > 0 {
		fmt.Fprintf(w, "\ngroup commits (journal append + fdatasync): %.0f, %.1f documents and %.2f ms each on average\n", t.Commits, t.CommitDocs, t.CommitMs)
	}
	if t.Applies > 0 {
		fmt.Fprintf(w, "index commits of the journal: %.0f, %.0f documents and %.1f ms each on average; at the end %.0f pending, oldest %.0f ms\n",
			t.Applies, t.ApplyDocs, t.ApplyMs, t.Pending, t.LagMs)
	}
	fmt.Fprintf(w, "documents at the end: %d (%d before, %d added)\n", t.DocsEnd, t.DocsBefore, t.DocsEnd-t.DocsBefore)
}

func queryBody(text string) []byte {
	b, _ := json.Marshal(map[string]string{"text": text})
	return b
}

// post sends body and returns the answer, or an error unless it is 200.
func post(c *http.Client, url string, body []byte) ([]byte, error) {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, bytes.TrimSpace(b))
	}
	return b, nil
}

func get(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// histBucket is a cumulative bucket of a Prometheus histogram.
type histBucket struct {
	le string
	n  float64
}

// histogram is the buckets of one histogram, in order.
type histogram []histBucket

// latencyHistogram returns the buckets of the server's latencies of POST
// route with status 200.
func latencyHistogram(m []byte, route string) histogram {
	prefix := fmt.Sprintf(`simidx_http_request_duration_seconds_bucket{method="POST",route=%q,code="200",le="`, route)
	var h histogram
	for line := range strings.Lines(string(m)) {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		le, v, ok := strings.Cut(rest, `"} `)
		if !ok {
			continue
		}
		var n float64
		fmt.Sscan(v, &n)
		h = append(h, histBucket{le, n})
	}
	return h
}

// count returns the number of requests counted in h and not in before.
func (h histogram) count(before histogram) float64 {
	if len(h) == 0 {
		return 0
	}
	n := h[len(h)-1].n
	if len(before) == len(h) {
		n -= before[len(before)-1].n
	}
	return n
}

// quantileBound returns the upper bound of the bucket that holds quantile
// q of the requests counted in h and not in before (h's counts earlier),
// in milliseconds, or "inf".
func (h histogram) quantileBound(before histogram, q float64) string {
	at := func(hh histogram, i int) float64 {
		if len(hh) == len(h) {
			return hh[i].n
		}
		return 0
	}
	total := h.count(before)
	for i, b := range h {
		if b.n-at(before, i) >= q*total {
			var sec float64
			if _, err := fmt.Sscan(b.le, &sec); err != nil {
				return b.le
			}
			return fmt.Sprintf("%gms", sec*1000)
		}
	}
	return "inf"
}

// metricValue returns the value of an unlabelled metric in a Prometheus
// text exposition.
func metricValue(m []byte, name string) float64 {
	for line := range strings.Lines(string(m)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	return 0
}

func cmpErr(old, err error) error {
	if old != nil {
		return old
	}
	return err
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

// msOf returns d in milliseconds.
func msOf(d time.Duration) float64 { return float64(d) / 1e6 }
