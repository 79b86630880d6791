package index_test

import (
	"context"
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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

// BenchmarkQueryFingerprint measures QueryFingerprint against benchN()
// fingerprints: all of them bulk-loaded into the tables bucket, and with
// the last eighth added online in commits of 1,000, so that their entries
// are in the in-memory table level (as before a merge).
func BenchmarkQueryFingerprint(b *testing.B) {
	c := benchCorpus(benchN())
	for _, online := range []bool{false, true} {
		b.Run(map[bool]string{false: "bucket", true: "level"}[online], func(b *testing.B) {
			var x *index.Index
			if !online {
				x = benchIndex(b, c)
			} else {
				k := len(c.fps) * 7 / 8
				x = newIndex(b, &index.Settings{ExpectedDocs: len(c.fps)})
				if _, err := x.Load(context.Background(), (&corpus{ids: c.ids[:k], fps: c.fps[:k]}).docs(), nil); err != nil {
					b.Fatal(err)
				}
				for lo := k; lo < len(c.fps); lo += 1000 {
					var ds []index.Doc
					for i := lo; i < min(lo+1000, len(c.fps)); i++ {
						ds = append(ds, index.Doc{ID: c.ids[i], Fingerprint: c.fps[i], Precomputed: true})
					}
					if err := x.Add(ds...); err != nil {
						b.Fatal(err)
					}
				}
				if st, err := x.Stats(); err != nil || st.RecentTables < len(c.fps)/8 {
					b.Fatalf("stats %+v, %v: the level does not hold the online adds", st, err)
				}
			}
			qs := queries(c, 4096)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := x.QueryFingerprint(qs[i%len(qs)], nil); err != nil {
					b.Fatal(err)
				}
			}
		})
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

// textIndex is an index configuration of the text benchmarks.
type textIndex struct {
	name       string
	mh, filter bool
	recent     int // Options.RecentBands
}

// textIndexes are the index configurations of the text benchmarks: with
// the MinHash layer, with it and the band filter, with both and a band
// merge after every commit (every posting written at once, as before the
// in-memory level), and without the layer.
var textIndexes = []textIndex{
	{"minhash", true, false, 0}, {"minhash+filter", true, true, 0},
	{"minhash+filter+merge", true, true, -1}, {"no-minhash", false, false, 0},
}

// benchTexts is the number of texts in the indexes of the text
// benchmarks: SIMIDX_BENCH_TEXTS, default 10,000.
func benchTexts() int {
	if n, err := strconv.Atoi(os.Getenv("SIMIDX_BENCH_TEXTS")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// textGen returns a generator of texts of 30 to 80 words drawn from the
// licence texts, the same sequence in every benchmark.
func textGen(b *testing.B) func() []byte {
	b.Helper()
	lic, err := filepath.Glob("../testdata/licenses/*.txt")
	if err != nil || len(lic) == 0 {
		b.Fatal("no licence texts", err)
	}
	var words []string
	for _, f := range lic {
		t, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		words = append(words, strings.Fields(string(t))...)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	text := func() []byte {
		ws := make([]string, 30+rng.IntN(51))
		for i := range ws {
			ws[i] = words[rng.IntN(len(words))]
		}
		return []byte(strings.Join(ws, " "))
	}
	return text
}

// textBench returns a generator of texts of 30 to 80 words drawn from the
// licence texts, and an index of config cf holding benchN() precomputed
// fingerprints and benchTexts() such texts.
func textBench(b *testing.B, cf textIndex) (func() []byte, *index.Index) {
	b.Helper()
	text := textGen(b)
	c := benchCorpus(benchN())
	x, err := index.Open(filepath.Join(b.TempDir(), "t.simidx"), &index.Options{Log: directLog, NoSync: true, BandFilter: cf.filter, RecentBands: cf.recent,
		Settings: &index.Settings{ExpectedDocs: len(c.fps), NoMinHash: !cf.mh}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if _, err := x.Load(context.Background(), c.docs(), nil); err != nil {
		b.Fatal(err)
	}
	var texts iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
		for i := range benchTexts() {
			if !yield(index.Doc{ID: "text" + strconv.Itoa(i), Text: text()}, nil) {
				return
			}
		}
	}
	if _, err := x.Load(context.Background(), texts, nil); err != nil {
		b.Fatal(err)
	}
	return text, x
}

// BenchmarkQueryText measures Query of a text of 30 to 80 words against
// an index of benchN() precomputed fingerprints and 10,000 texts, with the
// MinHash layer (whose 14 band lookups are most of the difference), with
// it and Options.BandFilter, and without it.
func BenchmarkQueryText(b *testing.B) {
	for _, cf := range textIndexes {
		b.Run(cf.name, func(b *testing.B) {
			text, x := textBench(b, cf)
			qs := make([][]byte, 4096)
			size := 0
			for i := range qs {
				qs[i] = text()
				size += len(qs[i])
			}
			benchQueries(b, x, qs, size)
		})
	}
}

// benchQueries times Query of the texts qs, size bytes in all, in turn.
func benchQueries(b *testing.B, x *index.Index, qs [][]byte, size int) {
	b.SetBytes(int64(size / len(qs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := x.Query(qs[i%len(qs)], nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryEdited measures Query as simidx serve's load test asks
// it: against an index of benchN() precomputed fingerprints and
// benchTexts() texts of 30 to 80 words added online in commits of 1,000,
// with the band filter, half the queries are copies of stored texts with
// two words replaced (their bands and table groups hold a match) and half
// new texts. With "level" the added texts are in the in-memory levels (as
// until a merge, which by default waits for 65,536 of them), with
// "bucket" they are merged at every commit; "level+mirror" is "level" with
// the table mirror (Options.TableMirror), as simidx serve opens the index.
func BenchmarkQueryEdited(b *testing.B) {
	for _, cf := range []struct {
		name   string
		recent int
		mirror bool
	}{{"level", 0, false}, {"bucket", -1, false}, {"level+mirror", 0, true}} {
		recent := cf.recent
		b.Run(cf.name, func(b *testing.B) {
			text := textGen(b)
			c := benchCorpus(benchN())
			x, err := index.Open(filepath.Join(b.TempDir(), "e.simidx"), &index.Options{Log: directLog, NoSync: true, BandFilter: true, RecentBands: recent, TableMirror: cf.mirror,
				Settings: &index.Settings{ExpectedDocs: len(c.fps)}})
			if err != nil {
				b.Fatal(err)
			}
			defer x.Close()
			if _, err := x.Load(context.Background(), c.docs(), nil); err != nil {
				b.Fatal(err)
			}
			stored := make([][]byte, benchTexts())
			for lo := 0; lo < len(stored); lo += 1000 {
				var ds []index.Doc
				for i := lo; i < min(lo+1000, len(stored)); i++ {
					stored[i] = text()
					ds = append(ds, index.Doc{ID: "text" + strconv.Itoa(i), Text: stored[i]})
				}
				if err := x.Add(ds...); err != nil {
					b.Fatal(err)
				}
			}
			rng := rand.New(rand.NewPCG(7, 8))
			qs := make([][]byte, 4096)
			size, found := 0, 0
			for i := range qs {
				if i%2 == 0 {
					ws := strings.Fields(string(stored[rng.IntN(len(stored))]))
					for range 2 {
						ws[rng.IntN(len(ws))] = "edited"
					}
					qs[i] = []byte(strings.Join(ws, " "))
				} else {
					qs[i] = text()
				}
				size += len(qs[i])
				if ms, err := x.Query(qs[i], nil); err != nil {
					b.Fatal(err)
				} else if len(ms) > 0 {
					found++
				}
			}
			benchQueries(b, x, qs, size)
			b.ReportMetric(float64(found)/float64(len(qs)), "found/query")
		})
	}
}

// BenchmarkAddText measures Add of 1,000 new texts of 30 to 80 words in
// one transaction (as the background commits of simidx serve do) to the
// index of BenchmarkQueryText; ns/op is per commit. With
// SIMIDX_BENCH_TEXTS=1000000 it measures an index of a million texts,
// whose 14 million band postings each commit's adds are spread over.
func BenchmarkAddText(b *testing.B) {
	benchAdd(b, func(x *index.Index, ids []string, texts [][]byte) func() error {
		ds := make([]index.Doc, len(ids))
		for j := range ds {
			ds[j] = index.Doc{ID: ids[j], Text: texts[j]}
		}
		return func() error { return x.Add(ds...) }
	})
}

// benchAdd times, on each index of textIndexes, commits of batches of
// 1,000 new texts of 30 to 80 words: prepare, untimed, makes a batch's
// commit, which is timed.
func benchAdd(b *testing.B, prepare func(x *index.Index, ids []string, texts [][]byte) func() error) {
	for _, cf := range textIndexes {
		b.Run(cf.name, func(b *testing.B) {
			text, x := textBench(b, cf)
			const batch = 1000
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				ids, texts := make([]string, batch), make([][]byte, batch)
				size := 0
				for j := range ids {
					ids[j], texts[j] = fmt.Sprint("new", i, "-", j), text()
					size += len(texts[j])
				}
				commit := prepare(x, ids, texts)
				b.SetBytes(int64(size))
				b.StartTimer()
				if err := commit(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQueryCopies measures QueryFingerprint of a fingerprint 20,000
// documents share (exact copies, as boilerplate pages are), added online:
// with the level merged at every commit, their entries are in the bucket;
// otherwise in the in-memory table level, where each of the four tables
// holds an entry per copy.
func BenchmarkQueryCopies(b *testing.B) {
	const fp, copies = 0x1234567812345678, 20_000
	for _, recent := range []int{-1, 1 << 30} {
		b.Run(map[int]string{-1: "bucket", 1 << 30: "level"}[recent], func(b *testing.B) {
			x, err := index.Open(filepath.Join(b.TempDir(), "c.simidx"), &index.Options{Log: directLog, NoSync: true, RecentBands: recent,
				Settings: &index.Settings{NoMinHash: true}})
			if err != nil {
				b.Fatal(err)
			}
			defer x.Close()
			for lo := 0; lo < copies; lo += 1000 {
				ds := make([]index.Doc, 1000)
				for i := range ds {
					ds[i] = index.Doc{ID: strconv.Itoa(lo + i), Fingerprint: fp, Precomputed: true}
				}
				if err := x.Add(ds...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				ms, err := x.QueryFingerprint(fp, nil)
				if err != nil || len(ms) != copies {
					b.Fatalf("%d matches, %v", len(ms), err)
				}
			}
		})
	}
}

// BenchmarkAddTextMerge adds texts of 30 to 80 words in commits of 1,000
// to the index of BenchmarkQueryText (minhash+filter), synced, until a
// merge of the in-memory levels has started and run all its slices, and
// reports the slowest commit (max-commit-ms, a slice of the merge among
// them) and the median one; ns/op is per commit.
func BenchmarkAddTextMerge(b *testing.B) {
	text, x := textBench(b, textIndex{"minhash+filter", true, true, 0})
	if err := x.Close(); err != nil {
		b.Fatal(err)
	}
	x, err := index.Open(x.Path(), &index.Options{Log: directLog, BandFilter: true}) // synced commits
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	var ds []time.Duration
	merged := false
	for i := 0; !merged || b.N > len(ds); i++ {
		docs := make([]index.Doc, 1000)
		for j := range docs {
			docs[j] = index.Doc{ID: fmt.Sprint("merge", i, "-", j), Text: text()}
		}
		st, err := x.Stats()
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := x.Add(docs...); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		after, err := x.Stats()
		if err != nil {
			b.Fatal(err)
		}
		merged = merged || after.RecentTables < st.RecentTables
	}
	var total time.Duration
	for _, d := range ds {
		total += d
	}
	slices.Sort(ds)
	b.ReportMetric(float64(total.Nanoseconds())/float64(len(ds)), "ns/op")
	b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, "max-commit-ms")
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-commit-ms")
	b.ReportMetric(float64(len(ds)), "commits")
}

// BenchmarkAnalyze measures the analysis of a text with the default
// settings, as a query or an add of text makes it: the tokens, the
// simhash fingerprint, the exact hash, the MinHash signature and its band
// hashes, for texts of 30 to 80 words drawn from the licence texts.
func BenchmarkAnalyze(b *testing.B) {
	text := textGen(b)
	texts := make([][]byte, 1000)
	size := 0
	for i := range texts {
		texts[i] = text()
		size += len(texts[i])
	}
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size / len(texts)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f.Analyze(texts[i%len(texts)])
	}
}

// BenchmarkClustersShort measures what simidx dedup does after its load
// on short texts: Clusters with center linkage (the band part of Pairs,
// whose pairs of short texts at several bands cost a MinHash of their
// short sets unless the bandCache holds their bands), and the comparison
// of each cluster's members with its center by ID (CompareAll) and by
// Member (CompareMembers). The index holds benchTexts() texts of 8 to 20
// words drawn from the licence texts, a third of them originals and the
// others copies of one with a word replaced. The bytes per second are
// documents.
func BenchmarkClustersShort(b *testing.B) {
	text := textGen(b)
	rng := rand.New(rand.NewPCG(7, 8))
	var docs []index.Doc
	for len(docs) < benchTexts() {
		ws := strings.Fields(string(text()))[:8+rng.IntN(13)]
		docs = append(docs, index.Doc{ID: "s" + strconv.Itoa(len(docs)), Text: []byte(strings.Join(ws, " "))})
		for range 2 {
			cp := slices.Clone(ws)
			cp[rng.IntN(len(cp))] = "edited"
			docs = append(docs, index.Doc{ID: "s" + strconv.Itoa(len(docs)), Text: []byte(strings.Join(cp, " "))})
		}
	}
	x, err := index.Open(filepath.Join(b.TempDir(), "s.simidx"), &index.Options{Log: directLog, NoSync: true, Settings: &index.Settings{ExpectedDocs: len(docs)}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
		b.Fatal(err)
	}
	center := &index.QueryOptions{Linkage: index.CenterLinkage}
	var clusters []index.Cluster
	clustersOf := func() {
		clusters = clusters[:0]
		if err := x.Clusters(context.Background(), center, func(c index.Cluster) error { clusters = append(clusters, c); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("clusters", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(docs)))
		for b.Loop() {
			clustersOf()
		}
	})
	clustersOf()
	if len(clusters) < len(docs)/6 {
		b.Fatalf("%d clusters of %d texts", len(clusters), len(docs))
	}
	members := 0
	for _, c := range clusters {
		members += len(c.Members)
	}
	for _, by := range []string{"ids", "members"} {
		b.Run("compare/"+by, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(members))
			for b.Loop() {
				for _, c := range clusters {
					i := slices.IndexFunc(c.Members, func(m index.Member) bool { return m.ID == c.Representative })
					k, others := c.Members[i], slices.Delete(slices.Clone(c.Members), i, i+1)
					var err error
					if by == "ids" {
						ids := make([]string, len(others))
						for i, m := range others {
							ids[i] = m.ID
						}
						_, err = x.CompareAll(k.ID, ids, nil)
					} else {
						_, err = x.CompareMembers(k, others, nil)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
