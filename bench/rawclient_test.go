package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRawClient runs the load test's client against a net/http server on
// loopback: answers with a length, chunked answers, answers without a
// body, errors, a server that closes the connection and one that does not
// answer.
func TestRawClient(t *testing.T) {
	var conns atomic.Int64
	release := make(chan struct{})
	big := strings.Repeat("0123456789", 5000) // over net/http's buffer: chunked
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/echo":
			w.Write(body)
		case "/big":
			for i := 0; i < len(big); i += 1000 {
				w.Write([]byte(big[i : i+1000]))
				w.(http.Flusher).Flush()
			}
		case "/empty":
			w.Header().Set("Content-Length", "5") // which a 204 ignores
			w.WriteHeader(http.StatusNoContent)
		case "/hang":
			<-release
		case "/close":
			w.Header().Set("Connection", "close")
			w.Write([]byte("bye"))
		default:
			http.Error(w, "no such path", http.StatusNotFound)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	defer close(release)

	c, err := newRawClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for i := range 3 {
		body := []byte(strings.Repeat("x", i*3000))
		got, err := c.post("/echo", body)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("echo of %d bytes: %d bytes, %v", len(body), len(got), err)
		}
	}
	if got, err := c.post("/big", []byte("{}")); err != nil || string(got) != big {
		t.Fatalf("chunked answer: %d bytes, %v", len(got), err)
	}
	if _, err := c.post("/nothing", []byte("{}")); err == nil || !strings.Contains(err.Error(), "status 404: no such path") {
		t.Fatalf("404: %v", err)
	}
	if got, err := c.post("/empty", []byte("{}")); err != nil || len(got) != 0 {
		t.Fatalf("204: %q, %v", got, err)
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for six requests: not kept alive", n)
	}
	if got, err := c.post("/close", []byte("{}")); err != nil || string(got) != "bye" || c.conn != nil {
		t.Fatalf("closing answer: %q, %v, connection kept: %v", got, err, c.conn != nil)
	}
	if got, err := c.post("/echo", []byte("again")); err != nil || string(got) != "again" {
		t.Fatalf("after a closed connection: %q, %v", got, err)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
	c.timeout = 200 * time.Millisecond
	if _, err := c.post("/hang", []byte("{}")); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("a server that does not answer: %v", err)
	}
	if _, err := newRawClient("localhost:80"); err == nil {
		t.Fatal("a base without http:// is accepted")
	}
}
