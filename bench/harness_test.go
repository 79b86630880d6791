package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/simidx/simidx/internal/eval"
)

func TestScore(t *testing.T) {
	truth := map[eval.Pair]float64{{A: 0, B: 1}: 0.9, {A: 0, B: 2}: 0.6, {A: 1, B: 2}: 0.85}
	reported := map[eval.Pair]bool{{A: 0, B: 1}: true, {A: 0, B: 2}: true, {A: 2, B: 3}: true}
	m := score("m", "p", truth, reported)
	// Positives J >= 0.8: (0,1) found, (1,2) missed; (2,3) is below the
	// floor, a false positive; (0,2) is grey.
	if m.Hi != (eval.Counts{TP: 1, FN: 1, FP: 1}) || m.Hi.F1() != 0.5 {
		t.Errorf("Hi = %+v, F1 %v; want tp 1 fn 1 fp 1, F1 0.5", m.Hi, m.Hi.F1())
	}
	if m.HiStrict != (eval.Counts{TP: 1, FN: 1, FP: 2}) || math.Abs(m.HiStrict.F1()-0.4) > 1e-12 {
		t.Errorf("HiStrict = %+v, F1 %v; want tp 1 fn 1 fp 2, F1 0.4", m.HiStrict, m.HiStrict.F1())
	}
	if m.All != (eval.Counts{TP: 2, FN: 1, FP: 1}) {
		t.Errorf("All = %+v, want tp 2 fn 1 fp 1", m.All)
	}
	if m.Reported != 3 || m.Below != 1 {
		t.Errorf("Reported %d Below %d, want 3 and 1", m.Reported, m.Below)
	}
	wantFound, wantTotal := []int{0, 1, 0, 0, 1}, []int{0, 1, 0, 1, 1}
	if fmt.Sprint(m.Found) != fmt.Sprint(wantFound) || fmt.Sprint(m.Total) != fmt.Sprint(wantTotal) {
		t.Errorf("per bin found %v of %v, want %v of %v", m.Found, m.Total, wantFound, wantTotal)
	}
}

func TestBestF1(t *testing.T) {
	mk := func(p string, tp, fn, fp int) methodResult {
		return methodResult{Param: p, Hi: eval.Counts{TP: tp, FN: fn, FP: fp}}
	}
	ms := []methodResult{mk("a", 1, 1, 0), mk("b", 2, 0, 0), mk("c", 2, 0, 0)}
	if b := bestF1(ms); b.Param != "b" {
		t.Errorf("bestF1 = %s, want b (the first of equals)", b.Param)
	}
}

func TestPairsWithin(t *testing.T) {
	fps := []uint64{0, 1, 3, 0xff}
	got := pairsWithin(fps, 2)
	want := map[eval.Pair]int{{A: 0, B: 1}: 1, {A: 0, B: 2}: 2, {A: 1, B: 2}: 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pairsWithin = %v, want %v", got, want)
	}
}

func TestSortPairs(t *testing.T) {
	// Hand-made: 0 and 7 differ in 3 bits, 0 and 1<<63|1 in 2 (in the
	// first and last block), 7 and 1<<63|1 in 3.
	fps := []uint64{0, 7, 1<<63 | 1, 0xffff_0000_0000_0000}
	if n, _ := sortPairs(fps, 3); n != 3 {
		t.Errorf("sortPairs = %d pairs, want 3", n)
	}
	if n, _ := sortPairs(fps, 2); n != 1 {
		t.Errorf("sortPairs k=2 = %d pairs, want 1", n)
	}
	// Against brute force on planted fingerprints.
	for _, k := range []int{0, 1, 3, 5} {
		fps := plantFingerprints(3000, k, 0.3, rand.New(rand.NewPCG(uint64(k), 9)))
		n, sum := sortPairs(fps, k)
		bn, bsum := 0, uint64(0)
		for i := range fps {
			for j := i + 1; j < len(fps); j++ {
				if bits.OnesCount64(fps[i]^fps[j]) <= k {
					bn++
					bsum += pairHash(i, j)
				}
			}
		}
		if n != bn || sum != bsum || n < 900 {
			t.Errorf("k=%d: sortPairs %d pairs, brute force %d (sums equal: %v)", k, n, bn, sum == bsum)
		}
	}
}

