package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is a simidx serve running in this process through run.
type testServer struct {
	url    string
	stderr *syncBuffer
	stop   func() int // cancels the command's context and returns the exit status
}

// listenURL waits for the "listening on" line in the output and returns
// the URL it names.
func listenURL(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, "listening on ")
	if !ok {
		return "", false
	}
	u, _, _ := strings.Cut(rest, " ")
	return u, true
}

// startServer runs simidx serve --db db on a free loopback port.
func startServer(t *testing.T, db string, flags ...string) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{stderr: &syncBuffer{}}
	exited := make(chan int, 1)
	args := append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, flags...)
	go func() { exited <- run(ctx, args, strings.NewReader(""), io.Discard, ts.stderr) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if u, ok := listenURL(ts.stderr.String()); ok {
			ts.url = u
			break
		}
		select {
		case code := <-exited:
			cancel()
			t.Fatalf("simidx serve exited %d:\n%s", code, ts.stderr)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("simidx serve did not start:\n%s", ts.stderr)
		}
	}
	var once sync.Once
	code := 0
	ts.stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-exited:
			case <-time.After(20 * time.Second):
				t.Errorf("simidx serve did not stop:\n%s", ts.stderr)
				code = -1
			}
		})
		return code
	}
	t.Cleanup(func() { ts.stop() })
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
	b, err := os.ReadFile(testdataFile(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitApplied waits until the server at u has committed its journal to
// the index: no operation pending.
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

func TestServeAPI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	ts := startServer(t, db)
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
	if st["docs"] != 3.0 || st["max_distance"] != 3.0 || st["path"] != db {
		t.Errorf("stats: %v", st)
	}
	// The object of simidx stats: the text settings by name.
	if text, _ := st["text"].(map[string]any); text["features"] != "units+pairs" || st["store_shingles"] != false || st["empty"] != 0.0 {
		t.Errorf("stats text settings: %v", st)
	}

	m := mustDo(t, "GET", u+"/metrics", "", 200).body
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
		"# TYPE go_sched_latencies_seconds histogram",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}

	if code := ts.stop(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, ts.stderr)
	}
	if !strings.Contains(ts.stderr.String(), "closed with 3 documents") {
		t.Errorf("stderr: %s", ts.stderr)
	}
	x, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Len() != 3 {
		t.Errorf("%d documents after shutdown, want 3", x.Len())
	}
	if err := x.Check(); err != nil {
		t.Error(err)
	}
}

