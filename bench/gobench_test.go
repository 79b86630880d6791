package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestParseGoBench reads go test -bench output of two packages, with
// custom metrics and three runs of each benchmark.
func TestParseGoBench(t *testing.T) {
	out := `goos: linux
goarch: amd64
pkg: github.com/simidx/simidx/index
cpu: AMD EPYC
BenchmarkQueryEdited/level-2               	   57102	     22082 ns/op	  15.49 MB/s	         0.3589 found/query	    1565 B/op	      31 allocs/op
BenchmarkQueryEdited/level+mirror-2        	   44808	     23774 ns/op	  14.39 MB/s	         0.3589 found/query	    1294 B/op	      25 allocs/op
BenchmarkQueryEdited/level-2               	   57102	     20000 ns/op	  15.49 MB/s	         0.3589 found/query	    1565 B/op	      30 allocs/op
BenchmarkQueryEdited/level+mirror-2        	   44808	     25000 ns/op	  14.39 MB/s	         0.3589 found/query	    1294 B/op	      26 allocs/op
BenchmarkQueryEdited/level-2               	   57102	     21000 ns/op	  15.49 MB/s	         0.3589 found/query	    1565 B/op	      29 allocs/op
BenchmarkQueryEdited/level+mirror-2        	   44808	     24000 ns/op	  14.39 MB/s	         0.3589 found/query	    1294 B/op	      27 allocs/op
BenchmarkAddTextMerge-2                    	       1	 131568006 ns/op	        74.00 commits	       466.0 max-commit-ms	        79.06 median-commit-ms	1841816472 B/op	13249383 allocs/op
PASS
ok  	github.com/simidx/simidx/index	60.521s
?   	github.com/simidx/simidx/internal/eval	[no test files]
pkg: github.com/simidx/simidx/cmd/simidx
BenchmarkOverlayPublish-2	  100000	     22000 ns/op	    9000 B/op	      35 allocs/op
BenchmarkNoMem	  100	     3.5 ns/op
PASS
`
	rows, err := parseGoBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []goBenchRow{
		{Pkg: "github.com/simidx/simidx/index", Name: "BenchmarkQueryEdited/level", NsOp: 21000, BOp: 1565, Allocs: 29, Metrics: []string{"15.49 MB/s", "0.3589 found/query"}},
		{Pkg: "github.com/simidx/simidx/index", Name: "BenchmarkQueryEdited/level+mirror", NsOp: 24000, BOp: 1294, Allocs: 27, Metrics: []string{"14.39 MB/s", "0.3589 found/query"}},
		{Pkg: "github.com/simidx/simidx/index", Name: "BenchmarkAddTextMerge", NsOp: 131568006, BOp: 1841816472, Allocs: 13249383, Metrics: []string{"74.00 commits", "466.0 max-commit-ms", "79.06 median-commit-ms"}},
		{Pkg: "github.com/simidx/simidx/cmd/simidx", Name: "BenchmarkOverlayPublish", NsOp: 22000, BOp: 9000, Allocs: 35},
		{Pkg: "github.com/simidx/simidx/cmd/simidx", Name: "BenchmarkNoMem", NsOp: 3.5, BOp: -1, Allocs: -1},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i := range want {
		g, w := rows[i], want[i]
		if g.Pkg != w.Pkg || g.Name != w.Name || g.NsOp != w.NsOp || g.BOp != w.BOp || g.Allocs != w.Allocs || strings.Join(g.Metrics, ";") != strings.Join(w.Metrics, ";") {
			t.Errorf("row %d: %+v, want %+v", i, g, w)
		}
	}
	if _, err := parseGoBench(strings.NewReader("BenchmarkX-2 10 5 B/op\n")); err == nil {
		t.Error("a line without ns/op was accepted")
	}

	var b bytes.Buffer
	writeGoBenches(&b, []goBenchResult{{Spec: goBench{Title: "Edited", What: "{N} and {TEXTS}.", Sized: true, Compare: true}, Command: "go test ./index", Rows: rows[:2]}}, 3, false)
	for _, s := range []string{"**Edited.** 100,000 and 10,000.", "| BenchmarkQueryEdited/level+mirror | 24.0 µs | 1.14x | 14.39 MB/s, 0.3589 found/query | 1.3 kB | 27 |", "run 3 times in turn"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("section lacks %q:\n%s", s, b.String())
		}
	}
}

// TestGoBenchCommand checks the command lines the report shows.
func TestGoBenchCommand(t *testing.T) {
	spec := goBench{Pkg: "./index", Bench: `BenchmarkAdd(Text|Probed)/minhash\+filter$`, Time: "40x"}
	got := strings.Join(goBenchCommand(spec, false), " ")
	if want := `go test ./index -run ^$ -bench BenchmarkAdd(Text|Probed)/minhash\+filter$ -benchmem -benchtime 40x`; got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	if got := strings.Join(goBenchCommand(goBench{Pkg: "./...", Bench: "X$"}, true), " "); !strings.HasSuffix(got, "-benchmem -benchtime 10x") {
		t.Errorf("quick command %q", got)
	}
	if q := shellQuote(`a+b$`); q != `'a+b$'` {
		t.Errorf("shellQuote: %s", q)
	}
	if q := shellQuote("./index"); q != "./index" {
		t.Errorf("shellQuote: %s", q)
	}
	if n := trimProcs("BenchmarkParseDocs/100-2"); n != "BenchmarkParseDocs/100" {
		t.Errorf("trimProcs: %s", n)
	}
	if n := trimProcs("BenchmarkX/level+mirror"); n != "BenchmarkX/level+mirror" {
		t.Errorf("trimProcs: %s", n)
	}
}
