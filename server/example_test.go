package server_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/server"
)

// A Server is an http.Handler: here it answers on an httptest server, over
// an index in a temporary directory whose write-ahead log reports to the
// server's metrics.
func Example() {
	dir, err := os.MkdirTemp("", "simidx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	m := server.NewMetrics()
	x, err := index.Open(filepath.Join(dir, "ads.db"), &index.Options{Log: &index.LogOptions{Events: m.LogEvents()}})
	if err != nil {
		log.Fatal(err)
	}
	// Closing the index commits every logged operation to its file.
	defer x.Close()
	s, err := server.New(x, &server.Options{Metrics: m})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	post := func(path, body string) {
		resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Print(resp.StatusCode, " ", string(b))
	}
	post("/v1/documents", `[{"id": "ad1", "text": "Red mountain bicycle for sale, 21 gears, hardly used. Call Anna after six."}]`)
	post("/v1/documents?if_unique=true", `{"id": "ad2", "text": "RED MOUNTAIN BICYCLE for sale: 21 gears, hardly used! Call Anna after six"}`)
	post("/v1/query?k=0", `{"text": "red mountain bicycle for sale, 21 gears, hardly used. call anna after six."}`)
	// Output:
	// 200 {"added":1}
	// 409 {"error":"1 of 1 document has near duplicates and was not added","added":0,"duplicates":[{"id":"ad2","matches":[{"id":"ad1","distance":0,"similarity":1,"exact":true}]}]}
	// 200 {"matches":[{"id":"ad1","distance":0,"similarity":1,"exact":true}]}
}

// ListenAndServe serves until its context is cancelled, and then waits for
// the requests in flight; the index is closed after it returns.
func ExampleServer_ListenAndServe() {
	dir, err := os.MkdirTemp("", "simidx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	x, err := index.Open(filepath.Join(dir, "ads.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.New(x, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- s.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrs <- a }) }()

	resp, err := http.Get("http://" + (<-addrs).String() + "/healthz")
	if err != nil {
		log.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(string(b))

	cancel() // as on SIGTERM
	if err := <-served; err != nil {
		log.Fatal(err)
	}
	if err := x.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"documents":0,"status":"ok"}
}

// POST /v1/compare measures two texts under the index's text settings and
// finds the passages they share, as simidx compare does; the index keeps
// no texts, so both are in the request. The page at GET / shows them side
// by side.
func Example_compare() {
	dir, err := os.MkdirTemp("", "simidx-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	x, err := index.Open(filepath.Join(dir, "ads.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	s, err := server.New(x, nil)
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/v1/compare?passages=1", "application/json", strings.NewReader(
		`{"a": "Red mountain bicycle for sale, 21 gears, hardly used. Call Anna after six.",
		  "b": "RED MOUNTAIN BICYCLE for sale: 21 gears, hardly used! Ring Anna after six"}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(resp.StatusCode, " ", string(b))
	// Output:
	// 200 {"jaccard":0.3846,"containment_a":0.5555,"containment_b":0.5555,"distance":9,"similarity":0.75,"exact":false,"passages":[{"a_start":0,"a_end":52,"b_start":0,"b_end":52,"words":9,"text":"Red mountain bicycle for sale, 21 gears, hardly used"}]}
}