func TestPlantFingerprints(t *testing.T) {
	fps := plantFingerprints(1000, 3, 0.1, rand.New(rand.NewPCG(1, 1)))
	for c := range 100 {
		near := false
		for _, f := range fps[:900] {
			if bits.OnesCount64(f^fps[999-c]) <= 3 {
				near = true
				break
			}
		}
		if !near {
			t.Fatalf("copy %d is not within 3 bits of an original", c)
		}
	}
}

func TestIdNum(t *testing.T) {
	if n := idNum(fmt.Sprintf("doc%09d", 12345)); n != 12345 {
		t.Errorf("idNum = %d", n)
	}
	if pairHash(3, 5) != pairHash(5, 3) || pairHash(3, 5) == pairHash(3, 6) {
		t.Error("pairHash is not symmetric or collides")
	}
}

func TestQuantileAndSummary(t *testing.T) {
	xs := []float64{5, 1, 3, 2, 4}
	if q := quantile(xs, 0.5); q != 3 {
		t.Errorf("median = %v, want 3", q)
	}
	if q := quantile(xs, 0.9); q != 4 {
		t.Errorf("p90 = %v, want 4 (index floor(0.9*4) = 3)", q)
	}
	ps := []plantedPair{
		{Jaccard: 0.9, Distance: 0, Band: true, Estimate: 0.9},
		{Jaccard: 0.7, Distance: 2, Band: true, Estimate: 0.7},
		{Jaccard: 0.5, Distance: 5, Band: false, Estimate: 0.85},
		{Jaccard: 0.9, Distance: 9},
	}
	s := summarizePairs(ps)
	if s.N != 4 || s.MeanJ != 0.75 || s.Within[0] != 0.25 || s.Within[2] != 0.5 || s.Within[5] != 0.75 || s.Within[8] != 0.75 || s.MinHash != 0.25 {
		t.Errorf("summary %+v", s)
	}
	bins := byBin(ps, eval.Bins(0.5, 0.25)) // [0.5,0.75) [0.75,1]
	if len(bins[0]) != 2 || len(bins[1]) != 2 {
		t.Errorf("byBin sizes %d %d, want 2 2", len(bins[0]), len(bins[1]))
	}
}

func TestMinhashEval(t *testing.T) {
	a := "the quick brown fox jumps over the lazy dog and keeps running through the field until night falls"
	texts := [][]byte{[]byte(a), []byte(a), []byte("entirely different words make another document that shares nothing with the first one at all here")}
	truth := map[eval.Pair]float64{{A: 0, B: 1}: 1}
	ms, info, err := minhashEval(texts, []uint64{1, 1, 2}, map[eval.Pair]int{{A: 0, B: 1}: 0}, nil, truth)
	if err != nil {
		t.Fatal(err)
	}
	if info.n != 1 || len(ms) != len(mhThreshold) || len(info.idx) != len(mhThreshold) {
		t.Fatalf("candidates %d, %d results, %d index results", info.n, len(ms), len(info.idx))
	}
	for _, m := range append(ms, info.idx...) {
		if m.Reported != 1 || m.Hi.F1() != 1 {
			t.Errorf("%s %s: reported %d, F1 %v; want 1 and 1", m.Method, m.Param, m.Reported, m.Hi.F1())
		}
	}
}

