package simhash_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
	"github.com/simidx/simidx/simhash"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

// sampleTexts returns the texts of the shared multilingual sample.
func sampleTexts(t testing.TB) (ids []string, texts [][]byte) {
	t.Helper()
	docs, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		ids, texts = append(ids, d.ID), append(texts, []byte(d.Text))
	}
	return ids, texts
}

// naive is the textbook simhash: 64 signed counters.
func naive(fs []simhash.Feature) uint64 {
	var v [64]int64
	for _, f := range fs {
		for i := range 64 {
			if f.Hash>>i&1 == 1 {
				v[i] += f.Weight
			} else {
				v[i] -= f.Weight
			}
		}
	}
	var fp uint64
	for i := range 64 {
		if v[i] > 0 {
			fp |= 1 << i
		}
	}
	return fp
}

// TestAccumulatorMatchesNaive compares the byte-sliced accumulator with 64
// plain counters on random features, with unit and mixed weights, across
// the 255-add flush boundary.
func TestAccumulatorMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 500 {
		n := rng.IntN(1200)
		fs := make([]simhash.Feature, n)
		for i := range fs {
			fs[i] = simhash.Feature{Hash: rng.Uint64(), Weight: 1}
			if trial%2 == 1 && rng.IntN(3) == 0 {
				fs[i].Weight = rng.Int64N(21) - 5
			}
		}
		if got, want := simhash.Fingerprint(fs), naive(fs); got != want {
			t.Fatalf("trial %d (%d features): got %016x, want %016x", trial, n, got, want)
		}
	}
	var a simhash.Accumulator
	if a.Sum64() != 0 {
		t.Error("empty accumulator must give 0")
	}
}

func TestDistance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		a, b := rng.Uint64(), rng.Uint64()
		if simhash.Distance(a, b) != simhash.Distance(b, a) || simhash.Distance(a, a) != 0 {
			t.Fatal("distance must be symmetric and zero on identity")
		}
	}
	if simhash.Distance(0, ^uint64(0)) != 64 || simhash.Distance(0b1011, 0b0001) != 2 {
		t.Error("wrong popcount")
	}
}

func TestHasherProperties(t *testing.T) {
	_, texts := sampleTexts(t)
	h1, _ := simhash.NewHasher(nil)
	h2, _ := simhash.NewHasher(nil)
	for _, text := range texts {
		a := h1.Sum64(text)
		if b := h2.Sum64(bytes.Clone(text)); a != b {
			t.Fatalf("identical text, distance %d", simhash.Distance(a, b))
		}
	}
	// Near-identical text is close, unrelated text is far.
	base := []byte("Permission is hereby granted, free of charge, to any person obtaining a copy of this software " +
		"and associated documentation files, to deal in the Software without restriction, including without " +
		"limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and sell copies.")
	edited := bytes.Replace(base, []byte("free of charge"), []byte("free of any charge"), 1)
	if d := simhash.Distance(h1.Sum64(base), h1.Sum64(edited)); d > 6 {
		t.Errorf("one inserted word moved the fingerprint %d bits", d)
	}
	if d := simhash.Distance(h1.Sum64(base), h1.Sum64(texts[0])); d < 10 {
		t.Errorf("unrelated texts only %d bits apart", d)
	}
	if _, err := simhash.NewHasher(&simhash.Options{ShingleSize: -1}); err == nil {
		t.Error("negative shingle size accepted")
	}
}

// TestGolden pins the fingerprints of the sample under the default and the
// main variant options: they are stored in indexes.
func TestGolden(t *testing.T) {
	ids, texts := sampleTexts(t)
	var out bytes.Buffer
	for _, v := range []struct {
		name string
		opts simhash.Options
	}{
		{"default", simhash.Options{}},
		{"units", simhash.Options{Features: simhash.Units}},
		{"shingles2", simhash.Options{Features: simhash.Shingles}},
		{"shingles3", simhash.Options{Features: simhash.Shingles, ShingleSize: 3}},
		{"chars-shingles4", simhash.Options{Features: simhash.Shingles, ShingleSize: 4, Text: shingle.Options{Unit: shingle.Chars}}},
		{"keepcase", simhash.Options{Text: shingle.Options{KeepCase: true}}},
	} {
		h, err := simhash.NewHasher(&v.opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			fmt.Fprintf(&out, "%s %s %016x\n", v.name, ids[i], h.Sum64(text))
		}
	}
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("fingerprints changed; they are stored in indexes, so this is a format change.\ngot:\n%s\nwant:\n%s", out.Bytes(), want)
	}
}

func TestHasherAllocs(t *testing.T) {
	_, texts := sampleTexts(t)
	h, _ := simhash.NewHasher(nil)
	run := func() {
		for _, text := range texts {
			h.Sum64(text)
		}
	}
	run()
	if a := testing.AllocsPerRun(20, run); a != 0 {
		t.Errorf("%v allocs per pass, want 0", a)
	}
}
