package simhash_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/simidx/simidx/shingle"
	"github.com/simidx/simidx/simhash"
)

// benchTexts returns the sample corpus of testdata, or, when
// SIMIDX_BENCH_CORPUS names a JSONL file ({"text": ...} per line), that
// corpus.
func benchTexts(b *testing.B) ([][]byte, int64) {
	path := os.Getenv("SIMIDX_BENCH_CORPUS")
	if path == "" {
		path = filepath.Join("..", "shingle", "testdata", "sample.jsonl")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var texts [][]byte
	var n int64
	for sc.Scan() {
		var d struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			b.Fatal(err)
		}
		texts = append(texts, []byte(d.Text))
		n += int64(len(d.Text))
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return texts, n
}

func BenchmarkHasher(b *testing.B) {
	texts, n := benchTexts(b)
	for _, c := range []struct {
		name string
		opts simhash.Options
	}{{"units", simhash.Options{}}, {"shingles2", simhash.Options{Features: simhash.Shingles}}} {
		b.Run(c.name, func(b *testing.B) {
			h, err := simhash.NewHasher(&c.opts)
			if err != nil {
				b.Fatal(err)
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

func BenchmarkTokenizer(b *testing.B) {
	texts, n := benchTexts(b)
	t, _ := shingle.NewTokenizer(nil)
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
