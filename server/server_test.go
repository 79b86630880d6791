package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// licenses is the bundled sample corpus.
const licenses = "../testdata/licenses"

// openIndex opens (or creates) the index at db with the settings s (nil
// for the defaults) and the write-ahead log options lo, reporting to the
// metrics m if not nil. The index is closed when the test ends.
func openIndex(t testing.TB, db string, s *index.Settings, lo index.LogOptions, m *Metrics) *index.Index {
	t.Helper()
	if m != nil {
		lo.Events = m.LogEvents()
	}
	x, err := index.Open(db, &index.Options{Settings: s, BandFilter: true, TableMirror: true, Log: &lo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// testServer is a Server serving on a loopback port through Serve.
type testServer struct {
	url  string
	stop func() error // cancels Serve's context and returns its error
}

// startServer serves x with opts on a free loopback port until the test
// ends or stop is called.
func startServer(t testing.TB, x *index.Index, opts *Options) *testServer {
	t.Helper()
	s, err := New(x, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	var once sync.Once
	var serr error
	ts := &testServer{url: "http://" + ln.Addr().String()}
	ts.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case serr = <-served:
			case <-time.After(20 * time.Second):
				serr = errors.New("Serve did not return")
			}
		})
		return serr
	}
	t.Cleanup(func() {
		if err := ts.stop(); err != nil {
			t.Error(err)
		}
	})
	return ts
}

