package index_test

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/simidx/simidx/index"
)

// benchN is the corpus size of the benchmarks: SIMIDX_BENCH_N, default
// 100,000.
func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("SIMIDX_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// benchCorpus returns n random fingerprints.
func benchCorpus(n int) *corpus {
	rng := rand.New(rand.NewPCG(1, 2))
	c := &corpus{}
	for range n {
		c.add(rng.Uint64())
	}
	return c
}

// benchIndex loads c into a new index for distance 3.
func benchIndex(b *testing.B, c *corpus) *index.Index {
	x := newIndex(b, &index.Settings{ExpectedDocs: len(c.fps)})
	if _, err := x.Load(context.Background(), c.docs(), nil); err != nil {
		b.Fatal(err)
	}
	return x
}

// queries returns fingerprints near stored ones (0..4 bits away) and
// random ones, alternately.
func queries(c *corpus, n int) []uint64 {
	rng := rand.New(rand.NewPCG(3, 4))
	qs := make([]uint64, n)
	for i := range qs {
		if i%2 == 0 {
			qs[i] = flip(rng, c.fps[rng.IntN(len(c.fps))], rng.IntN(5))
		} else {
			qs[i] = rng.Uint64()
		}
	}
	return qs
}

func BenchmarkQueryFingerprint(b *testing.B) {
	c := benchCorpus(benchN())
	x := benchIndex(b, c)
	qs := queries(c, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := x.QueryFingerprint(qs[i%len(qs)], nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBruteForce scans the same fingerprints held in memory.
func BenchmarkBruteForce(b *testing.B) {
	c := benchCorpus(benchN())
	qs := queries(c, 4096)
	b.ReportAllocs()
	b.SetBytes(int64(8 * len(c.fps)))
	n := 0
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		for _, fp := range c.fps {
			if bits.OnesCount64(fp^q) <= 3 {
				n++
			}
		}
	}
	_ = n
}

func BenchmarkQueryParallel(b *testing.B) {
	c := benchCorpus(benchN())
	x := benchIndex(b, c)
	qs := queries(c, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := x.QueryFingerprint(qs[i%len(qs)], nil); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	c := benchCorpus(benchN())
	b.ReportAllocs()
	b.SetBytes(int64(len(c.fps))) // "bytes" are documents: MB/s reads as millions of documents/s
	for b.Loop() {
		b.StopTimer()
		x := newIndex(b, &index.Settings{ExpectedDocs: len(c.fps)})
		b.StartTimer()
		if _, err := x.Load(context.Background(), c.docs(), nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		x.Close()
		b.StartTimer()
	}
}

func BenchmarkAdd(b *testing.B) {
	c := benchCorpus(benchN())
	x := benchIndex(b, c)
	rng := rand.New(rand.NewPCG(5, 6))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := x.AddFingerprint("new"+strconv.Itoa(i), rng.Uint64()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPairs(b *testing.B) {
	c := benchCorpus(benchN())
	x := benchIndex(b, c)
	b.ReportAllocs()
	b.SetBytes(int64(len(c.fps)))
	for b.Loop() {
		if err := x.Pairs(context.Background(), nil, func(index.Pair) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
