package server

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simidx/simidx/index"
)

// latencyBuckets are the upper bounds, in seconds, of the request and
// commit latency histograms.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// groupBuckets are the upper bounds of the documents-per-commit histogram.
var groupBuckets = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384}

// histogram is a Prometheus histogram updated with atomics.
type histogram struct {
	bounds []float64
	counts []atomic.Int64 // per bucket, not cumulative; the last is +Inf
	sum    atomic.Uint64  // float64 bits
	count  atomic.Int64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]atomic.Int64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v)
	h.counts[i].Add(1)
	h.count.Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, f64bits(f64frombits(old)+v)) {
			return
		}
	}
}

// write writes the series of h named name with the labels (`k="v",...`).
func (h *histogram) write(w io.Writer, name, labels string) {
	sep := ""
	if labels != "" {
		sep = ","
	}
	var cum int64
	for i, b := range h.bounds {
		cum += h.counts[i].Load()
		fmt.Fprintf(w, "%s_bucket{%s%sle=%q} %d\n", name, labels, sep, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	cum += h.counts[len(h.bounds)].Load()
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, cum)
	if labels != "" {
		labels = "{" + labels + "}"
	}
	fmt.Fprintf(w, "%s_sum%s %s\n", name, labels, strconv.FormatFloat(f64frombits(h.sum.Load()), 'g', -1, 64))
	fmt.Fprintf(w, "%s_count%s %d\n", name, labels, h.count.Load())
}

// requestKey labels the series of one kind of request.
type requestKey struct {
	method, route string
	code          int
}

// Metrics count the requests of a Server and the group commits and applies
// of its index's write-ahead log, for GET /metrics, where they are written
// with gauges read from the index and the Go runtime (docs/server.md lists
// them). Counting costs a few atomic additions per request, commit or
// apply, and a map lookup under a mutex per request. It is safe for
// concurrent use.
type Metrics struct {
	mu       sync.Mutex
	requests map[requestKey]*histogram

	commits      atomic.Int64
	commitErrors atomic.Int64
	commitTime   *histogram
	groupSize    *histogram
	added        atomic.Int64
	addedBytes   atomic.Int64
	rejected     atomic.Int64
	deleted      atomic.Int64
	start        time.Time

	inFlight    atomic.Int64 // requests being answered
	applies     atomic.Int64
	applyErrors atomic.Int64
	appliedOps  atomic.Int64
	applyTime   *histogram
	applySize   *histogram

	// The log of failed applies (SetErrorLog): the writer, and the
	// failures in a row so far with the last one's message.
	logMu     sync.Mutex
	errLog    io.Writer
	failing   int
	lastApply string
}

// SetErrorLog makes the Metrics write to w when the applies of the log
// start failing, when the failure changes, and when they work again, with
// the count of failures in a row: one line per change of state, however
// often the index retries. Call it before the index is opened.
func (m *Metrics) SetErrorLog(w io.Writer) { m.errLog = w }

// logApply writes what a changes in the state of the applies.
func (m *Metrics) logApply(a index.ApplyInfo) {
	if m.errLog == nil {
		return
	}
	m.logMu.Lock()
	defer m.logMu.Unlock()
	switch {
	case a.Err != nil && m.failing == 0:
		fmt.Fprintf(m.errLog, "simidx serve: applying the journal to the index failed: %v (retried with a growing wait; the operations stay in the journal)\n", a.Err)
	case a.Err != nil && a.Err.Error() != m.lastApply:
		fmt.Fprintf(m.errLog, "simidx serve: applying the journal to the index still fails, after %d failures, now with: %v\n", m.failing, a.Err)
	case a.Err == nil && m.failing > 0:
		fmt.Fprintf(m.errLog, "simidx serve: applying the journal to the index works again, after %d failures\n", m.failing)
	}
	if a.Err != nil {
		m.failing++
		m.lastApply = a.Err.Error()
	} else {
		m.failing, m.lastApply = 0, ""
	}
}

// NewMetrics returns Metrics at zero; the uptime they report counts from
// now.
func NewMetrics() *Metrics {
	return &Metrics{
		requests:   map[requestKey]*histogram{},
		commitTime: newHistogram(latencyBuckets),
		groupSize:  newHistogram(groupBuckets),
		start:      time.Now(),
		applyTime:  newHistogram(latencyBuckets),
		applySize:  newHistogram(groupBuckets),
	}
}

// request records a request answered with code after d.
func (m *Metrics) request(method, route string, code int, d time.Duration) {
	switch method {
	case "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS":
	default:
		method = "other"
	}
	k := requestKey{method, route, code}
	m.mu.Lock()
	h := m.requests[k]
	if h == nil {
		h = newHistogram(latencyBuckets)
		m.requests[k] = h
	}
	m.mu.Unlock()
	h.observe(d.Seconds())
}

// LogEvents returns the functions through which the index's write-ahead
// log reports its group commits and applies to m: give them to index.Open
// in index.LogOptions.Events. A program that wants to be told of a failed
// apply too (the index retries it) wraps the Apply function.
func (m *Metrics) LogEvents() *index.LogEvents {
	return &index.LogEvents{Commit: m.commit, Apply: m.applied}
}

// commit records a group commit. A group whose documents if_unique all
// refused logs nothing: it counts only the refusals.
func (m *Metrics) commit(c index.CommitInfo) {
	m.rejected.Add(int64(c.Refused))
	n := c.Adds + c.Deletes
	if n == 0 {
		return
	}
	if c.Err != nil {
		m.commitErrors.Add(1)
		return
	}
	m.commits.Add(1)
	m.commitTime.observe(c.Duration.Seconds())
	m.groupSize.observe(float64(n))
	m.added.Add(int64(c.Adds))
	m.addedBytes.Add(c.Bytes)
	m.deleted.Add(int64(c.Deletes))
}

// applied records a commit of logged operations to the index file.
func (m *Metrics) applied(a index.ApplyInfo) {
	m.logApply(a)
	if a.Err != nil {
		m.applyErrors.Add(1)
		return
	}
	m.applies.Add(1)
	m.appliedOps.Add(int64(a.Ops))
	m.applyTime.observe(a.Duration.Seconds())
	m.applySize.observe(float64(a.Ops))
}

// handleMetrics is GET /metrics.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) error {
	if _, err := params(r); err != nil {
		return err
	}
	var b bytes.Buffer
	s.met.write(&b, s)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b.Bytes())
	return err
}

