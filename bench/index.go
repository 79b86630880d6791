package main

import (
	"context"
	"flag"
	"fmt"
	"io"
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

// indexMain is the index subcommand: load n fingerprints, then time
// queries beside a brute-force scan, and Pairs.
func indexMain(args []string) error {
	fs := flag.NewFlagSet("index", flag.ExitOnError)
	n := fs.Int("n", 1_000_000, "number of fingerprints")
	k := fs.Int("k", 3, "max distance the index is built for")
	nq := fs.Int("queries", 20_000, "index queries to time")
	nb := fs.Int("brute", 300, "brute-force queries to time")
	dir := fs.String("dir", "", "directory for the index file (default a temporary one)")
	cold := fs.Bool("cold", false, "also time queries after evicting the file from the page cache")
	near := fs.Float64("near", 0.1, "share of fingerprints given a near copy (0..k bits away), so that Pairs has output")
	check := fs.Int("check-pairs", 1_000_000, "check Pairs against an in-memory sort-based count up to this n")
	fs.Parse(args)
	r, err := runIndex(indexConfig{N: *n, K: *k, Queries: *nq, Brute: *nb, Dir: *dir, Cold: *cold, Near: *near, CheckPairs: *check})
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s\n", machine())
	r.print(os.Stdout)
	return nil
}

// indexConfig says what runIndex measures.
type indexConfig struct {
	N, K           int
	Queries, Brute int
	Dir            string
	Cold           bool
	Near           float64
	CheckPairs     int
}

// indexResult holds the figures of one runIndex.
type indexResult struct {
	Cfg     indexConfig
	Planted int // near copies planted
	Stats   index.Stats
	Buckets []index.BucketStats
	Load    time.Duration
	// SortBaseline is the lower bound of the load: the same table
	// entries (each fingerprint permuted for each table, with its
	// document number) radix-sorted in memory, one table after another.
	SortBaseline    time.Duration
	IP50, IP99      time.Duration // index query latency, warm
	BP50, BP99      time.Duration // brute-force scan latency
	BruteQueries    int
	MatchesPerQuery float64
	Pairs           int
	PairsTime       time.Duration
	PairsCheck      string // how the Pairs output was checked
	CP50, CP99      time.Duration
	ColdQueries     int
	ColdPairs       time.Duration
	ColdPairsN      int
}

// runIndex builds an index of cfg.N fingerprints: random ones, and for a
// share cfg.Near of them a copy 0..K bits away. It times the bulk load,
// warm queries beside a brute-force scan (same queries, same answers),
// Pairs (checked against an in-memory count), and optionally cold queries.
func runIndex(cfg indexConfig) (*indexResult, error) {
	n, k := cfg.N, cfg.K
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "simidx-bench")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	path := filepath.Join(dir, "bench.simidx")
	os.Remove(path)
	defer os.Remove(path)
	res := &indexResult{Cfg: cfg}
	fps := plantFingerprints(n, k, cfg.Near, rand.New(rand.NewPCG(1, 2)))
	res.Planted = int(float64(n) * cfg.Near)
	rng := rand.New(rand.NewPCG(3, 4))
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc%09d", i)
	}
	// Queries: half near a stored fingerprint (0..k+1 bits away), half random.
	qs := make([]uint64, cfg.Queries)
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
		return nil, err
	}
	defer func() { x.Close() }()
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
		return nil, err
	}
	res.Load = time.Since(t0)
	if res.Stats, err = x.Stats(); err != nil {
		return nil, err
	}
	if res.Buckets, err = x.BucketStats(); err != nil {
		return nil, err
	}
	if res.SortBaseline, err = sortBaseline(fps, x.Settings()); err != nil {
		return nil, err
	}

	// Warm up, then time the index.
	for _, q := range qs {
		if _, err := x.QueryFingerprint(q, nil); err != nil {
			return nil, err
		}
	}
	lat := make([]time.Duration, len(qs))
	found := 0
	for i, q := range qs {
		t := time.Now()
		ms, err := x.QueryFingerprint(q, nil)
		lat[i] = time.Since(t)
		if err != nil {
			return nil, err
		}
		found += len(ms)
	}
	res.IP50, res.IP99 = pct(lat)
	res.MatchesPerQuery = float64(found) / float64(len(qs))

	// Brute force over the same fingerprints in memory, same answers.
	blat := make([]time.Duration, 0, cfg.Brute)
	for i := 0; i < cfg.Brute && i < len(qs); i++ {
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
			return nil, fmt.Errorf("query %x: index found %d, brute force %d", q, len(ms), len(got))
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
			return nil, fmt.Errorf("query %x: answers differ", q)
		}
	}
	res.BruteQueries = len(blat)
	res.BP50, res.BP99 = pct(blat)

	// Pairs, checked against the in-memory count.
	var sum uint64
	t0 = time.Now()
	if err := x.Pairs(context.Background(), nil, func(p index.Pair) error {
		res.Pairs++
		sum += pairHash(idNum(p.A), idNum(p.B))
		return nil
	}); err != nil {
		return nil, err
	}
	res.PairsTime = time.Since(t0)
	res.PairsCheck = "not checked"
	if n <= cfg.CheckPairs {
		cnt, csum := sortPairs(fps, k)
		if cnt != res.Pairs || csum != sum {
			return nil, fmt.Errorf("pairs: index reported %d pairs, the sort-based count %d (or the pair sets differ)", res.Pairs, cnt)
		}
		res.PairsCheck = "same pairs as the in-memory sort-based join"
	}
	if err := x.Close(); err != nil {
		return nil, err
	}

	if cfg.Cold {
		if err := evict(path); err != nil {
			return nil, err
		}
		x, err = index.Open(path, &index.Options{ReadOnly: true})
		if err != nil {
			return nil, err
		}
		m := min(len(qs), 2000)
		clat := make([]time.Duration, m)
		for i := range m {
			if i%100 == 0 {
				evict(path)
			}
			t := time.Now()
			if _, err := x.QueryFingerprint(qs[i], nil); err != nil {
				return nil, err
			}
			clat[i] = time.Since(t)
		}
		res.ColdQueries = m
		res.CP50, res.CP99 = pct(clat)
		evict(path)
		t0 = time.Now()
		if err := x.Pairs(context.Background(), nil, func(index.Pair) error { res.ColdPairsN++; return nil }); err != nil {
			return nil, err
		}
		res.ColdPairs = time.Since(t0)
	}
	return res, nil
}

