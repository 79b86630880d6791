package main

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/simidx/simidx/index"
	"golang.org/x/sys/unix"
)

// indexMain is the index subcommand: load n random fingerprints, then time
// queries beside a brute-force scan, and Pairs.
func indexMain(args []string) error {
	fs := flag.NewFlagSet("index", flag.ExitOnError)
	n := fs.Int("n", 1_000_000, "number of fingerprints")
	k := fs.Int("k", 3, "max distance the index is built for")
	nq := fs.Int("queries", 20_000, "index queries to time")
	nb := fs.Int("brute", 300, "brute-force queries to time")
	dir := fs.String("dir", "", "directory for the index file (default a temporary one)")
	cold := fs.Bool("cold", false, "also time queries after evicting the file from the page cache")
	fs.Parse(args)
	return runIndex(*n, *k, *nq, *nb, *dir, *cold)
}

func runIndex(n, k, nq, nb int, dir string, cold bool) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "simidx-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	path := filepath.Join(dir, "bench.simidx")
	os.Remove(path)
	rng := rand.New(rand.NewPCG(1, 2))
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = rng.Uint64()
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc%09d", i)
	}
	// Queries: half near a stored fingerprint (0..k+1 bits away), half random.
	qs := make([]uint64, nq)
	for i := range qs {
		if i%2 == 0 {
			fp := fps[rng.IntN(n)]
			for range rng.IntN(k + 2) {
				fp ^= 1 << rng.IntN(64)
			}
			qs[i] = fp
		} else {
			qs[i] = rng.Uint64()
		}
	}
	kk := k
	if k == 0 {
		kk = index.ZeroDistance
	}
	x, err := index.Open(path, &index.Options{Settings: &index.Settings{MaxDistance: kk, ExpectedDocs: n}})
	if err != nil {
		return err
	}
	src := func(yield func(index.Doc, error) bool) {
		for i := range fps {
			if !yield(index.Doc{ID: ids[i], Fingerprint: fps[i], Precomputed: true}, nil) {
				return
			}
		}
	}
	runtime.GC()
	t0 := time.Now()
	if _, err := x.Load(context.Background(), iter.Seq2[index.Doc, error](src), nil); err != nil {
		return err
	}
	load := time.Since(t0)
	st, err := x.Stats()
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s\n", machine())
	fmt.Printf("index: n=%d k=%d tables=%d blocks=%v prefix>=%d keybits=%d\n", n, k, st.Tables, st.Blocks, st.PrefixBits, st.KeyBits)
	fmt.Printf("load: %.2fs (%.0f docs/s)\n", load.Seconds(), float64(n)/load.Seconds())
	fmt.Printf("disk: file %.1f MiB, %.1f bytes/doc; tables %.1f bytes/doc/table\n",
		float64(st.FileBytes)/(1<<20), st.BytesPerDoc, st.TableBytesPerDoc)

	// Warm up, then time the index.
	for _, q := range qs {
		if _, err := x.QueryFingerprint(q, nil); err != nil {
			return err
		}
	}
	lat := make([]time.Duration, len(qs))
	found := 0
	for i, q := range qs {
		t := time.Now()
		ms, err := x.QueryFingerprint(q, nil)
		lat[i] = time.Since(t)
		if err != nil {
			return err
		}
		found += len(ms)
	}
	ip50, ip99 := pct(lat)

	// Brute force over the same fingerprints in memory, same answers.
	blat := make([]time.Duration, 0, nb)
	for i := 0; i < nb && i < len(qs); i++ {
		q := qs[i]
		t := time.Now()
		var got []int
		for j, fp := range fps {
			if bits.OnesCount64(fp^q) <= k {
				got = append(got, j)
			}
		}
		blat = append(blat, time.Since(t))
		ms, _ := x.QueryFingerprint(q, nil)
		if len(ms) != len(got) {
			return fmt.Errorf("query %x: index found %d, brute force %d", q, len(ms), len(got))
		}
		want := make([]string, len(got))
		for j, g := range got {
			want[j] = ids[g]
		}
		have := make([]string, len(ms))
		for j, m := range ms {
			have[j] = m.ID
		}
		slices.Sort(want)
		slices.Sort(have)
		if !slices.Equal(want, have) {
			return fmt.Errorf("query %x: answers differ", q)
		}
	}
	bp50, bp99 := pct(blat)
	fmt.Printf("query (warm, %d queries, %.2f matches avg): index p50 %v p99 %v | brute force (%d queries, answers identical) p50 %v p99 %v | speed-up p50 %.0fx\n",
		len(qs), float64(found)/float64(len(qs)), ip50, ip99, len(blat), bp50, bp99, float64(bp50)/float64(ip50))

	// Pairs.
	t0 = time.Now()
	pairs := 0
	if err := x.Pairs(context.Background(), nil, func(index.Pair) error { pairs++; return nil }); err != nil {
		return err
	}
	fmt.Printf("pairs: %d pairs within %d in %.2fs\n", pairs, k, time.Since(t0).Seconds())
	if err := x.Close(); err != nil {
		return err
	}

	if cold {
		if err := evict(path); err != nil {
			return err
		}
		x, err = index.Open(path, &index.Options{ReadOnly: true})
		if err != nil {
			return err
		}
		m := min(len(qs), 2000)
		clat := make([]time.Duration, m)
		for i := range m {
			if i%100 == 0 {
				evict(path)
			}
			t := time.Now()
			if _, err := x.QueryFingerprint(qs[i], nil); err != nil {
				return err
			}
			clat[i] = time.Since(t)
		}
		c50, c99 := pct(clat)
		fmt.Printf("query (cold: file evicted from the page cache every 100 queries, %d queries): p50 %v p99 %v\n", m, c50, c99)
		evict(path)
		t0 = time.Now()
		pairs = 0
		if err := x.Pairs(context.Background(), nil, func(index.Pair) error { pairs++; return nil }); err != nil {
			return err
		}
		fmt.Printf("pairs (cold: file evicted from the page cache first): %d pairs in %.2fs\n", pairs, time.Since(t0).Seconds())
		x.Close()
	}
	return nil
}

// evict drops the file's pages from the page cache.
func evict(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

func pct(d []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2].Round(100 * time.Nanosecond), s[len(s)*99/100].Round(100 * time.Nanosecond)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range splitLines(string(b)) {
		if len(line) > 10 && line[:10] == "model name" {
			for i := range line {
				if line[i] == ':' {
					return line[i+2:]
				}
			}
		}
	}
	return "unknown"
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