// write writes every metric in the Prometheus text format.
func (m *Metrics) write(w io.Writer, s *Server) {
	m.mu.Lock()
	keys := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	m.mu.Unlock()
	slices.SortFunc(keys, func(a, b requestKey) int {
		return cmp.Or(cmp.Compare(a.route, b.route), cmp.Compare(a.method, b.method), cmp.Compare(a.code, b.code))
	})
	hists := make([]*histogram, len(keys))
	m.mu.Lock()
	for i, k := range keys {
		hists[i] = m.requests[k]
	}
	m.mu.Unlock()
	labels := func(k requestKey) string {
		return fmt.Sprintf("method=%q,route=%q,code=\"%d\"", k.method, k.route, k.code)
	}

	fmt.Fprintln(w, "# HELP simidx_http_requests_total HTTP requests answered, by method, route and status code.")
	fmt.Fprintln(w, "# TYPE simidx_http_requests_total counter")
	for i, k := range keys {
		fmt.Fprintf(w, "simidx_http_requests_total{%s} %d\n", labels(k), hists[i].count.Load())
	}
	fmt.Fprintln(w, "# HELP simidx_http_request_duration_seconds Time to answer HTTP requests, by method, route and status code.")
	fmt.Fprintln(w, "# TYPE simidx_http_request_duration_seconds histogram")
	for i, k := range keys {
		hists[i].write(w, "simidx_http_request_duration_seconds", labels(k))
	}

	gauge := func(name, help string, v any) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %v\n", name, help, name, name, v)
	}
	counter := func(name, help string, v int64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", name, help, name, name, v)
	}
	histo := func(name, help string, h *histogram) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
		h.write(w, name, "")
	}
	gauge("simidx_documents", "Documents in the index, those journaled and not yet committed included.", s.x.Len())
	gauge("simidx_http_requests_in_flight", "HTTP requests being answered, this one included.", s.met.inFlight.Load())
	var size int64
	if fi, err := os.Stat(s.path); err == nil {
		size = fi.Size()
	}
	gauge("simidx_index_file_bytes", "Size of the index file in bytes.", size)
	counter("simidx_documents_added_total", "Documents added or replaced since the server started.", m.added.Load())
	counter("simidx_documents_added_bytes_total", "Text bytes of the documents added since the server started.", m.addedBytes.Load())
	counter("simidx_documents_rejected_total", "Documents refused by if_unique because of a near duplicate.", m.rejected.Load())
	counter("simidx_documents_deleted_total", "Documents deleted since the server started.", m.deleted.Load())
	counter("simidx_commits_total", "Group commits: appends of a group of operations to the journal, each with one fdatasync.", m.commits.Load())
	counter("simidx_commit_errors_total", "Group commits that failed (their requests were answered 500).", m.commitErrors.Load())
	histo("simidx_commit_duration_seconds", "Time of a group commit: the journal write and its fdatasync.", m.commitTime)
	histo("simidx_commit_documents", "Operations (adds and deletes) per group commit.", m.groupSize)
	ls := s.x.LogStats()
	gauge("simidx_journal_pending_operations", "Journaled operations not yet committed to the index (queries see them).", ls.Pending)
	lag := 0.0
	if !ls.OldestPending.IsZero() {
		lag = time.Since(ls.OldestPending).Seconds()
	}
	gauge("simidx_journal_apply_lag_seconds", "Age of the oldest journaled operation not yet committed to the index.", strconv.FormatFloat(lag, 'f', 3, 64))
	gauge("simidx_journal_bytes", "Size of the journal's segment files in bytes, the zeros written ahead of appends included.", ls.Bytes)
	counter("simidx_applies_total", "Commits of journaled operations to the index.", m.applies.Load())
	counter("simidx_apply_errors_total", "Commits of journaled operations to the index that failed (retried; the operations stay journaled).", m.applyErrors.Load())
	counter("simidx_applied_operations_total", "Journaled operations committed to the index.", m.appliedOps.Load())
	histo("simidx_apply_duration_seconds", "Time of a commit of journaled operations to the index, fsync included.", m.applyTime)
	histo("simidx_apply_operations", "Operations per commit of the journal to the index.", m.applySize)
	gauge("simidx_uptime_seconds", "Seconds since the server started.", strconv.FormatFloat(time.Since(m.start).Seconds(), 'f', 3, 64))
	writeSchedLatencies(w)
}

