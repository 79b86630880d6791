package shingle_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
)

func benchTexts(b *testing.B) ([][]byte, int64) {
	texts, n, err := testcorpus.Bench()
	if err != nil {
		b.Fatal(err)
	}
	return texts, n
}

func BenchmarkTokenizer(b *testing.B) {
	texts, n := benchTexts(b)
	t, _ := shingle.NewTokenizer(nil)
	for _, x := range texts { // warm up buffers and lazily built tables
		t.AppendUnits(nil, x)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, x := range texts {
			t.Reset(x)
			for _, ok := t.Next(); ok; _, ok = t.Next() {
			}
		}
	}
}

// BenchmarkMinHash measures text to MinHash signature: tokenizing, shingle
// hashes and the K=84 signature (the set step is skipped: repeats do not
// change a signature).
func BenchmarkMinHash(b *testing.B) {
	texts, n := benchTexts(b)
	for _, c := range []struct {
		name   string
		scheme shingle.Scheme
	}{{"onepermutation", shingle.OnePermutation}, {"mixes", shingle.Mixes}} {
		b.Run(c.name, func(b *testing.B) {
			s, _ := shingle.NewShingler(nil)
			m, _ := shingle.NewMinHasher(shingle.DefaultK, c.scheme)
			var hs, sig []uint64
			for _, t := range texts { // warm up buffers and lazily built tables
				hs = s.AppendHashes(hs[:0], t)
				sig = m.Append(sig[:0], hs)
			}
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				for _, t := range texts {
					hs = s.AppendHashes(hs[:0], t)
					sig = m.Append(sig[:0], hs)
				}
			}
		})
	}
}

// BenchmarkSignature measures the signature step alone on 1,000 shingles,
// and on 20 (a short text, whose signature is mostly densification).
func BenchmarkSignature(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	long := make([]uint64, 1000)
	for i := range long {
		long[i] = rng.Uint64()
	}
	for _, c := range []struct {
		name   string
		scheme shingle.Scheme
		hs     []uint64
	}{{"onepermutation", shingle.OnePermutation, long}, {"mixes", shingle.Mixes, long},
		{"onepermutation-20", shingle.OnePermutation, long[:20]}} {
		hs := c.hs
		b.Run(c.name, func(b *testing.B) {
			m, _ := shingle.NewMinHasher(shingle.DefaultK, c.scheme)
			var sig []uint64
			b.SetBytes(8 * int64(len(hs)))
			b.ReportAllocs()
			for b.Loop() {
				sig = m.Append(sig[:0], hs)
			}
		})
	}
}

// BenchmarkSignatureStream measures the signature step on a stream of
// distinct sets of 1 to 50 shingles (short texts, whose signature is
// mostly densification, each size in another of densify's ways), one set
// a signature: BenchmarkSignature's one set, signed again and again, lets
// the processor learn the branches of its densification.
func BenchmarkSignatureStream(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{1, 3, 6, 12, 20, 30, 50} {
		sets := make([][]uint64, 256)
		for i := range sets {
			sets[i] = make([]uint64, n)
			for j := range sets[i] {
				sets[i][j] = rng.Uint64()
			}
		}
		b.Run(fmt.Sprintf("onepermutation-%d", n), func(b *testing.B) {
			m, _ := shingle.NewMinHasher(shingle.DefaultK, shingle.OnePermutation)
			var sig []uint64
			b.SetBytes(8 * int64(n))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sig = m.Append(sig[:0], sets[i%len(sets)])
			}
		})
	}
}
