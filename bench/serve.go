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
	fs.Parse(args)
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
	return runServe(c, os.Stdout)
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

func runServe(c serveConfig, w io.Writer) error {
	dir := c.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "simidx-bench-serve")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	bin := c.Bin
	if bin == "" {
		bin = filepath.Join(dir, "simidx")
		build := exec.Command("go", "build", "-o", bin, "./cmd/simidx")
		build.Dir = ".."
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building simidx (run from bench/): %v", err)
		}
	}
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
			return err
		}
		if err := checkKept(path, c, texts); err != nil {
			return fmt.Errorf("the kept index %s: %w; remove it and its .params to build anew", c.Keep, err)
		}
		return serveIndex(c, w, bin, dir, path, texts, c.N+c.Texts, fmt.Sprintf("copied from %s in %.1fs", c.Keep, time.Since(start).Seconds()))
	}
	x, err := index.Open(path, &index.Options{Settings: &index.Settings{ExpectedDocs: c.N, NoMinHash: c.NoMinHash}})
	if err != nil {
		return err
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
		return err
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
		return err
	}
	total := x.Len()
	if err := x.Close(); err != nil {
		return err
	}
	loadTime := time.Since(start)
	if c.Keep != "" {
		// The copy is written under a temporary name and renamed, and
		// its parameters after it, so that an interrupted run leaves no
		// half copy with parameters.
		os.Remove(c.Keep + ".params")
		if err := copyFile(c.Keep+".tmp", path); err != nil {
			return err
		}
		if err := os.Rename(c.Keep+".tmp", c.Keep); err != nil {
			return err
		}
		if err := os.WriteFile(c.Keep+".params", []byte(params), 0o644); err != nil {
			return err
		}
	}
	return serveIndex(c, w, bin, dir, path, texts, total, fmt.Sprintf("built in %.1fs", loadTime.Seconds()))
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