func TestNiceStepAndTicks(t *testing.T) {
	for _, c := range []struct{ raw, want float64 }{{0.17, 0.2}, {1, 1}, {3, 5}, {7, 10}, {0.04, 0.05}, {120, 200}} {
		if got := niceStep(c.raw); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("niceStep(%v) = %v, want %v", c.raw, got, c.want)
		}
	}
	a := newAxis([]float64{0, 0.93}, false, nil, nil, 0, 100)
	if a.lo != 0 || math.Abs(a.hi-1) > 1e-12 {
		t.Errorf("linear axis [%v, %v], want [0, 1]", a.lo, a.hi)
	}
	if p := a.pos(0.25); math.Abs(p-25) > 1e-9 {
		t.Errorf("pos(0.25) = %v, want 25", p)
	}
	if fmt.Sprint(a.ticks()) != "[0 0.2 0.4 0.6 0.8 1]" {
		t.Errorf("ticks %v", a.ticks())
	}
	l := newAxis([]float64{3, 2e4}, true, nil, nil, 0, 400)
	if l.lo != 0 || l.hi != 5 || fmt.Sprint(l.ticks()) != "[1 10 100 1000 10000 100000]" {
		t.Errorf("log axis [%v, %v] ticks %v", l.lo, l.hi, l.ticks())
	}
	if p := l.pos(1000); math.Abs(p-240) > 1e-9 { // 3/5 of 400
		t.Errorf("log pos(1000) = %v, want 240", p)
	}
	if tickLabel(1e6) != "1e6" || tickLabel(0.5) != "0.5" || tickLabel(250) != "250" {
		t.Errorf("labels %q %q %q", tickLabel(1e6), tickLabel(0.5), tickLabel(250))
	}
}

func TestChartSVG(t *testing.T) {
	one, zero := 1.0, 0.0
	c := &chart{Title: "T <&>", XLabel: "x", YLabel: "y", YMin: &zero, YMax: &one, Series: []series{
		{Name: "a & b", X: []float64{0, 1, 2}, Y: []float64{0, 0.5, 1}},
		{Name: "gap", X: []float64{0, 1, 2}, Y: []float64{0.2, math.NaN(), 0.4}},
	}}
	var b bytes.Buffer
	if err := c.write(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	// x axis 0..2 over [70, 530], y 0..1 over [385, 40].
	for _, want := range []string{`points="70.0,385.0 300.0,212.5 530.0,40.0"`, "T &lt;&amp;&gt;", "a &amp; b"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %s", want)
		}
	}
	if n := strings.Count(svg, "<polyline"); n != 1 {
		t.Errorf("%d polylines, want 1 (the second series has no two consecutive points)", n)
	}
	if n := strings.Count(svg, "<circle"); n != 5 {
		t.Errorf("%d points, want 5", n)
	}
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
	// Log axes drop non-positive values.
	lc := &chart{LogX: true, LogY: true, Series: []series{{Name: "s", X: []float64{0, 10, 100}, Y: []float64{1, 10, 100}}}}
	b.Reset()
	if err := lc.write(&b); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "<circle"); n != 2 {
		t.Errorf("log chart: %d points, want 2", n)
	}
}