func (r *indexResult) print(w io.Writer) {
	st := r.Stats
	fmt.Fprintf(w, "index: n=%d k=%d tables=%d blocks=%v prefix>=%d keybits=%d; %d near copies planted\n", r.Cfg.N, r.Cfg.K, st.Tables, st.Blocks, st.PrefixBits, st.KeyBits, r.Planted)
	fmt.Fprintf(w, "load: %.2fs (%.0f docs/s)\n", r.Load.Seconds(), float64(r.Cfg.N)/r.Load.Seconds())
	fmt.Fprintf(w, "radix sort of the same table entries in memory: %v (load / sort %.1fx)\n", r.SortBaseline.Round(time.Millisecond), float64(r.Load)/float64(max(r.SortBaseline, 1)))
	for _, b := range r.Buckets {
		fmt.Fprintf(w, "bucket %s: %d keys, %.1f bytes/doc\n", b.Name, b.Keys, b.BytesPerDoc)
	}
	fmt.Fprintf(w, "disk: file %.1f MiB, %.1f bytes/doc; tables %.1f bytes/doc/table\n",
		float64(st.FileBytes)/(1<<20), st.BytesPerDoc, st.TableBytesPerDoc)
	fmt.Fprintf(w, "query (warm, %d queries, %.2f matches avg): index p50 %v p99 %v | brute force (%d queries, answers identical) p50 %v p99 %v | speed-up p50 %.0fx\n",
		r.Cfg.Queries, r.MatchesPerQuery, r.IP50, r.IP99, r.BruteQueries, r.BP50, r.BP99, float64(r.BP50)/float64(r.IP50))
	fmt.Fprintf(w, "pairs: %d pairs within %d in %.2fs (%s)\n", r.Pairs, r.Cfg.K, r.PairsTime.Seconds(), r.PairsCheck)
	if r.Cfg.Cold {
		fmt.Fprintf(w, "query (cold: file evicted from the page cache every 100 queries, %d queries): p50 %v p99 %v\n", r.ColdQueries, r.CP50, r.CP99)
		fmt.Fprintf(w, "pairs (cold: file evicted from the page cache first): %d pairs in %.2fs\n", r.ColdPairsN, r.ColdPairs.Seconds())
	}
}