func TestServeIfUnique(t *testing.T) {
	db := filepath.Join(t.TempDir(), "u.db")
	// A group delay makes the concurrent adds below meet in one group, so
	// that they are checked against each other before any is committed.
	ts := startServer(t, db, "--minhash", "--group-delay", "20ms")
	u := ts.url
	mit, jsonLic, apache := licenseText(t, "MIT.txt"), licenseText(t, "JSON.txt"), licenseText(t, "Apache-2.0.txt")
	mustDo(t, "POST", u+"/v1/documents?if_unique=true", docsJSON([2]string{"MIT", mit}), 200)

	// JSON is a near duplicate of MIT: refused, with the match.
	r := mustDo(t, "POST", u+"/v1/documents?if_unique=true", docsJSON([2]string{"JSON", jsonLic}), 409)
	m := r.json(t)
	if m["added"] != 0.0 || !strings.Contains(m["error"].(string), "1 of 1 document has near duplicates") {
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
	if m := r.json(t); m["added"] != 1.0 || !strings.Contains(r.body, `{"id":"apache-copy","matches":[{"id":"apache","distance":0,"similarity":1,"exact":true}]}`) {
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

func TestServeBadInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	ts := startServer(t, db, "--max-body", "4096", "--max-docs", "3", "--max-doc-bytes", "1000", "-k", "2", "--no-minhash", "--read-timeout", "500ms")
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
		{"POST", "/v1/documents", `[{"id":"a","text":"` + strings.Repeat("y", 5000) + `"}]`, 413, "request body is over the limit of 4096 bytes (--max-body)"},
		{"POST", "/v1/documents", docsJSON([2]string{"a", "1"}, [2]string{"b", "2"}, [2]string{"c", "3"}, [2]string{"d", "4"}), 413, "more than 3 documents in one request (--max-docs)"},
		{"POST", "/v1/documents?if_unique=maybe", `[{"id":"a","text":"x"}]`, 400, `if_unique must be true or false, not "maybe"`},
		{"POST", "/v1/documents?k=1", `[{"id":"a","text":"x"}]`, 400, `query parameter "k" applies only with if_unique=true`},
		{"POST", "/v1/documents?if_unique=true&sync=1", `[{"id":"a","text":"x"}]`, 400, `unknown query parameter "sync"; this endpoint takes if_unique, k, min_similarity, verify, limit`},
		{"POST", "/v1/query?k=3", `{"text":"x"}`, 400, "k 3 is more than the 2 bits the index answers exactly"},
		{"POST", "/v1/query?k=-1", `{"text":"x"}`, 400, `k must be a whole number from 0 to 2, not "-1"`},
		{"POST", "/v1/query?k=1&k=2", `{"text":"x"}`, 400, `query parameter "k" given 2 times`},
		{"POST", "/v1/query?min_similarity=0.5", `{"text":"x"}`, 400, "min_similarity needs a similarity"},
		{"POST", "/v1/query?verify=true", `{"text":"x"}`, 400, "verify needs the documents' shingle sets"},
		{"POST", "/v1/query?verify=maybe", `{"text":"x"}`, 400, "verify must be true or false"},
		{"POST", "/v1/query?min_similarity=2", `{"text":"x"}`, 400, `min_similarity must be a number from 0 to 1, not "2"`},
		{"POST", "/v1/query?limit=many", `{"text":"x"}`, 400, `limit must be a whole number, 0 for all, not "many"`},
		{"POST", "/v1/query?max=1", `{"text":"x"}`, 400, `unknown query parameter "max"`},
		{"POST", "/v1/query", `{"text":"x"`, 400, "malformed JSON"},
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
		{"GET", "/v1/documents/a/b/similar", "", 404, "a document ID with '/' is written %2F"},
		{"GET", "/v1/documents", "", 405, "method GET not allowed on /v1/documents; use POST"},
		{"PUT", "/v1/documents/keep", "", 405, "method PUT not allowed on /v1/documents/{id}; use GET, HEAD, DELETE"},
		{"DELETE", "/v1/documents/", "", 404, "no such endpoint: DELETE /v1/documents/; the document ID is missing"},
		{"POST", "/v1/stats", "", 405, "use GET, HEAD"},
		{"GET", "/v2/query", "", 404, "no such endpoint: GET /v2/query"},
		{"GET", "/", "", 404, "no such endpoint: GET /"},
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
	// HEAD is answered wherever GET is, without a body.
	for _, path := range []string{"/v1/documents/keep", "/v1/documents/keep/similar", "/v1/stats", "/healthz", "/metrics"} {
		if r := do(t, "HEAD", u+path, "", ""); r.status != 200 || r.body != "" {
			t.Errorf("HEAD %s: %d %q", path, r.status, r.body)
		}
	}
	// Bodies as no Go client sends them: shorter than their length, and
	// chunked (of no announced length), within and over --max-body.
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
		{short, true, 400, "i/o timeout"}, // after --read-timeout
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

// TestServeConcurrent runs clients that add and query at once.
func TestServeConcurrent(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	ts := startServer(t, db, "--no-sync", "--group-delay", "1ms")
	u := ts.url
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
	m := mustDo(t, "GET", u+"/metrics", "", 200).body
	if !strings.Contains(m, "simidx_commits_total") {
		t.Errorf("metrics:\n%s", m)
	}
}

// binaryServer is simidx serve running as a process.
type binaryServer struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	exited chan error
}

// startBinary starts the built simidx serve on a free loopback port.
func startBinary(t *testing.T, db string, flags ...string) *binaryServer {
	t.Helper()
	args := append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, flags...)
	cmd := exec.Command(simidxBin, args...)
	pr, pw := io.Pipe()
	bs := &binaryServer{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The exit is reported once every line of stderr is in bs.stderr: a
	// test that reads it after wait sees the last line.
	scanned := make(chan struct{})
	go func() {
		err := cmd.Wait()
		pw.Close()
		<-scanned
		bs.exited <- err
	}()
	urls := make(chan string, 1)
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			bs.stderr.Write(append(sc.Bytes(), '\n'))
			if u, ok := listenURL(sc.Text()); ok {
				urls <- u
			}
		}
		io.Copy(io.Discard, pr) // after a line too long for the scanner
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
	})
	select {
	case bs.url = <-urls:
	case <-time.After(10 * time.Second):
		t.Fatalf("simidx serve did not start:\n%s", bs.stderr)
	}
	return bs
}

// wait returns the exit status of the process.
func (b *binaryServer) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-b.exited:
		if err == nil {
			return 0
		}
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return -int(ws.Signal())
			}
			return ee.ExitCode()
		}
		t.Fatal(err)
	case <-time.After(20 * time.Second):
		t.Fatalf("simidx serve did not exit:\n%s", b.stderr)
	}
	return 0
}

// TestServeKill checks that an add answered 200 survives SIGKILL right
// after the answer.
func TestServeKill(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	bs := startBinary(t, db)
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{"first", "the first document, added before anything else"}), 200)
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{"durable", "acknowledged and then killed at once"}), 200)
	bs.cmd.Process.Signal(syscall.SIGKILL)
	if code := bs.wait(t); code != -int(syscall.SIGKILL) {
		t.Fatalf("exit %d, want killed", code)
	}
	bs = startBinary(t, db)
	for _, id := range []string{"first", "durable"} {
		r := mustDo(t, "GET", bs.url+"/v1/documents/"+id, "", 200)
		if !strings.Contains(r.body, `"id":"`+id+`"`) {
			t.Errorf("after restart: %s", r.body)
		}
	}
	r := mustDo(t, "POST", bs.url+"/v1/query?k=0", `{"text":"Acknowledged, and then KILLED at once."}`, 200)
	if strings.TrimSpace(r.body) != `{"matches":[{"id":"durable","distance":0,"similarity":1,"exact":true}]}` {
		t.Errorf("query after restart: %s", r.body)
	}
	bs.cmd.Process.Signal(syscall.SIGTERM)
	if code := bs.wait(t); code != 0 {
		t.Errorf("exit %d after SIGTERM:\n%s", code, bs.stderr)
	}
}

