package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
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

// TestServeCommand runs simidx serve in this process: its flags reach the
// server (the ID and text fields, the limits) and the index's write-ahead
// log (whose commits and applies the metrics count), /v1/stats answers the
// object of simidx stats, and a stop closes the index with every document
// and says so.
// waitMetrics waits until the metrics of the server at u hold want, and
// returns them.
func waitMetrics(t *testing.T, u, want string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := mustDo(t, "GET", u+"/metrics", "", 200).body
		if strings.Contains(m, want) {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %q after 10 s:\n%s", want, m)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServeCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	ts := startServer(t, db, "-k", "2", "--id-field", "url", "--text-field", "body", "--max-docs", "2", "--max-body", "4096",
		"--max-doc-bytes", "1000", "--group-delay", "1ms", "--apply-interval", "10ms")
	u := ts.url
	if want := fmt.Sprintf("simidx serve: listening on %s (%s, 0 documents)\n", u, db); ts.stderr.String() != want {
		t.Errorf("stderr %q, want %q", ts.stderr, want)
	}
	mit := licenseText(t, "MIT.txt")
	body, _ := json.Marshal([]map[string]string{{"url": "MIT", "body": mit[:900]}, {"url": "short", "body": "a short text"}})
	if r := mustDo(t, "POST", u+"/v1/documents", string(body), 200); strings.TrimSpace(r.body) != `{"added":2}` {
		t.Errorf("add: %s", r.body)
	}
	for _, tc := range []struct {
		path, body string
		status     int
		msg        string
	}{
		{"/v1/documents", `[{"id":"a","text":"x"}]`, 400, `document 1: missing "id"`},
		{"/v1/documents", `[{"url":"a","body":"1"},{"url":"b","body":"2"},{"url":"c","body":"3"}]`, 413, "more than 2 documents in one request (--max-docs)"},
		{"/v1/documents", `[{"url":"a","body":"` + strings.Repeat("y", 1001) + `"}]`, 413, "more than the limit of 1000 (--max-doc-bytes)"},
		{"/v1/documents", `[{"url":"a","body":"` + strings.Repeat("y", 5000) + `"}]`, 413, "over the limit of 4096 bytes (--max-body)"},
		{"/v1/query?k=3", `{"text":"x"}`, 400, "k 3 is more than the 2 bits the index answers exactly"},
	} {
		r := do(t, "POST", u+tc.path, "", tc.body)
		if e, _ := r.json(t)["error"].(string); r.status != tc.status || !strings.Contains(e, tc.msg) {
			t.Errorf("POST %s %.40q: %d %s; want %d with %q", tc.path, tc.body, r.status, r.body, tc.status, tc.msg)
		}
	}
	// The index tells of an apply after it has taken the operations off
	// its pending ones.
	m := waitMetrics(t, u, "\nsimidx_applied_operations_total 2\n")
	for _, want := range []string{"\nsimidx_documents_added_total 2\n", "\nsimidx_commits_total ", "\nsimidx_journal_pending_operations 0\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}
	st := mustDo(t, "GET", u+"/v1/stats", "", 200).json(t)

	if code := ts.stop(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, ts.stderr)
	}
	if want := fmt.Sprintf("simidx serve: stopped; %s closed with 2 documents\n", db); !strings.HasSuffix(ts.stderr.String(), want) {
		t.Errorf("stderr %q, want it to end with %q", ts.stderr, want)
	}
	// /v1/stats is the object of simidx stats --format jsonl, with the
	// operations pending and the server's copy of the tables (which
	// simidx stats, keeping none, leaves out), and without the buckets'
	// sizes, which cost a read of the whole file.
	var want map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "", "stats", "--format", "jsonl", "--db", db).stdout), &want); err != nil {
		t.Fatal(err)
	}
	for k := range want {
		if _, ok := st[k]; !ok && k != "buckets" {
			t.Errorf("/v1/stats lacks %q of simidx stats: %v", k, st)
		}
	}
	for k := range st {
		if _, ok := want[k]; !ok && k != "journal_pending" && !strings.HasPrefix(k, "table_mirror_") {
			t.Errorf("/v1/stats has %q, which simidx stats has not: %v", k, want)
		}
	}
	for _, k := range []string{"path", "docs", "max_distance", "text", "store_shingles", "minhash"} {
		if !reflect.DeepEqual(st[k], want[k]) {
			t.Errorf("/v1/stats %s = %v, simidx stats %v", k, st[k], want[k])
		}
	}
	x, err := index.Open(db, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Len() != 2 {
		t.Errorf("%d documents after the stop, want 2", x.Len())
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
	// Wait until the request is being handled (it waits for its group
	// commit): two requests in flight, the add and the one that asks.
	waitInFlight(t, bs.url, 2)
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
	if d := time.Since(start); d > time.Minute { // only catches a hang past --shutdown-timeout
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

// waitInFlight waits until the server at u answers at least n requests at
// once, by its metrics; the bound only catches a hang.
func waitInFlight(t *testing.T, u string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := mustDo(t, "GET", u+"/metrics", "", 200)
		for line := range strings.Lines(r.body) {
			if v, ok := strings.CutPrefix(line, "simidx_http_requests_in_flight "); ok {
				if got, _ := strconv.Atoi(strings.TrimSpace(v)); got >= n {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d requests in flight after a minute", n)
		}
		time.Sleep(5 * time.Millisecond)
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
		{[]string{"serve", "--db", "x.db", "--max-doc-bytes", "16777217"}, 2, "--max-doc-bytes must be 1 to 16777216, not 16777217"},
		{[]string{"serve", "--db", "x.db", "--max-pending", "0"}, 2, "--max-pending must be positive"},
		{[]string{"serve", "--db", "x.db", "--read-timeout", "0s"}, 2, "--read-timeout must be positive"},
		{[]string{"serve", "--db", "x.db", "--shutdown-timeout", "0s"}, 2, "--shutdown-timeout must be positive, not 0s"},
		{[]string{"serve", "--db", filepath.Join(t.TempDir(), "x.db"), "--addr", "256.0.0.1:0"}, 1, "cannot listen on 256.0.0.1:0"},
	} {
		r := simidx(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("simidx %q: want exit %d with %q, got %v", tc.args, tc.code, tc.msg, r)
		}
	}
}

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
