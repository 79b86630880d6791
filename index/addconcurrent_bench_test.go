package index_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/simidx/simidx/index"
)

// BenchmarkAddConcurrent measures durable adds: G goroutines each call Add
// with one document of 30 to 60 words at a time, synced. "log" goes
// through the write-ahead log (group commits, the default); "direct" is
// LogOptions.Direct, one bbolt transaction and fsync per call, the same
// documents in the same run. docs/s is durable documents per second.
func BenchmarkAddConcurrent(b *testing.B) {
	texts := make([][]byte, 4096)
	size := 0
	for i := range texts {
		texts[i] = crashText(uint64(i))
		size += len(texts[i])
	}
	for _, mode := range []string{"log", "direct"} {
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