// TestAllQuick runs the whole harness on a tiny generated corpus, writing
// into a temporary directory.
func TestAllQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("smoke run")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 5))
	vocab := make([]string, 400)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%d", i, rng.IntN(1000))
	}
	doc := func() []string {
		ws := make([]string, 80+rng.IntN(100))
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return ws
	}
	for _, name := range []string{"spamassassin-body", "brown", "spdx-licenses"} {
		var b bytes.Buffer
		for i := range 60 {
			ws := doc()
			line, _ := json.Marshal(map[string]string{"id": fmt.Sprint(i), "text": strings.Join(ws, " ")})
			b.Write(append(line, '\n'))
			if name != "brown" && i%3 == 0 { // a near duplicate
				ws[rng.IntN(len(ws))] = "changed"
				line, _ := json.Marshal(map[string]string{"id": fmt.Sprint(i, "b"), "text": strings.Join(ws, " ")})
				b.Write(append(line, '\n'))
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	start := time.Now()
	r, err := runAll(allConfig{Corpora: dir, Out: out, Quick: true, Sizes: []int{2000}, Command: "test", Serve: testServeResults(), Pages: testPagesResults(), Beam: testBeamResults()}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("all --quick on the tiny corpus: %v", time.Since(start))
	md, err := os.ReadFile(filepath.Join(out, "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Defaults and the figures behind them", "## Ground truth on real corpora", "### spamassassin-body",
		"## Recall versus distance on planted edits", "### Fingerprints", "## Clusters: single and center linkage\n",
		"| spdx-licenses | center, input order |", "## simidx bench recommends\n", "| spdx-licenses | ", "### Index: queries, bulk load, Pairs",
		"### simidx index end to end", "## Simhash feature choices", "corpora not found", "same pairs as the in-memory sort-based join",
		"### Go benchmarks of the index and the server", "**QueryFingerprint: the table level.**", serveResultsIntro,
		beamHeading + "\n", keysHeading + "\n", "| spdx-licenses | 5 blocks, 10 tables,",
		"| add | add | *cur/base* |  | 1.11x | 1.11x | 0.50x | 0.50x | 0.50x |  |  |  |  |\n"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("benchmarks.md lacks %q", want)
		}
	}
	if section, ok := serveSection(string(md)); !ok {
		t.Error("benchmarks.md has no section on simidx serve under load")
	} else if res, err := embeddedServeResults(section); err != nil || !reflect.DeepEqual(res, testServeResults()) {
		t.Errorf("the serve results copied into benchmarks.md: %+v, %v", res, err)
	}
	if section, i := pagesSection(string(md)); i < 0 {
		t.Error("benchmarks.md has no section on the pages")
	} else if res, err := embeddedPagesResults(section); err != nil || res == nil || res.Command != testPagesResults().Command {
		t.Errorf("the pages results copied into benchmarks.md: %+v, %v", res, err)
	}
	if sa := r.truthOf("spamassassin-body"); sa == nil || sa.Pairs < 20 {
		t.Errorf("ground truth of the generated corpus: %+v", sa)
	}
	charts, _ := filepath.Glob(filepath.Join(out, "charts", "*.svg"))
	if len(charts) != 9 {
		t.Errorf("%d charts, want 9: %v", len(charts), charts)
	}
}

// TestFsyncProbe runs the fsync probe briefly, with a busy thread.
func TestFsyncProbe(t *testing.T) {
	var out bytes.Buffer
	if err := runFsync(fsyncConfig{Dir: t.TempDir(), Record: 100, Busy: 1, Duration: 200 * time.Millisecond}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "with 1 busy threads alongside") || !strings.Contains(out.String(), "p99 ") {
		t.Fatalf("unexpected report:\n%s", out.String())
	}
}

// TestServeSectionInDocs checks that the section of the committed
// docs/benchmarks.md on simidx serve under load is what bench/all.go
// writes: the current serveNote, which says how to run the load test that
// all leaves out, or, when all was given --serve-results, the section
// generated from the results copied after it. The note and the section
// are edited in bench/, and only a run of the whole harness rewrites the
// file.
func TestServeSectionInDocs(t *testing.T) {
	md, err := os.ReadFile(filepath.Join("..", "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, ok := serveSection(string(md))
	if !ok {
		t.Fatal("docs/benchmarks.md has no section \"### simidx serve under load\"")
	}
	res, err := embeddedServeResults(section)
	if err != nil {
		t.Fatalf("docs/benchmarks.md: %v", err)
	}
	var want strings.Builder
	writeServeSection(&want, res)
	if section != want.String() {
		if res == nil {
			t.Errorf("docs/benchmarks.md does not hold serveNote (bench/all.go): copy the note into it:\n%s", want.String())
		} else {
			t.Errorf("the serve section of docs/benchmarks.md is not the one bench/ generates from the results it holds; replace it with:\n%s", want.String())
		}
	}
}

// serveSection returns the section of md on simidx serve under load, up
// to the next heading.
func serveSection(md string) (string, bool) {
	const head = "### simidx serve under load\n"
	i := strings.Index(md, head)
	if i < 0 {
		return "", false
	}
	rest := md[i:]
	end := len(rest)
	for j := len(head); j < len(rest); {
		line, _, _ := strings.Cut(rest[j:], "\n")
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ") {
			end = j
			break
		}
		j += len(line) + 1
	}
	return rest[:end], true
}