// schedBuckets are the bounds, in seconds, near which the histogram of
// the Go scheduler's latencies has its buckets (see schedHistogram).
var schedBuckets = []float64{0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1}

// writeSchedLatencies writes go_sched_latencies_seconds, how long
// goroutines waited to run once runnable since the process started (the
// runtime's /sched/latencies:seconds, which samples the waits, summed by
// schedHistogram). It tells requests that wait for a CPU from those that
// wait for the index or the disk. Cost: a read of the runtime's
// histogram, about 160 buckets.
func writeSchedLatencies(w io.Writer) {
	sample := []rtmetrics.Sample{{Name: "/sched/latencies:seconds"}}
	rtmetrics.Read(sample)
	if sample[0].Value.Kind() != rtmetrics.KindFloat64Histogram {
		return
	}
	les, cum, count, sum := schedHistogram(sample[0].Value.Float64Histogram(), schedBuckets)
	const name = "go_sched_latencies_seconds"
	fmt.Fprintf(w, "# HELP %s Time goroutines waited to run once runnable, sampled (the Go runtime's /sched/latencies:seconds).\n# TYPE %s histogram\n", name, name)
	for i, le := range les {
		fmt.Fprintf(w, "%s_bucket{le=%q} %d\n", name, strconv.FormatFloat(le, 'g', -1, 64), cum[i])
	}
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n%s_sum %g\n%s_count %d\n", name, count, name, sum, name, count)
}

// schedHistogram sums the runtime histogram h into a Prometheus one: for
// each of bounds, a bucket whose upper bound is the largest of h's bucket
// edges at or below it, with the count of the samples below that edge
// (exact, where a bucket at the bound itself would count in part the
// samples of a runtime bucket across it); bounds that map to the same edge
// give one bucket, and those with no edge above zero at or below them
// none. The sum is
// estimated from the buckets' midpoints (the runtime keeps none). Cost:
// O(len(h.Counts) + len(bounds)).
func schedHistogram(h *rtmetrics.Float64Histogram, bounds []float64) (les []float64, cum []uint64, count uint64, sum float64) {
	bi := 0
	for i, c := range h.Counts {
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		for bi < len(bounds) && hi > bounds[bi] {
			if lo > 0 && lo <= bounds[bi] && (len(les) == 0 || les[len(les)-1] != lo) {
				les, cum = append(les, lo), append(cum, count)
			}
			bi++
		}
		count += c
		switch {
		case math.IsInf(lo, -1):
			sum += float64(c) * max(hi, 0)
		case math.IsInf(hi, 1):
			sum += float64(c) * lo
		default:
			sum += float64(c) * (lo + hi) / 2
		}
	}
	return les, cum, count, sum
}

func f64bits(f float64) uint64     { return math.Float64bits(f) }
func f64frombits(b uint64) float64 { return math.Float64frombits(b) }
