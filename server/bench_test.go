package server

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// discardWriter is a ResponseWriter that keeps only the status and the
// size of the answer, so that a benchmark of a handler measures the
// handler.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// benchServer returns a server on x with the default options.
func benchServer(b *testing.B, x *index.Index) *Server {
	b.Helper()
	s, err := New(x, nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkServeQuery measures POST /v1/query through the server's
// handler, without the network: parsing, the query, the answer and the
// metrics, on an index of 20,000 texts; half the queries are edited copies
// of stored texts. Compare with BenchmarkQueryText and BenchmarkQueryEdited
// of the index package for the share of the HTTP layer.
func BenchmarkServeQuery(b *testing.B) {
	db := filepath.Join(b.TempDir(), "bench.db")
	st := index.DefaultSettings()
	x, err := index.Open(db, &index.Options{Settings: &st, NoSync: true, BandFilter: true})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = strings.Repeat(string(rune('a'+i%26)), 1+i%7) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	text := func() []string {
		ws := make([]string, 30+rng.IntN(50))
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return ws
	}
	const n = 20_000
	stored := make([][]string, n)
	docs := make([]index.Doc, n)
	for i := range docs {
		stored[i] = text()
		docs[i] = index.Doc{ID: "d" + strconv.Itoa(i), Text: []byte(strings.Join(stored[i], " "))}
	}
	if err := x.Add(docs...); err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	s := benchServer(b, x)
	bodies := make([][]byte, 1000)
	size := 0
	for i := range bodies {
		ws := text()
		if i%2 == 0 {
			ws = append([]string(nil), stored[rng.IntN(n)]...)
			ws[rng.IntN(len(ws))] = vocab[rng.IntN(len(vocab))]
		}
		bodies[i], _ = json.Marshal(map[string]string{"text": strings.Join(ws, " ")})
		size += len(bodies[i])
	}
	b.SetBytes(int64(size / len(bodies)))
	b.ReportAllocs()
	w := &discardWriter{h: http.Header{}}
	r, _ := http.NewRequest(http.MethodPost, "http://localhost/v1/query", nil)
	r.Header.Set("Content-Type", "application/json")
	var body bytes.Reader
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		body.Reset(bodies[i%len(bodies)])
		r.Body = io.NopCloser(&body)
		r.ContentLength = int64(body.Len())
		clear(w.h)
		w.status = 0
		s.ServeHTTP(w, r)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

// BenchmarkParseDocs measures the reading of an add body, one document of
// 30 to 80 words as the load test sends and a batch of 100: the JSON and
// the checks of each document (the analysis of its text is Add's).
func BenchmarkParseDocs(b *testing.B) {
	db := filepath.Join(b.TempDir(), "bench.db")
	x, err := index.Open(db, &index.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	s := benchServer(b, x)
	rng := rand.New(rand.NewPCG(3, 4))
	doc := func(i int) map[string]string {
		ws := make([]string, 30+rng.IntN(50))
		for j := range ws {
			ws[j] = "word" + strconv.Itoa(rng.IntN(20_000))
		}
		return map[string]string{"id": "doc-" + strconv.Itoa(i), "text": strings.Join(ws, " ")}
	}
	for _, n := range []int{1, 100} {
		bodies := make([][]byte, 100)
		size := 0
		for i := range bodies {
			docs := make([]map[string]string, n)
			for j := range docs {
				docs[j] = doc(i*n + j)
			}
			bodies[i], _ = json.Marshal(docs)
			size += len(bodies[i])
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(size / len(bodies)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				docs, err := s.parseDocs(bodies[i%len(bodies)])
				if err != nil || len(docs) != n {
					b.Fatalf("%d documents, %v", len(docs), err)
				}
			}
		})
	}
}
