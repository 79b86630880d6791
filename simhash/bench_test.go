package simhash_test

import (
	"testing"

	"github.com/simidx/simidx/internal/testcorpus"

	"github.com/simidx/simidx/simhash"
)

func benchTexts(b *testing.B) ([][]byte, int64) {
	texts, n, err := testcorpus.Bench()
	if err != nil {
		b.Fatal(err)
	}
	return texts, n
}

func BenchmarkHasher(b *testing.B) {
	texts, n := benchTexts(b)
	for _, c := range []struct {
		name string
		opts simhash.Options
	}{
		{"default", simhash.Options{}},
		{"units", simhash.Options{Features: simhash.Units}},
		{"shingles2", simhash.Options{Features: simhash.Shingles}},
	} {
		b.Run(c.name, func(b *testing.B) {
			h, err := simhash.NewHasher(&c.opts)
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range texts { // warm up buffers and lazily built tables
				h.Sum64(t)
			}
			b.SetBytes(n)
			b.ReportAllocs()
			for b.Loop() {
				for _, t := range texts {
					h.Sum64(t)
				}
			}
		})
	}
}

func BenchmarkAccumulatorAdd(b *testing.B) {
	var a simhash.Accumulator
	b.SetBytes(8)
	b.ReportAllocs()
	h := uint64(0x9E3779B97F4A7C15)
	for b.Loop() {
		a.Add(h)
		h = h*0x5851F42D4C957F2D + 1
	}
	_ = a.Sum64()
}
