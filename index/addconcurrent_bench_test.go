package index_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/simidx/simidx/index"
)

// BenchmarkAddConcurrent measures durable adds: G goroutines each call Add
// with one document of 30 to 60 words at a time, synced. "log" goes
// through the write-ahead log (group commits, the default); "direct",
// first, is LogOptions.Direct, one bbolt transaction and fsync per call,
// the same documents in the same run. docs/s is durable documents per second.
func BenchmarkAddConcurrent(b *testing.B) {
	texts := make([][]byte, 4096)
	size := 0
	for i := range texts {
		texts[i] = crashText(uint64(i))
		size += len(texts[i])
	}
	for _, mode := range []string{"direct", "log"} {
		for _, g := range []int{8, 64} {
			b.Run(fmt.Sprintf("%s/goroutines=%d", mode, g), func(b *testing.B) {
				opts := &index.Options{Settings: &index.Settings{MinHash: true}}
				if mode == "direct" {
					opts.Log = &index.LogOptions{Direct: true}
				}
				x, err := index.Open(filepath.Join(b.TempDir(), "add.simidx"), opts)
				if err != nil {
					b.Fatal(err)
				}
				defer x.Close()
				b.SetBytes(int64(size / len(texts)))
				b.ReportAllocs()
				var next atomic.Int64
				b.ResetTimer()
				var wg sync.WaitGroup
				for range g {
					wg.Go(func() {
						for {
							i := next.Add(1) - 1
							if i >= int64(b.N) {
								return
							}
							if err := x.Add(index.Doc{ID: fmt.Sprint("d", i), Text: texts[i%int64(len(texts))]}); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			})
		}
	}
}

// BenchmarkQueryPending measures Query of a text against an index of 2,000
// texts in the file and 1,000 more added through the log and not yet
// applied (the applier held back), half the queries edited copies of
// pending texts: the cost of the pending level's part of a query.
func BenchmarkQueryPending(b *testing.B) {
	x, err := index.Open(filepath.Join(b.TempDir(), "p.simidx"), &index.Options{
		Settings: &index.Settings{MinHash: true}, Log: &index.LogOptions{ApplyInterval: time.Hour, ApplyDocs: 1 << 20}})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	for i := range 2000 {
		if err := x.Add(index.Doc{ID: fmt.Sprint("f", i), Text: crashText(uint64(i))}); err != nil {
			b.Fatal(err)
		}
	}
	if err := x.Sync(); err != nil { // into the file
		b.Fatal(err)
	}
	docs := make([]index.Doc, 1000)
	for i := range docs {
		docs[i] = index.Doc{ID: fmt.Sprint("p", i), Text: crashText(uint64(10_000 + i))}
	}
	if err := x.Add(docs...); err != nil {
		b.Fatal(err)
	}
	if st := x.LogStats(); st.Pending != len(docs) {
		b.Fatalf("%d operations pending, want %d", st.Pending, len(docs))
	}
	queries := make([][]byte, 64)
	size := 0
	for i := range queries {
		if i%2 == 0 {
			ws := strings.Fields(string(docs[i].Text))
			ws[1], ws[len(ws)-2] = "edited", "words"
			queries[i] = []byte(strings.Join(ws, " "))
		} else {
			queries[i] = crashText(uint64(50_000 + i))
		}
		size += len(queries[i])
	}
	b.SetBytes(int64(size / len(queries)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := x.Query(queries[i%len(queries)], nil); err != nil {
			b.Fatal(err)
		}
	}
}