// response is an HTTP answer.
type response struct {
	status int
	header http.Header
	body   string
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

var testClient = &http.Client{Timeout: 20 * time.Second}

// do sends a request and reads the answer.
func do(t testing.TB, method, url, contentType, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func mustDo(t testing.TB, method, url, body string, status int) response {
	t.Helper()
	r := do(t, method, url, "", body)
	if r.status != status {
		t.Fatalf("%s %s: status %d, want %d: %s", method, url, r.status, status, r.body)
	}
	return r
}

// docsJSON returns a JSON array of documents.
func docsJSON(docs ...[2]string) string {
	var out []map[string]string
	for _, d := range docs {
		out = append(out, map[string]string{"id": d[0], "text": d[1]})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func licenseText(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(licenses, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitApplied waits until the index served at u has committed its log:
// no operation pending.
func waitApplied(t *testing.T, u string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(mustDo(t, "GET", u+"/metrics", "", 200).body, "\nsimidx_journal_pending_operations 0\n") {
		if time.Now().After(deadline) {
			t.Fatal("the journal was not applied to the index within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAPI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	m := NewMetrics()
	x := openIndex(t, db, nil, index.LogOptions{}, m)
	ts := startServer(t, x, &Options{Metrics: m})
	u := ts.url
	mit, jsonLic, apache := licenseText(t, "MIT.txt"), licenseText(t, "JSON.txt"), licenseText(t, "Apache-2.0.txt")

	r := mustDo(t, "POST", u+"/v1/documents", docsJSON([2]string{"MIT", mit}, [2]string{"apache", apache}), 200)
	if strings.TrimSpace(r.body) != `{"added":2}` {
		t.Errorf("add: %s", r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	// JSON lines; IDs may be numbers and hold '/'.
	jl, _ := json.Marshal(map[string]string{"id": "dir/JSON", "text": jsonLic})
	r = mustDo(t, "POST", u+"/v1/documents", string(jl)+"\n"+`{"id": 42, "text": "forty two"}`+"\n", 200)
	if strings.TrimSpace(r.body) != `{"added":2}` {
		t.Errorf("add JSON lines: %s", r.body)
	}

	q, _ := json.Marshal(map[string]string{"text": mit})
	r = mustDo(t, "POST", u+"/v1/query", string(q), 200)
	if got := strings.TrimSpace(r.body); !strings.HasPrefix(got, `{"matches":[{"id":"MIT","distance":0,"similarity":1,"exact":true},{"id":"dir/JSON","distance":`) {
		t.Errorf("query MIT: %s", got)
	}
	r = mustDo(t, "POST", u+"/v1/query?k=0", string(q), 200)
	if got := strings.TrimSpace(r.body); got != `{"matches":[{"id":"MIT","distance":0,"similarity":1,"exact":true}]}` {
		t.Errorf("query MIT k=0: %s", got)
	}
	r = do(t, "POST", u+"/v1/query?limit=1", "text/plain", jsonLic)
	if got := strings.TrimSpace(r.body); r.status != 200 || got != `{"matches":[{"id":"dir/JSON","distance":0,"similarity":1,"exact":true}]}` {
		t.Errorf("query JSON as text/plain, limit=1: %d %s", r.status, got)
	}
	r = mustDo(t, "POST", u+"/v1/query", `{"text": "nothing like it at all"}`, 200)
	if got := strings.TrimSpace(r.body); got != `{"matches":[]}` {
		t.Errorf("query without matches: %s", got)
	}

	r = mustDo(t, "GET", u+"/v1/documents/MIT", "", 200)
	fp := r.json(t)["fingerprint"].(string)
	if len(fp) != 16 {
		t.Errorf("fingerprint %q", fp)
	}
	r = mustDo(t, "POST", u+"/v1/query", `{"fingerprint":"`+fp+`"}`, 200)
	if !strings.Contains(r.body, `{"id":"MIT","distance":0}`) {
		t.Errorf("query by fingerprint: %s", r.body)
	}

	r = mustDo(t, "GET", u+"/v1/documents/dir%2FJSON/similar", "", 200)
	if got := strings.TrimSpace(r.body); !strings.HasPrefix(got, `{"id":"dir/JSON","matches":[{"id":"MIT","distance":`) {
		t.Errorf("similar dir/JSON: %s", got)
	}

	r = mustDo(t, "DELETE", u+"/v1/documents/42", "", 200)
	if strings.TrimSpace(r.body) != `{"deleted":1}` {
		t.Errorf("delete: %s", r.body)
	}
	mustDo(t, "DELETE", u+"/v1/documents/42", "", 404)
	mustDo(t, "GET", u+"/v1/documents/42/similar", "", 404)

	r = mustDo(t, "GET", u+"/healthz", "", 200)
	if strings.TrimSpace(r.body) != `{"documents":3,"status":"ok"}` {
		t.Errorf("healthz: %s", r.body)
	}
	st := mustDo(t, "GET", u+"/v1/stats", "", 200).json(t)
	if st["docs"] != 3.0 || st["max_distance"] != 3.0 || st["path"] != db || st["journal_pending"] != 0.0 {
		t.Errorf("stats: %v", st)
	}
	// The object of simidx stats: the text settings by name.
	if text, _ := st["text"].(map[string]any); text["features"] != "units+pairs" || st["store_shingles"] != false || st["empty"] != 0.0 {
		t.Errorf("stats text settings: %v", st)
	}

	// The index tells of an apply after it has taken the operations off
	// its pending ones.
	waitApplied(t, u)
	deadline := time.Now().Add(10 * time.Second)
	met := mustDo(t, "GET", u+"/metrics", "", 200).body
	for strings.Contains(met, "\nsimidx_applies_total 0\n") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		met = mustDo(t, "GET", u+"/metrics", "", 200).body
	}
	for _, want := range []string{
		`simidx_http_requests_total{method="POST",route="/v1/documents",code="200"} 2`,
		`simidx_http_requests_total{method="DELETE",route="/v1/documents/{id}",code="404"} 1`,
		`simidx_http_request_duration_seconds_bucket{method="POST",route="/v1/query",code="200",le="+Inf"} 5`,
		`simidx_http_request_duration_seconds_count{method="GET",route="/v1/documents/{id}/similar",code="200"} 1`,
		"\nsimidx_documents 3\n",
		"\nsimidx_documents_added_total 4\n",
		"\nsimidx_documents_deleted_total 1\n",
		"# TYPE simidx_commit_duration_seconds histogram",
		"\nsimidx_index_file_bytes ",
		"\nsimidx_applies_total ",
		"# TYPE go_sched_latencies_seconds histogram",
	} {
		if !strings.Contains(met, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(met, "\nsimidx_applies_total 0\n") {
		t.Errorf("no apply counted through LogEvents:\n%s", met)
	}
	if ct := mustDo(t, "GET", u+"/metrics", "", 200).header.Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("metrics Content-Type %q", ct)
	}

	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(u + "/healthz"); err == nil {
		t.Error("the server still answers after Serve returned")
	}
	// Serve leaves the index open.
	if x.Len() != 3 {
		t.Errorf("%d documents after Serve returned, want 3", x.Len())
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ro.Len() != 3 {
		t.Errorf("%d documents after the close, want 3", ro.Len())
	}
	if err := ro.Check(); err != nil {
		t.Error(err)
	}
}

// TestRouting checks the router: the endpoints and their methods, HEAD
// wherever GET is, 404 and 405 answered in JSON with the route in the
// metrics, and document IDs escaped in the path.
func TestRouting(t *testing.T) {
	x := openIndex(t, filepath.Join(t.TempDir(), "r.db"), nil, index.LogOptions{}, nil)
	s, err := New(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	u := hs.URL
	for _, id := range []string{"a/b", "a b", "?#%", "..", ".", "é/ü", "x/similar"} {
		mustDo(t, "POST", u+"/v1/documents", docsJSON([2]string{id, "the document called " + id}), 200)
	}
	for _, tc := range []struct{ path, id string }{
		{"/v1/documents/a%2Fb", "a/b"},
		{"/v1/documents/a%20b", "a b"},
		{"/v1/documents/%3F%23%25", "?#%"},
		{"/v1/documents/%2E%2E", ".."},
		{"/v1/documents/%2E", "."},
		{"/v1/documents/%C3%A9%2F%C3%BC", "é/ü"},
		{"/v1/documents/x%2Fsimilar", "x/similar"},
	} {
		r := mustDo(t, "GET", u+tc.path, "", 200)
		if got := r.json(t)["id"]; got != tc.id {
			t.Errorf("GET %s: id %q, want %q", tc.path, got, tc.id)
		}
		r = mustDo(t, "GET", u+tc.path+"/similar?k=0", "", 200)
		if got := r.json(t)["id"]; got != tc.id {
			t.Errorf("GET %s/similar: %s", tc.path, r.body)
		}
	}
	for _, tc := range []struct {
		method, path string
		status       int
		allow, msg   string
	}{
		{"GET", "/v1/documents", 405, "POST", "method GET not allowed on /v1/documents; use POST"},
		{"HEAD", "/v1/documents", 405, "POST", ""},
		{"PUT", "/v1/query", 405, "POST", "method PUT not allowed on /v1/query; use POST"},
		{"POST", "/v1/documents/a", 405, "GET, HEAD, DELETE", "method POST not allowed on /v1/documents/{id}; use GET, HEAD, DELETE"},
		{"DELETE", "/v1/documents/a/similar", 405, "GET, HEAD", "method DELETE not allowed on /v1/documents/{id}/similar; use GET, HEAD"},
		{"POST", "/v1/stats", 405, "GET, HEAD", "use GET, HEAD"},
		{"DELETE", "/healthz", 405, "GET, HEAD", "use GET, HEAD"},
		{"PATCH", "/metrics", 405, "GET, HEAD", "use GET, HEAD"},
		{"GET", "/v1/documents/", 404, "", "no such endpoint: GET /v1/documents/; the document ID is missing"},
		{"GET", "/v1/documents/a/b", 404, "", "a document ID with '/' is written %2F"},
		{"GET", "/v1/documents/a/b/similar", 404, "", "a document ID with '/' is written %2F"},
		{"GET", "/v1/documents/a/similar/x", 404, "", "a document ID with '/' is written %2F"},
		{"GET", "/v2/query", 404, "", "no such endpoint: GET /v2/query; the endpoints are under /v1/"},
		{"GET", "/v1/query/x", 404, "", "no such endpoint: GET /v1/query/x"},
		{"GET", "/index.html", 404, "", "no such endpoint: GET /index.html"},
		{"FOO", "/x", 404, "", "no such endpoint: FOO /x"},
		{"POST", "/", 405, "GET, HEAD", "method POST not allowed on /, the page; use GET, HEAD"},
		{"POST", "/v1/compare/x", 404, "", "no such endpoint: POST /v1/compare/x"},
		{"GET", "/v1/compare", 405, "POST", "method GET not allowed on /v1/compare; use POST"},
	} {
		r := do(t, tc.method, u+tc.path, "", "")
		if r.status != tc.status || r.header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d with Allow %q; want %d with %q", tc.method, tc.path, r.status, r.header.Get("Allow"), tc.status, tc.allow)
		}
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: Content-Type %q", tc.method, tc.path, ct)
		}
		if tc.method == "HEAD" {
			continue
		}
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || !strings.Contains(e.Error, tc.msg) {
			t.Errorf("%s %s: %s; want an error with %q", tc.method, tc.path, strings.TrimSpace(r.body), tc.msg)
		}
	}
	// HEAD is answered wherever GET is, without a body.
	for _, path := range []string{"/v1/documents/a%2Fb", "/v1/documents/a%2Fb/similar", "/v1/stats", "/healthz", "/metrics"} {
		if r := do(t, "HEAD", u+path, "", ""); r.status != 200 || r.body != "" || r.header.Get("Content-Length") == "" && path != "/metrics" {
			t.Errorf("HEAD %s: %d %q %v", path, r.status, r.body, r.header)
		}
	}
	// A path that is not clean is redirected to its clean form, as
	// ServeMux does, the method kept.
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("POST", "/v1//query?k=1", nil))
	if rec.Code != http.StatusTemporaryRedirect || rec.Header().Get("Location") != "/v1/query?k=1" {
		t.Errorf("POST /v1//query: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	m := mustDo(t, "GET", u+"/metrics", "", 200).body
	for _, want := range []string{
		`simidx_http_requests_total{method="POST",route="other",code="307"} 1`,
		`simidx_http_requests_total{method="GET",route="/v1/documents",code="405"} 1`,
		`simidx_http_requests_total{method="HEAD",route="/v1/documents",code="405"} 1`,
		`simidx_http_requests_total{method="POST",route="/v1/documents/{id}",code="405"} 1`,
		`simidx_http_requests_total{method="GET",route="/v1/documents/{id}",code="200"} 7`,
		`simidx_http_requests_total{method="HEAD",route="/v1/documents/{id}/similar",code="200"} 1`,
		`simidx_http_requests_total{method="GET",route="other",code="404"} 7`,
		`simidx_http_requests_total{method="POST",route="/",code="405"} 1`,
		`simidx_http_requests_total{method="other",route="other",code="404"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestIfUnique(t *testing.T) {
	db := filepath.Join(t.TempDir(), "u.db")
	// A group delay makes the concurrent adds below meet in one group, so
	// that they are checked against each other before any is committed.
	m := NewMetrics()
	x := openIndex(t, db, &index.Settings{MinHash: true}, index.LogOptions{GroupDelay: 20 * time.Millisecond}, m)
	u := startServer(t, x, &Options{Metrics: m}).url
	mit, jsonLic, apache := licenseText(t, "MIT.txt"), licenseText(t, "JSON.txt"), licenseText(t, "Apache-2.0.txt")
	mustDo(t, "POST", u+"/v1/documents?if_unique=true", docsJSON([2]string{"MIT", mit}), 200)

	// JSON is a near duplicate of MIT: refused, with the match.
	r := mustDo(t, "POST", u+"/v1/documents?if_unique=true", docsJSON([2]string{"JSON", jsonLic}), 409)
	got := r.json(t)
	if got["added"] != 0.0 || !strings.Contains(got["error"].(string), "1 of 1 document has near duplicates") {
		t.Errorf("409 answer: %s", r.body)
	}
	if !strings.Contains(r.body, `"duplicates":[{"id":"JSON","matches":[{"id":"MIT","distance":`) || !strings.Contains(r.body, `"similarity":`) {
		t.Errorf("409 answer: %s", r.body)
	}
	mustDo(t, "GET", u+"/v1/documents/JSON", "", 404)

	// With k=0 and no similarity threshold JSON is not a duplicate of MIT.
	mustDo(t, "POST", u+"/v1/documents?if_unique=true&k=0", docsJSON([2]string{"JSON", jsonLic}), 200)

	// Replacing a document by itself is not a duplicate of itself, while
	// the add of MIT waits in the journal and once the index holds it
	// (the index then answers alone).
	mustDo(t, "POST", u+"/v1/documents?if_unique=1&k=0", docsJSON([2]string{"MIT", mit}), 200)
	waitApplied(t, u)
	mustDo(t, "POST", u+"/v1/documents?if_unique=1&k=0", docsJSON([2]string{"MIT", mit + "\n"}), 200)
	waitApplied(t, u)
	mustDo(t, "POST", u+"/v1/documents?if_unique=1&k=0", docsJSON([2]string{"MIT", mit}), 200)

	// In one batch, a document is checked against those before it.
	r = mustDo(t, "POST", u+"/v1/documents?if_unique=true&min_similarity=0.9",
		docsJSON([2]string{"apache", apache}, [2]string{"apache-copy", apache + "\n"}), 409)
	if m := r.json(t); m["added"] != 1.0 || !strings.Contains(r.body, `{"id":"apache-copy","matches":[{"id":"apache","distance":0,"similarity":1,"exact":true}]}`) ||
		!strings.Contains(r.body, "1 of 2 documents have near duplicates and was not added") {
		t.Errorf("batch with a copy: %s", r.body)
	}
	mustDo(t, "GET", u+"/v1/documents/apache", "", 200)
	mustDo(t, "GET", u+"/v1/documents/apache-copy", "", 404)

	// A large batch whose second half copies its first, written
	// differently: each copy is refused, each original added. (The
	// index's group commit indexes each document of a group once: this
	// batch once took a time quadratic in its size.)
	const half = 1500
	rng := rand.New(rand.NewPCG(9, 10))
	var batch [][2]string
	for i := range half {
		ws := make([]string, 40)
		for j := range ws {
			ws[j] = fmt.Sprint("word", rng.IntN(100_000))
		}
		batch = append(batch, [2]string{fmt.Sprint("big", i), strings.Join(ws, " ")})
	}
	for i := range half {
		batch = append(batch, [2]string{fmt.Sprint("big-copy", i), strings.ToUpper(batch[i][1]) + "!"})
	}
	r = mustDo(t, "POST", u+"/v1/documents?if_unique=true", docsJSON(batch...), 409)
	var big struct {
		Added      int
		Duplicates []struct {
			ID      string
			Matches []struct{ ID string }
		}
	}
	if err := json.Unmarshal([]byte(r.body), &big); err != nil {
		t.Fatal(err)
	}
	if big.Added != half || len(big.Duplicates) != half {
		t.Fatalf("batch of %d texts and their copies: %d added, %d refused", half, big.Added, len(big.Duplicates))
	}
	for i, d := range big.Duplicates {
		if d.ID != fmt.Sprint("big-copy", i) || len(d.Matches) != 1 || d.Matches[0].ID != fmt.Sprint("big", i) {
			t.Fatalf("refused %s with matches %v, want big-copy%d matching big%d", d.ID, d.Matches, i, i)
		}
	}

	// Concurrent near-identical adds: exactly one is accepted.
	const n = 12
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() {
			// The same ad, written differently: one canonical text.
			text := []string{"Brand new bicycle for sale, hardly used, red frame. Call after six.",
				"BRAND NEW BICYCLE FOR SALE hardly used red frame; call after six!",
				"brand  new bicycle for sale -- hardly used, red frame... call after six"}[i%3]
			codes[i] = do(t, "POST", u+"/v1/documents?if_unique=true", "", docsJSON([2]string{fmt.Sprintf("bike%d", i), text})).status
		})
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		switch c {
		case 200:
			ok++
		case 409:
		default:
			t.Errorf("concurrent if_unique add: status %d", c)
		}
	}
	if ok != 1 {
		t.Errorf("%d of %d concurrent near-identical adds accepted, want 1 (statuses %v)", ok, n, codes)
	}
	if got := mustDo(t, "GET", u+"/metrics", "", 200).body; !strings.Contains(got, fmt.Sprintf("\nsimidx_documents_rejected_total %d\n", n-1+2+half)) {
		t.Errorf("rejected counter wrong:\n%s", got)
	}
}

func TestBadInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	x := openIndex(t, db, &index.Settings{MaxDistance: 2, NoMinHash: true}, index.LogOptions{}, nil)
	ts := startServer(t, x, &Options{MaxBody: 4096, MaxDocs: 3, MaxDocBytes: 1000, ReadTimeout: 500 * time.Millisecond})
	u := ts.url
	mustDo(t, "POST", u+"/v1/documents", `[{"id":"keep","text":"this document must survive every bad request"}]`, 200)
	long := strings.Repeat("x", index.MaxIDLen+1)
	for _, tc := range []struct {
		method, path, body string
		status             int
		msg                string
	}{
		{"POST", "/v1/documents", `[{"id":"a","text":"x"}`, 400, "the body ends before the closing ]"},
		{"POST", "/v1/documents", `[{"id":"a","text":"x"}, {"id":"b"`, 400, "the body ends in the middle of document 2"},
		{"POST", "/v1/documents", `[{"id":"a","text":"x"},]`, 400, "malformed JSON at line 1"},
		{"POST", "/v1/documents", "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\" \"text\":\"y\"}", 400, "malformed JSON at line 2"},
		{"POST", "/v1/documents", `[{"id":"a","text":"x"}] [`, 400, "malformed JSON"},
		{"POST", "/v1/documents", `hello`, 400, `the body starts with "h"`},
		{"POST", "/v1/documents", "\x01[]", 400, `the body starts with the byte 0x01`},
		{"POST", "/v1/documents", `[{"ID":"a","text":"x"}]`, 400, `document 1: missing "id"`},
		{"POST", "/v1/documents", `[{"id":"a","TEXT":"x"}]`, 400, `document 1 ("a"): missing "text"`},
		{"POST", "/v1/documents", `[{"id":"a\ud800","text":"x"}]`, 400, `document 1: "id" holds the lone UTF-16 surrogate \ud800`},
		{"POST", "/v1/documents", `[{"id":"\udc00\ud800","text":"x"}]`, 400, `document 1: "id" holds the lone UTF-16 surrogate \udc00`},
		{"POST", "/v1/documents", "[{\"id\":\"a\xff\",\"text\":\"x\"}]", 400, `document 1: "id" is not valid UTF-8`},
		{"POST", "/v1/documents", `[{"id":"a","text":null}]`, 400, `document 1 ("a"): missing "text"`},
		{"POST", "/v1/documents", `[{"id":null,"text":"x"}]`, 400, `document 1: missing "id"`},
		{"POST", "/v1/documents", `[[{"id":"a","text":"x"}]]`, 400, `document 1 must be a JSON object, not a JSON array`},
		{"POST", "/v1/documents", ``, 400, "empty body"},
		{"POST", "/v1/documents", `[]`, 400, "no documents in the body"},
		{"POST", "/v1/documents", `[1]`, 400, "document 1 must be a JSON object, not a JSON number"},
		{"POST", "/v1/documents", `[{"text":"x"}]`, 400, `document 1: missing "id"`},
		{"POST", "/v1/documents", `[{"id":"a","text":"x"},{"id":"","text":"x"}]`, 400, `document 2: empty "id"`},
		{"POST", "/v1/documents", `[{"id":true,"text":"x"}]`, 400, `document 1: "id" must be a string or a number, not true`},
		{"POST", "/v1/documents", `[{"id":"` + long + `","text":"x"}]`, 400, `document 1: "id" is 513 bytes, more than the limit of 512`},
		{"POST", "/v1/documents", `[{"id":"a"}]`, 400, `document 1 ("a"): missing "text"`},
		{"POST", "/v1/documents", `[{"id":"a","text":5}]`, 400, `document 1: field "text" must be a string, not a JSON number`},
		{"POST", "/v1/documents", `[{"id":"a","body":"y","url":"u"}]`, 400, `document 1 ("a"): missing "text"`},
		{"POST", "/v1/documents", `[{"id":"a","text":"` + strings.Repeat("y", 1001) + `"}]`, 413, `document 1 ("a"): text is 1001 bytes, more than the limit of 1000 (--max-doc-bytes)`},
		{"POST", "/v1/documents", `[{"id":"a","text":"` + strings.Repeat("y", 5000) + `"}]`, 413, "request body of 5022 bytes is over the limit of 4096 bytes (--max-body)"},
		{"POST", "/v1/documents", docsJSON([2]string{"a", "1"}, [2]string{"b", "2"}, [2]string{"c", "3"}, [2]string{"d", "4"}), 413, "more than 3 documents in one request (--max-docs)"},
		{"POST", "/v1/documents?if_unique=maybe", `[{"id":"a","text":"x"}]`, 400, `if_unique must be true or false, not "maybe"`},
		{"POST", "/v1/documents?k=1", `[{"id":"a","text":"x"}]`, 400, `query parameter "k" applies only with if_unique=true`},
		{"POST", "/v1/documents?if_unique=true&sync=1", `[{"id":"a","text":"x"}]`, 400, `unknown query parameter "sync"; this endpoint takes if_unique, k, min_similarity, verify, limit`},
		{"POST", "/v1/documents?a=%zz", `[{"id":"a","text":"x"}]`, 400, `malformed query string`},
		{"POST", "/v1/query?k=3", `{"text":"x"}`, 400, "k 3 is more than the 2 bits the index answers exactly"},
		{"POST", "/v1/query?k=-1", `{"text":"x"}`, 400, `k must be a whole number from 0 to 2, not "-1"`},
		{"POST", "/v1/query?k=1&k=2", `{"text":"x"}`, 400, `query parameter "k" given 2 times`},
		{"POST", "/v1/query?min_similarity=0.5", `{"text":"x"}`, 400, "min_similarity needs a similarity, and " + db + " was created without the MinHash layer"},
		{"POST", "/v1/query?verify=true", `{"text":"x"}`, 400, "verify needs the documents' shingle sets, and " + db + " was created without them"},
		{"POST", "/v1/query?verify=maybe", `{"text":"x"}`, 400, "verify must be true or false"},
		{"POST", "/v1/query?min_similarity=2", `{"text":"x"}`, 400, `min_similarity must be a number from 0 to 1, not "2"`},
		{"POST", "/v1/query?limit=many", `{"text":"x"}`, 400, `limit must be a whole number, 0 for all, not "many"`},
		{"POST", "/v1/query?max=1", `{"text":"x"}`, 400, `unknown query parameter "max"`},
		{"POST", "/v1/query", `{"text":"x"`, 400, "malformed JSON"},
		{"POST", "/v1/query", `{"text":"x",`, 400, "the body ends in the middle of the query"},
		{"POST", "/v1/query", `{"txt":"x"}`, 400, `unknown field "txt"`},
		{"POST", "/v1/query", `{"TEXT":"x"}`, 400, `unknown field "TEXT"; a query has "text" or "fingerprint"`},
		{"POST", "/v1/query", `{"text":5}`, 400, `field "text" must be a string, not a JSON number`},
		{"POST", "/v1/query", `{"fingerprint":123}`, 400, `field "fingerprint" must be a string, not a JSON number`},
		{"POST", "/v1/query", `[{"text":"x"}]`, 400, `the query must be a JSON object, {"text": "..."} or {"fingerprint": "HEX"}, not a JSON array`},
		{"POST", "/v1/query", `{"text":"x"} {}`, 400, "malformed JSON: more after the query object"},
		{"POST", "/v1/query?k=65", `{"text":"x"}`, 400, `k must be a whole number from 0 to 2, not "65"`},
		{"POST", "/v1/query", `{}`, 400, `missing "text" or "fingerprint"`},
		{"POST", "/v1/query", ``, 400, "empty body"},
		{"POST", "/v1/query", `{"text":"x","fingerprint":"1"}`, 400, `give "text" or "fingerprint", not both`},
		{"POST", "/v1/query", `{"fingerprint":"xyz"}`, 400, `"fingerprint" wants 1 to 16 hexadecimal digits, not "xyz"`},
		{"POST", "/v1/query", `{"text":"` + strings.Repeat("y", 1001) + `"}`, 413, "text is 1001 bytes, more than the limit of 1000"},
		{"GET", "/v1/documents/nope/similar", "", 404, `no document "nope" in the index`},
		{"GET", "/v1/documents/nope", "", 404, `no document "nope" in the index`},
		{"GET", "/v1/documents/keep?x=1", "", 400, `unknown query parameter "x"; this endpoint takes none`},
		{"GET", "/healthz?x=1", "", 400, `unknown query parameter "x"; this endpoint takes none`},
		{"GET", "/v1/documents/a/b/similar", "", 404, "a document ID with '/' is written %2F"},
		{"GET", "/v1/documents", "", 405, "method GET not allowed on /v1/documents; use POST"},
		{"PUT", "/v1/documents/keep", "", 405, "method PUT not allowed on /v1/documents/{id}; use GET, HEAD, DELETE"},
		{"DELETE", "/v1/documents/", "", 404, "no such endpoint: DELETE /v1/documents/; the document ID is missing"},
		{"POST", "/v1/stats", "", 405, "use GET, HEAD"},
		{"GET", "/v2/query", "", 404, "no such endpoint: GET /v2/query"},
		{"GET", "/favicon.ico", "", 404, "no such endpoint: GET /favicon.ico"},
		{"GET", "/?x=1", "", 400, `unknown query parameter "x"; this endpoint takes none`},
	} {
		r := do(t, tc.method, ts.url+tc.path, "", tc.body)
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(r.body), &e); err != nil || r.status != tc.status || !strings.Contains(e.Error, tc.msg) {
			t.Errorf("%s %s %.60q: got %d %s; want %d with %q", tc.method, tc.path, tc.body, r.status, strings.TrimSpace(r.body), tc.status, tc.msg)
		}
		if r.status == 405 && r.header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.path)
		}
	}
	// Media types are case-insensitive, and take parameters.
	if r := do(t, "POST", u+"/v1/query", "TEXT/Plain; charset=utf-8", "this document must survive every bad request"); r.status != 200 || !strings.Contains(r.body, `"id":"keep"`) {
		t.Errorf("query as TEXT/Plain: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", u+"/v1/query", "text/plainer", `{"text":"this document must survive every bad request"}`); r.status != 200 || !strings.Contains(r.body, `"id":"keep"`) {
		t.Errorf("query as text/plainer, read as JSON: %d %s", r.status, r.body)
	}
	// Bodies as no Go client sends them: shorter than their length, and
	// chunked (of no announced length), within and over MaxBody.
	host := strings.TrimPrefix(u, "http://")
	chunked := func(body string) string {
		return fmt.Sprintf("POST /v1/query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	}
	short := "POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"text\":\"short\"}"
	for _, tc := range []struct {
		raw    string
		stall  bool // the client keeps the connection open, sending no more
		status int
		msg    string
	}{
		{short, false, 400, "reading the request body: unexpected EOF"},
		{short, true, 400, "i/o timeout"}, // after ReadTimeout
		{chunked(`{"text":"this document must survive every bad request"}`), false, 200, ""},
		{chunked(`{"text":"` + strings.Repeat("y", 5000) + `"}`), false, 413, "request body is over the limit of 4096 bytes (--max-body)"},
	} {
		status, body := rawRequest(t, host, tc.raw, tc.stall)
		var e struct{ Error string }
		json.Unmarshal([]byte(body), &e)
		if status != tc.status || !strings.Contains(e.Error, tc.msg) {
			t.Errorf("%.70q: got %d %s; want %d with %q", tc.raw, status, strings.TrimSpace(body), tc.status, tc.msg)
		}
	}
	// Nothing was lost or added, and the server still answers.
	r := mustDo(t, "GET", u+"/healthz", "", 200)
	if strings.TrimSpace(r.body) != `{"documents":1,"status":"ok"}` {
		t.Errorf("after bad requests: %s", r.body)
	}
	mustDo(t, "GET", u+"/v1/documents/keep", "", 200)
	// A body may start with a byte order mark.
	mustDo(t, "POST", u+"/v1/documents", "\xef\xbb\xbf[{\"id\":\"bom\",\"text\":\"after a byte order mark\"}]", 200)
	mustDo(t, "POST", u+"/v1/query", "\xef\xbb\xbf{\"fingerprint\":\"1\"}", 200)
	mustDo(t, "GET", u+"/v1/documents/bom", "", 200)
}

// rawRequest sends raw, an HTTP/1.1 request, to addr on a connection of
// its own, closes the connection's sending side unless stall, and returns
// the answer's status and body.
func rawRequest(t *testing.T, addr, raw string, stall bool) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	if !stall {
		c.(*net.TCPConn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", raw, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestConcurrent runs clients that add and query at once.
func TestConcurrent(t *testing.T) {
	m := NewMetrics()
	x := openIndex(t, filepath.Join(t.TempDir(), "c.db"), nil, index.LogOptions{GroupDelay: time.Millisecond}, m)
	hs := httptest.NewServer(must(New(x, &Options{Metrics: m})))
	defer hs.Close()
	u := hs.URL
	const clients, each = 8, 25
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("c%d-%d", c, i)
				text := fmt.Sprintf("client %d document %d with some words of its own: %d %d %d", c, i, c*7919+i, i*i, c)
				r := do(t, "POST", u+"/v1/documents", "", docsJSON([2]string{id, text}))
				if r.status != 200 {
					t.Errorf("add %s: %d %s", id, r.status, r.body)
					return
				}
				// The document is visible as soon as its add is answered.
				q, _ := json.Marshal(map[string]string{"text": text})
				r = do(t, "POST", u+"/v1/query?k=0", "", string(q))
				if r.status != 200 || !strings.Contains(r.body, `"id":"`+id+`"`) {
					t.Errorf("query after add %s: %d %s", id, r.status, r.body)
				}
				if i%10 == 0 {
					do(t, "GET", u+"/metrics", "", "")
				}
			}
		})
	}
	wg.Wait()
	r := mustDo(t, "GET", u+"/healthz", "", 200)
	if want := fmt.Sprintf(`{"documents":%d,"status":"ok"}`, clients*each); strings.TrimSpace(r.body) != want {
		t.Errorf("healthz %s, want %s", r.body, want)
	}
	met := mustDo(t, "GET", u+"/metrics", "", 200).body
	if !strings.Contains(met, "simidx_commits_total") || strings.Contains(met, "\nsimidx_commits_total 0\n") {
		t.Errorf("metrics:\n%s", met)
	}
	if !strings.Contains(met, fmt.Sprintf("\nsimidx_documents_added_total %d\n", clients*each)) {
		t.Errorf("metrics:\n%s", met)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestRecordsAndVerify checks that a corpus's records are added as they
// are (other fields ignored, the ID and text fields named by IDField and
// TextField), and that verify=true answers the exact similarity of the
// shingle sets, on an index that keeps them.
func TestRecordsAndVerify(t *testing.T) {
	x := openIndex(t, filepath.Join(t.TempDir(), "v.db"), &index.Settings{StoreShingles: true}, index.LogOptions{}, nil)
	hs := httptest.NewServer(must(New(x, &Options{IDField: "url", TextField: "body"})))
	defer hs.Close()
	u := hs.URL
	mit := []byte(licenseText(t, "MIT.txt"))
	edited := strings.Replace(string(mit), "Permission", "Leave", 1)
	recs := []map[string]any{
		{"url": "a", "body": string(mit), "lang": "en", "meta": map[string]any{"n": 1}},
		{"url": "b", "body": edited, "id": "ignored", "text": "ignored too"},
	}
	var body strings.Builder
	for _, r := range recs {
		b, _ := json.Marshal(r)
		body.Write(append(b, '\n'))
	}
	if r := mustDo(t, "POST", u+"/v1/documents", body.String(), 200); strings.TrimSpace(r.body) != `{"added":2}` {
		t.Fatalf("add records: %s", r.body)
	}
	mustDo(t, "POST", u+"/v1/documents", `{"id":"c","text":"x"}`, 400) // the fields are url and body
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := slices.Clone(f.Shingles(mit))
	jac := shingle.Jaccard(a, f.Shingles([]byte(edited)))
	q, _ := json.Marshal(map[string]string{"text": string(mit)})
	r := mustDo(t, "POST", u+"/v1/query?verify=true", string(q), 200)
	want := fmt.Sprintf(`{"matches":[{"id":"a","distance":0,"similarity":1,"exact":true},{"id":"b","distance":%d,"similarity":%v,"exact":false}]}`,
		bits.OnesCount64(f.Sum64(mit)^f.Sum64([]byte(edited))), *similarity(jac))
	if strings.TrimSpace(r.body) != want {
		t.Errorf("verified query:\n got %s\nwant %s", r.body, want)
	}
	r = mustDo(t, "GET", u+"/v1/documents/a/similar?verify=true&min_similarity=0.99", "", 200)
	if strings.TrimSpace(r.body) != `{"id":"a","matches":[]}` {
		t.Errorf("verified similar above the exact similarity %v: %s", jac, r.body)
	}
}

// TestPendingAgreesWithIndex checks that queries answered partly from
// pending documents (logged, not yet in the index file) give exactly what
// index.Query gives on an index holding the same documents, for several
// index settings and query options.
func TestPendingAgreesWithIndex(t *testing.T) {
	ents, err := os.ReadDir(licenses)
	if err != nil {
		t.Fatal(err)
	}
	var docs []index.Doc
	for i, e := range ents {
		b, _ := os.ReadFile(filepath.Join(licenses, e.Name()))
		docs = append(docs, index.Doc{ID: e.Name(), Text: b})
		if i%5 == 0 {
			docs = append(docs, index.Doc{ID: e.Name() + "-copy", Text: b})
		}
	}
	for _, tc := range []struct {
		name   string
		s      index.Settings
		params []string
	}{
		{"simhash", index.Settings{NoMinHash: true}, []string{"", "?k=1", "?limit=2"}},
		{"default (minhash)", index.Settings{}, []string{"", "?k=1", "?min_similarity=0", "?min_similarity=0.4", "?min_similarity=0.8&limit=1"}},
		{"nshash", index.Settings{Text: index.TextSettings{Method: index.MethodNshash}}, []string{"", "?k=2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// The reference: every document, committed.
			ref, err := index.Open(filepath.Join(dir, "ref.db"), &index.Options{Settings: &tc.s, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			defer ref.Close()
			if err := ref.Add(docs...); err != nil {
				t.Fatal(err)
			}
			// The server: half committed before it starts, half logged
			// (never applied while the test runs), some replaced by an
			// unrelated text first and then restored.
			db := filepath.Join(dir, "s.db")
			x, err := index.Open(db, &index.Options{Settings: &tc.s, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			half := len(docs) / 2
			x.Add(docs[:half]...)
			x.Add(index.Doc{ID: "removed", Text: []byte("a stored document deleted through the server")})
			x.Close()
			x = openIndex(t, db, nil, index.LogOptions{ApplyInterval: time.Hour}, nil)
			s := must(New(x, nil))
			hs := httptest.NewServer(s)
			defer hs.Close()
			u := hs.URL
			for i, d := range docs[half:] {
				if i%7 == 0 {
					mustDo(t, "POST", u+"/v1/documents", docsJSON([2]string{d.ID, "something else entirely for a while"}), 200)
				}
				mustDo(t, "POST", u+"/v1/documents", docsJSON([2]string{d.ID, string(d.Text)}), 200)
			}
			mustDo(t, "DELETE", u+"/v1/documents/removed", "", 200)
			if x.LogStats().Pending == 0 {
				t.Fatalf("nothing pending: the test would not exercise the pending documents")
			}
			minHash := ref.Settings().MinHash || ref.Settings().Text.Method.IsSet() // a similarity is reported
			for _, p := range tc.params {
				req := httptest.NewRequest("GET", "/"+p, nil)
				opts, err := s.queryOptions(must(params(req, "k", "min_similarity", "limit")))
				if err != nil {
					t.Fatal(err)
				}
				for i, d := range docs {
					want, err := ref.Query(d.Text, &opts)
					if err != nil {
						t.Fatal(err)
					}
					q, _ := json.Marshal(map[string]string{"text": string(d.Text)})
					r := mustDo(t, "POST", u+"/v1/query"+p, string(q), 200)
					wantBody, _ := json.Marshal(map[string]any{"matches": matchRecords(want, minHash, true)})
					if strings.TrimSpace(r.body) != string(wantBody) {
						t.Fatalf("query%s %s:\n got %s\nwant %s", p, d.ID, r.body, wantBody)
					}
					if i%3 != 0 {
						continue
					}
					want, err = ref.QueryID(d.ID, &opts)
					if err != nil {
						t.Fatal(err)
					}
					r = mustDo(t, "GET", u+"/v1/documents/"+d.ID+"/similar"+p, "", 200)
					wantBody, _ = json.Marshal(map[string]any{"id": d.ID, "matches": matchRecords(want, minHash, true)})
					if strings.TrimSpace(r.body) != string(wantBody) {
						t.Fatalf("similar%s %s:\n got %s\nwant %s", p, d.ID, r.body, wantBody)
					}
				}
			}
			// if_unique sees pending documents: a copy of each is refused.
			for _, d := range slices.Clip(docs[half:])[:5] {
				mustDo(t, "POST", u+"/v1/documents?if_unique=true", docsJSON([2]string{d.ID + "-again", string(d.Text)}), 409)
			}
		})
	}
}

// serveOn serves s on a loopback port until ctx is cancelled, and returns
// its address and a channel that receives what Serve returns.
func serveOn(t *testing.T, ctx context.Context, s *Server) (addr string, served chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served = make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	return ln.Addr().String(), served
}

// TestShutdown checks Serve's graceful shutdown: a request in flight when
// the context is cancelled is answered and Serve returns nil; a request
// still running after ShutdownTimeout is cut off, and Serve says so.
func TestShutdown(t *testing.T) {
	dir := t.TempDir()
	// A group delay keeps the add in flight while the context is
	// cancelled.
	x := openIndex(t, filepath.Join(dir, "g.db"), nil, index.LogOptions{GroupDelay: 300 * time.Millisecond}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	s := must(New(x, nil))
	addr, served := serveOn(t, ctx, s)
	answered := make(chan response, 1)
	go func() {
		answered <- do(t, "POST", "http://"+addr+"/v1/documents", "", docsJSON([2]string{"inflight", "sent just before the shutdown"}))
	}()
	// The request is in its handler, which Shutdown waits for (the
	// server's first read of the connection comes before http.Server
	// counts it active).
	waitFor(t, func() bool { return s.met.inFlight.Load() >= 1 })
	cancel()
	if r := <-answered; r.status != 200 || strings.TrimSpace(r.body) != `{"added":1}` {
		t.Errorf("request in flight at the shutdown: %d %s", r.status, r.body)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := x.Get("inflight"); err != nil {
		t.Error(err)
	}

	// A client that stalls in the middle of its body holds its request
	// past a short ShutdownTimeout.
	x = openIndex(t, filepath.Join(dir, "t.db"), nil, index.LogOptions{}, nil)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	s = must(New(x, &Options{ShutdownTimeout: 100 * time.Millisecond}))
	addr, served = serveOn(t, ctx, s)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"text\":")
	waitFor(t, func() bool { return s.met.inFlight.Load() >= 1 }) // in its handler, reading the body
	start := time.Now()
	cancel()
	if err := <-served; err == nil || !strings.Contains(err.Error(), "requests still running after 100ms were cut off") {
		t.Errorf("Serve with a stalled request: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("shutdown took %s", d)
	}
}

// TestListenAndServe checks that ListenAndServe tells the address it
// listens on, serves, and returns nil once its context is cancelled; and
// that the errors of listening and serving are returned.
func TestListenAndServe(t *testing.T) {
	x := openIndex(t, filepath.Join(t.TempDir(), "l.db"), nil, index.LogOptions{}, nil)
	s := must(New(x, nil))
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- s.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrs <- a }) }()
	a := <-addrs
	if r := mustDo(t, "GET", "http://"+a.String()+"/healthz", "", 200); strings.TrimSpace(r.body) != `{"documents":0,"status":"ok"}` {
		t.Errorf("healthz: %s", r.body)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("ListenAndServe: %v", err)
	}
	if err := s.ListenAndServe(context.Background(), "256.0.0.1:0", nil); err == nil || !strings.HasPrefix(err.Error(), "cannot listen on 256.0.0.1:0: ") {
		t.Errorf("listening on a bad address: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := s.Serve(context.Background(), ln); err == nil || !strings.HasPrefix(err.Error(), "serving on "+ln.Addr().String()+": ") {
		t.Errorf("serving on a closed listener: %v", err)
	}
}

// TestOptions checks the defaults of Options and the refusal of values
// out of range.
func TestOptions(t *testing.T) {
	x := openIndex(t, filepath.Join(t.TempDir(), "o.db"), nil, index.LogOptions{}, nil)
	s, err := New(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Options{IDField: "id", TextField: "text", MaxBody: DefaultMaxBody, MaxDocs: DefaultMaxDocs, MaxDocBytes: DefaultMaxDocBytes,
		ReadTimeout: DefaultReadTimeout, WriteTimeout: DefaultWriteTimeout, MaxHeaderBytes: DefaultMaxHeaderBytes,
		MaxBodyInFlight: 4 * DefaultMaxBody, MaxConnections: s.opts.MaxConnections, ShutdownTimeout: DefaultShutdownTimeout, Metrics: s.met}
	if n := openFilesLimit(); n > 0 && s.opts.MaxConnections != max(n-reservedFiles, 16) || n == 0 && s.opts.MaxConnections != 4096 {
		t.Errorf("MaxConnections %d with a limit of %d open files", s.opts.MaxConnections, n)
	}
	if s.opts != want || s.met == nil {
		t.Errorf("defaults %+v, want %+v", s.opts, want)
	}
	if s := must(New(x, &Options{ReadTimeout: -1})); s.opts.ReadTimeout != -1 {
		t.Errorf("ReadTimeout -1 became %s", s.opts.ReadTimeout)
	}
	for _, o := range []Options{{MaxBody: -1}, {MaxDocs: -1}, {MaxDocBytes: -1}, {MaxDocBytes: index.MaxDocSize + 1}, {ShutdownTimeout: -1},
		{MaxBodyInFlight: -1}, {MaxConnections: -1}, {MaxHeaderBytes: -1}, {MaxBody: 1000, MaxBodyInFlight: 999}} {
		if _, err := New(x, &o); err == nil {
			t.Errorf("New with %+v: no error", o)
		}
	}
}