// plantFingerprints returns n fingerprints: random ones, except that a
// share near of them are copies of an earlier one with 0..k bits flipped.
func plantFingerprints(n, k int, near float64, rng *rand.Rand) []uint64 {
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = rng.Uint64()
	}
	copies := int(float64(n) * near)
	if n < 2 {
		copies = 0
	}
	for c := range copies {
		// Copies go to the last positions, each from a random original.
		dst := n - 1 - c
		fp := fps[rng.IntN(n-copies)]
		for _, b := range rng.Perm(64)[:rng.IntN(k+1)] {
			fp ^= 1 << b
		}
		fps[dst] = fp
	}
	return fps
}

// idNum is the number of an ID made by runIndex.
func idNum(id string) int {
	v := 0
	for _, c := range id[3:] {
		v = v*10 + int(c-'0')
	}
	return v
}

// pairHash is an order-independent summand identifying the pair {a, b}.
func pairHash(a, b int) uint64 {
	a, b = min(a, b), max(a, b)
	x := uint64(a)<<32 | uint64(b)
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// sortPairs counts the pairs of fingerprints within k bits without an
// index: the 64 bits are cut into k+2 blocks, so a pair within k agrees on
// at least two of them; for each choice of two blocks the fingerprints are
// sorted by those blocks and compared within runs of equal keys, and a
// pair is counted only for the first choice (in order) on which it agrees.
// It returns the count and the sum of pairHash over the pairs.
func sortPairs(fps []uint64, k int) (int, uint64) {
	m := k + 2
	masks := make([]uint64, m)
	for i := range m {
		lo, hi := 64*i/m, 64*(i+1)/m
		masks[i] = (^uint64(0) >> (64 - (hi - lo))) << lo
	}
	type entry struct {
		key uint64
		i   int32
	}
	es := make([]entry, len(fps))
	count := 0
	var sum uint64
	var combos [][2]int
	for a := range m {
		for b := a + 1; b < m; b++ {
			combos = append(combos, [2]int{a, b})
		}
	}
	for ci, c := range combos {
		mask := masks[c[0]] | masks[c[1]]
		for i, fp := range fps {
			es[i] = entry{fp & mask, int32(i)}
		}
		slices.SortFunc(es, func(x, y entry) int {
			if x.key != y.key {
				if x.key < y.key {
					return -1
				}
				return 1
			}
			return int(x.i - y.i)
		})
		for s := 0; s < len(es); {
			e := s + 1
			for e < len(es) && es[e].key == es[s].key {
				e++
			}
			for x := s; x < e; x++ {
				for y := x + 1; y < e; y++ {
					d := fps[es[x].i] ^ fps[es[y].i]
					if bits.OnesCount64(d) > k {
						continue
					}
					first := true
					for _, pc := range combos[:ci] {
						if d&(masks[pc[0]]|masks[pc[1]]) == 0 {
							first = false
							break
						}
					}
					if first {
						count++
						sum += pairHash(int(es[x].i), int(es[y].i))
					}
				}
			}
			s = e
		}
	}
	return count, sum
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

// sortBaseline times an in-memory LSD radix sort (16-bit digits, four
// passes) of the entries of every permuted table of the design of s for
// fps: the permuted fingerprint and the document number, made and sorted
// one table after another, as a bulk load's table step does without
// writing them.
func sortBaseline(fps []uint64, s index.Settings) (time.Duration, error) {
	type ent struct {
		p uint64
		n uint32
	}
	tk, err := index.NewTableKeys(s.Design, s.MaxDistance)
	if err != nil {
		return 0, err
	}
	es := make([]ent, len(fps))
	tmp := make([]ent, len(fps))
	runtime.GC()
	t := time.Now()
	for ti := range tk.Len() {
		for i, fp := range fps {
			es[i] = ent{tk.Permuted(ti, fp), uint32(i)}
		}
		src, dst := es, tmp
		var cnt [1 << 16]int
		for shift := uint(0); shift < 64; shift += 16 {
			clear(cnt[:])
			for _, e := range src {
				cnt[e.p>>shift&0xffff]++
			}
			sum := 0
			for i, c := range cnt {
				cnt[i] = sum
				sum += c
			}
			for _, e := range src {
				b := e.p >> shift & 0xffff
				dst[cnt[b]] = e
				cnt[b]++
			}
			src, dst = dst, src
		}
	}
	return time.Since(t), nil
}