// serveIndex runs simidx serve (bin) on the index at path, of total
// documents, texts among them, and the load test of c against it.
func serveIndex(c serveConfig, w io.Writer, bin, dir, path string, texts []string, total int, made string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}

	// The server, as a process on a loopback port.
	args := []string{"serve", "--db", path, "--addr", "127.0.0.1:0", "--group-delay", c.GroupDelay.String()}
	if c.NoSync {
		args = append(args, "--no-sync")
	}
	if c.ApplyInterval > 0 {
		args = append(args, "--apply-interval", c.ApplyInterval.String())
	}
	if c.ApplyDocs > 0 {
		args = append(args, "--apply-docs", fmt.Sprint(c.ApplyDocs))
	}
	srv := exec.Command(bin, args...)
	stderr, err := srv.StderrPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Process.Kill()
	sc := bufio.NewScanner(stderr)
	base := ""
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
			base, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if base == "" {
		return errors.New("simidx serve did not start")
	}
	go io.Copy(io.Discard, stderr)

	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: 4 * c.Clients, MaxIdleConnsPerHost: 4 * c.Clients, DisableCompression: true},
	}
	fmt.Fprintf(w, "machine: %s\n", machine())
	layer := "default settings, with the MinHash layer"
	if c.NoMinHash {
		layer = "without the MinHash layer"
	}
	fmt.Fprintf(w, "index: %d documents (%d precomputed fingerprints, %d texts of 30-80 words), %s, %.1f MB, %s\n",
		total, c.N, c.Texts, layer, float64(fi.Size())/1e6, made)
	mode := "durable: journal fdatasync per group commit, applied to the index in the background"
	if c.NoSync {
		mode = "--no-sync: adds NOT durable"
	}
	fmt.Fprintf(w, "server: simidx serve, separate process on loopback, %s, --group-delay %s\n", mode, c.GroupDelay)
	offered := "each client sends when its last answer is in"
	if c.Rate > 0 {
		offered = fmt.Sprintf("%.0f requests/s offered on a schedule, latencies from the scheduled times", c.Rate)
	}
	ids := "IDs in sequence"
	if c.RandomIDs {
		ids = "random IDs"
	}
	fmt.Fprintf(w, "load: %d clients (keep-alive, a minimal HTTP/1.1 client each), %d document(s) per add (%s), each phase at most %s and %d requests, %s\n\n",
		c.Clients, c.Batch, ids, c.Duration, c.MaxOps, offered)

	// Warm up: touch the tables.
	warm := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		if _, err := post(client, base+"/v1/query", queryBody(editText(warm, texts[warm.IntN(len(texts))]))); err != nil {
			return fmt.Errorf("warm-up query: %v", err)
		}
	}

	// The requests' texts are made before the load starts, so that the
	// clients spend their CPU on requests, not on making texts.
	pool := makeServePool(c, texts)
	var added atomic.Int64
	fmt.Fprintf(w, "%-6s %-6s %9s %10s %10s %9s %9s %9s %7s\n", "PHASE", "OP", "REQUESTS", "REQ/S", "DOCS/S", "P50", "P99", "MAX", "ERRORS")
	// serverState reads what the index has committed and what is pending.
	serverState := func() (applied, pending float64, err error) {
		m, err := get(client, base+"/metrics")
		if err != nil {
			return 0, 0, err
		}
		return metricValue(m, "simidx_applied_operations_total"), metricValue(m, "simidx_journal_pending_operations"), nil
	}
	for pi, phase := range c.Phases {
		// Each phase starts with nothing pending: the backlog of the
		// phase before would otherwise load this one.
		for range 600 {
			if _, p, err := serverState(); err != nil || p == 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		applied0, _, err := serverState()
		if err != nil {
			return err
		}
		m0, err := get(client, base+"/metrics")
		if err != nil {
			return err
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
				rc, err := newRawClient(base)
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
							k := added.Add(1)
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
			fmt.Fprintf(w, "%-6s %-6s %9d %10.0f %10.0f %9s %9s %9s %7d\n", phase, r.op, len(r.l.d),
				float64(len(r.l.d))/el.Seconds(), docs, ms(r.l.quantile(0.5)), ms(r.l.quantile(0.99)), ms(r.l.d[len(r.l.d)-1]), r.l.errs)
			if r.l.err != nil {
				fmt.Fprintf(w, "       first %s error: %v\n", r.op, r.l.err)
			}
		}
		// What the server measured, from the request histograms of
		// /metrics: the time from reading a request to writing its answer,
		// without the network, the clients and the waits for the server
		// process to be scheduled before it reads.
		m1, err := get(client, base+"/metrics")
		if err != nil {
			return err
		}
		for _, r := range []struct{ op, route string }{{"query", "/v1/query"}, {"add", "/v1/documents"}} {
			h0, h1 := latencyHistogram(m0, r.route), latencyHistogram(m1, r.route)
			if h1.count(h0) == 0 {
				continue
			}
			fmt.Fprintf(w, "%-6s %-6s %9s %10s %10s %9s %9s %9s  (server-side, from its histograms)\n", phase, r.op, "", "", "",
				"<="+h1.quantileBound(h0, 0.5), "<="+h1.quantileBound(h0, 0.99), "")
		}
		if len(lag.d) > 0 {
			// The clients' own delay is part of the latencies above: a
			// request sent late because its client was not scheduled
			// counts as late.
			slices.Sort(lag.d)
			fmt.Fprintf(w, "%-6s %-6s %9d %10s %10s %9s %9s %9s  (how late the clients sent, behind their schedule)\n", phase, "lag", len(lag.d), "", "",
				ms(lag.quantile(0.5)), ms(lag.quantile(0.99)), ms(lag.d[len(lag.d)-1]))
		}
		if share > 0 {
			// Adds are durable once journaled; the index must keep up
			// for the rate to be sustainable.
			applied1, pending, err := serverState()
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%-6s %-6s %9.0f %10.0f %10.0f  (committed to the index during the phase; %.0f pending at its end)\n",
				phase, "index", applied1-applied0, (applied1-applied0)/el.Seconds(), (applied1-applied0)/el.Seconds(), pending)
		}
	}

	if c.Wrk {
		for range 600 {
			if _, p, err := serverState(); err != nil || p == 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := runWrk(w, c, base, dir, texts); err != nil {
			return err
		}
	}

	// The server's own view: commits and the documents it holds.
	m, err := get(client, base+"/metrics")
	if err != nil {
		return err
	}
	commits, groupDocs := metricValue(m, "simidx_commits_total"), metricValue(m, "simidx_commit_documents_sum")
	commitSum := metricValue(m, "simidx_commit_duration_seconds_sum")
	if commits > 0 {
		fmt.Fprintf(w, "\ngroup commits (journal append + fdatasync): %.0f, %.1f documents and %.2f ms each on average\n", commits, groupDocs/commits, 1000*commitSum/commits)
	}
	applies, applied := metricValue(m, "simidx_applies_total"), metricValue(m, "simidx_applied_operations_total")
	applySum := metricValue(m, "simidx_apply_duration_seconds_sum")
	if applies > 0 {
		fmt.Fprintf(w, "index commits of the journal: %.0f, %.0f documents and %.1f ms each on average; at the end %.0f pending, oldest %.0f ms\n",
			applies, applied/applies, 1000*applySum/applies, metricValue(m, "simidx_journal_pending_operations"), 1000*metricValue(m, "simidx_journal_apply_lag_seconds"))
	}
	h, err := get(client, base+"/healthz")
	if err != nil {
		return err
	}
	var hv struct{ Documents int }
	json.Unmarshal(h, &hv)
	fmt.Fprintf(w, "documents at the end: %d (%d before, %d added)\n", hv.Documents, total, hv.Documents-total)

	// Graceful stop: SIGTERM, then the server closes the index.
	srv.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
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