// TestServeSIGTERM checks the graceful shutdown: a request in flight when
// SIGTERM arrives is answered and committed, then the process exits 0 and
// the index is closed cleanly.
func TestServeSIGTERM(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	// A long group delay keeps the add in flight while the signal arrives.
	bs := startBinary(t, db, "--group-delay", "1500ms")
	answered := make(chan response, 1)
	go func() {
		answered <- do(t, "POST", bs.url+"/v1/documents", "", docsJSON([2]string{"inflight", "sent just before the signal"}))
	}()
	// Wait until the request is being handled: it is waiting for its group
	// commit.
	time.Sleep(400 * time.Millisecond)
	start := time.Now()
	if err := bs.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-answered
	if r.status != 200 || strings.TrimSpace(r.body) != `{"added":1}` {
		t.Errorf("request in flight at SIGTERM: %d %s", r.status, r.body)
	}
	if code := bs.wait(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, bs.stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	if !strings.Contains(bs.stderr.String(), "closed with 1 documents") {
		t.Errorf("stderr:\n%s", bs.stderr)
	}
	// The index was closed: a writer can open it at once, and it holds the
	// document.
	x, err := index.Open(db, &index.Options{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Get("inflight"); err != nil {
		t.Error(err)
	}
	if err := x.Check(); err != nil {
		t.Error(err)
	}
	// Nothing listens any more.
	if _, err := http.Get(bs.url + "/healthz"); err == nil {
		t.Error("the server still answers after SIGTERM")
	}
}

// TestServeUsage checks the command-line errors of serve.
func TestServeUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"serve"}, 2, "--db PATH is required"},
		{[]string{"serve", "--db", "x.db", "extra"}, 2, "serve takes no arguments"},
		{[]string{"serve", "--db", "x.db", "--max-docs", "0"}, 2, "--max-docs must be positive"},
		{[]string{"serve", "--db", filepath.Join(t.TempDir(), "x.db"), "--addr", "256.0.0.1:0"}, 1, "cannot listen on 256.0.0.1:0"},
	} {
		r := simidx(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("simidx %q: want exit %d with %q, got %v", tc.args, tc.code, tc.msg, r)
		}
	}
}

// TestServeRecordsAndVerify checks that a corpus's records are added as
// they are (other fields ignored, the ID and text fields named by
// --id-field and --text-field), and that verify=true answers the exact
// similarity of the shingle sets, on an index that keeps them.
func TestServeRecordsAndVerify(t *testing.T) {
	db := filepath.Join(t.TempDir(), "v.db")
	s := startServer(t, db, "--store-shingles", "--id-field", "url", "--text-field", "body")
	u := s.url
	mit, err := os.ReadFile(testdataFile("MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
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
		popcount(f.Sum64(mit)^f.Sum64([]byte(edited))), *similarity(jac))
	if strings.TrimSpace(r.body) != want {
		t.Errorf("verified query:\n got %s\nwant %s", r.body, want)
	}
	r = mustDo(t, "GET", u+"/v1/documents/a/similar?verify=true&min_similarity=0.99", "", 200)
	if strings.TrimSpace(r.body) != `{"id":"a","matches":[]}` {
		t.Errorf("verified similar above the exact similarity %v: %s", jac, r.body)
	}
}

func popcount(v uint64) int { return bits.OnesCount64(v) }

// TestServeIndexFailed truncates the index under a running server: the
// request that meets the damage and every later one are answered 503
// with the reason, /healthz says the index failed, and SIGTERM stops the
// server within its shutdown timeout.
func TestServeIndexFailed(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tr.db")
	bs := startBinary(t, db, "--shutdown-timeout", "5s")
	mustDo(t, "POST", bs.url+"/v1/documents", docsJSON([2]string{"a", "alpha beta gamma delta epsilon zeta eta theta"}), 200)
	waitApplied(t, bs.url)
	if err := os.Truncate(db, 0); err != nil {
		t.Fatal(err)
	}
	// The first request to read the file meets the damage; it and all
	// after it are 503 with the reason.
	for range 3 {
		r := do(t, "GET", bs.url+"/v1/documents/a/similar", "", "")
		if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "the index failed") {
			t.Fatalf("a request on a truncated index: %d %s", r.status, r.body)
		}
	}
	r := do(t, "GET", bs.url+"/healthz", "", "")
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, `"status":"failed"`) {
		t.Errorf("healthz of a failed index: %d %s", r.status, r.body)
	}
	bs.cmd.Process.Signal(syscall.SIGTERM)
	bs.wait(t) // fails the test if the server does not stop
}
