package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBench(t *testing.T) {
	r := mustRun(t, "", "bench", "--no-minhash", "--join-sample", "0", "--by-distance", "--sample", "20", "--rates", "0.02,0.2", "--unrelated", "100", licenses)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if !strings.HasPrefix(lines[1], "PAIRS  GROUP") || !strings.Contains(lines[1], "K<=12") ||
		strings.Contains(lines[1], "MINHASH") {
		t.Errorf("header %q", lines[1])
	}
	if !strings.Contains(lines[len(lines)-1], "unrelated") {
		t.Errorf("last row %q is not the unrelated pairs", lines[len(lines)-1])
	}

	// JSONL, with the MinHash layer (the default) and one row per edit
	// and rate.
	r = mustRun(t, "", "bench", "--format", "jsonl", "--by-edit", "--sample", "20", "--join-sample", "0",
		"--rates", "0.05", "--edits", "substitute,crop", "--unrelated", "100", licenses)
	objs := jsonLines(t, r.stdout, "group", "?edit", "?rate", "?jaccard_lo", "?jaccard_hi", "pairs",
		"mean_jaccard", "distance_p50", "distance_p90", "within_k", "minhash_found", "query_found")
	edits := 0
	planted := 0.0
	for _, o := range objs {
		if o["group"] == "edit" {
			edits++
			n, _ := o["pairs"].(json.Number).Int64()
			if n != 20 {
				t.Errorf("edit row with %d pairs, want one per sampled document: %v", n, o)
			}
		}
		if strings.HasPrefix(o["group"].(string), "jaccard") {
			n, _ := o["pairs"].(json.Number).Float64()
			planted += n
		}
		if k := o["within_k"].([]any); len(k) != 13 {
			t.Errorf("within_k has %d values", len(k))
		}
	}
	if edits != 2 || planted != 40 {
		t.Errorf("%d edit rows and %v planted pairs, want 2 and 40", edits, planted)
	}

	// The same seed gives the same figures, but for the times.
	untimed := func(out string) string {
		var b strings.Builder
		for l := range strings.Lines(out) {
			if !strings.HasPrefix(l, "(an exact join, ") {
				b.WriteString(l)
			}
		}
		return b.String()
	}
	a := mustRun(t, "", "bench", "--sample", "10", "--join-sample", "40", "--rates", "0.1", "--unrelated", "50", licenses)
	b := mustRun(t, "", "bench", "--sample", "10", "--join-sample", "40", "--rates", "0.1", "--unrelated", "50", licenses)
	if untimed(a.stdout) != untimed(b.stdout) || !strings.Contains(a.stdout, "Real pairs: 40 documents sampled of 68") {
		t.Errorf("bench is not deterministic for a seed:\n%s\n%s", a.stdout, b.stdout)
	}
}

func TestBenchErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench"}, "give the documents to sample"},
		{[]string{"bench", "--edits", "rewrite", licenses}, `unknown edit "rewrite"`},
		{[]string{"bench", "--rates", "1.5", licenses}, `"1.5" is not a number between 0 and 1`},
		{[]string{"bench", "--sample", "1", licenses}, "--sample must be at least 2"},
		{[]string{"bench", "--join-sample", "1", licenses}, "--join-sample must be 0 (no real pairs) or at least 2"},
		{[]string{"bench", "--target-similarity", "0", licenses}, "--target-similarity must be above 0 and at most 1, not 0"},
		{[]string{"bench", "--target-similarity", "NaN", licenses}, "--target-similarity must be above 0"},
		{[]string{"bench", "--prefer", "speed", licenses}, `--prefer must be precision, recall or f1, not "speed"`},
		{[]string{"bench", "--min-similarity", "1.5", licenses}, "--min-similarity must be 0 to 1"},
		{[]string{"bench", "--no-minhash", "--min-similarity", "0.7", licenses}, "--min-similarity needs a similarity"},
	} {
		r := simidx(t, "", c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("simidx %s: want exit 2 and %q, got %v", strings.Join(c.args, " "), c.want, r)
		}
	}
	r := simidx(t, "", "bench", "--min-words", "100000", licenses)
	if r.code != exitError || !strings.Contains(r.stderr, "bench needs 2 or more") {
		t.Errorf("too few documents: %v", r)
	}
}

// TestBenchRecommends checks the report on real pairs: every line of the
// default output fits 100 columns, the recommendation names a setting of
// the sweep and the commands that use it, and the recommended dedup,
// run on the same documents (the whole corpus is the sample), reports the
// pairs the sweep counted for that setting.
func TestBenchRecommends(t *testing.T) {
	r := mustRun(t, "", "bench", "--sample", "10", "--rates", "0.1", "--unrelated", "50", licenses)
	for l := range strings.Lines(r.stdout) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(l, "\n")); n > 100 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	for _, want := range []string{
		"Real pairs: 68 documents sampled of 68 with words, 25 pairs with J >= 0.8 among them\n",
		"F1 for J >= 0.8 by k (rows) and --min-similarity (columns)\n",
		"K  MIN_SIM  PAIRS  TP  FP  FN  PRECISION  RECALL  F1    NOTE\n",
		"yours\n",
		"Recommended for J >= 0.8, F1 first: -k ",
		"  simidx dedup -k ", "  simidx index --db INDEX.db -k ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	for _, prefer := range []string{"f1", "precision", "recall"} {
		r := mustRun(t, "", "bench", "-f", "jsonl", "--prefer", prefer, "--sample", "10", "--rates", "0.1", "--unrelated", "50", licenses)
		var rec map[string]any
		settings := 0
		for _, o := range jsonLines(t, r.stdout, "group", "?k", "?min_similarity", "?reported", "?docs", "?read", "?target_similarity",
			"?prefer", "?true_pairs", "?settings", "?join_seconds", "?sweep_seconds", "?tp", "?fp", "?fn", "?precision", "?recall", "?f1", "?score",
			"?dedup", "?index", "?dedup_index", "?edit", "?rate", "?jaccard_lo", "?jaccard_hi", "?pairs", "?mean_jaccard", "?distance_p50",
			"?distance_p90", "?within_k", "?minhash_found", "?query_found") {
			switch o["group"] {
			case "real":
				settings++
			case "recommended":
				rec = o
			}
		}
		if settings != 99 || rec == nil {
			t.Fatalf("--prefer %s: %d settings, recommendation %v", prefer, settings, rec)
		}
		// The recommended dedup reports the pairs the sweep counted.
		args := strings.Fields(rec["dedup"].(string))
		if args[0] != "simidx" || args[1] != "dedup" || args[len(args)-1] != licenses {
			t.Fatalf("recommended %q", rec["dedup"])
		}
		p := mustRun(t, "", append([]string{"dedup", "-q", "--pairs", "-f", "jsonl"}, args[2:]...)...)
		if n := strings.Count(p.stdout, "\n"); fmt.Sprint(n) != rec["reported"].(json.Number).String() {
			t.Errorf("--prefer %s: %s reports %d pairs; the sweep counted %v", prefer, rec["dedup"], n, rec["reported"])
		}
	}
	// Without the MinHash layer, k alone; with --db, the index's settings
	// and k up to its own.
	r = mustRun(t, "", "bench", "--no-minhash", "--sample", "10", "--rates", "0.1", "--unrelated", "50", licenses)
	if !strings.Contains(r.stdout, "\n8  -        ") || !strings.Contains(r.stdout, "  simidx dedup --no-minhash -k ") {
		t.Errorf("--no-minhash:\n%s", r.stdout)
	}
	db := buildIndex(t)
	r = mustRun(t, "", "bench", "--db", db, "-f", "jsonl", "--sample", "10", "--rates", "0.1", "--unrelated", "50", licenses)
	ks := 0
	for l := range strings.Lines(r.stdout) {
		if strings.Contains(l, `"group":"real",`) {
			ks++
			if strings.Contains(l, `"k":4`) {
				t.Errorf("a setting beyond the k of the index: %s", l)
			}
		}
		if strings.Contains(l, `"group":"recommended"`) && !strings.Contains(l, `"dedup":"simidx dedup --db `+db) {
			t.Errorf("recommended: %s", l)
		}
	}
	if ks != 4*11 {
		t.Errorf("%d settings with --db, want 44 (k 0 to 3)", ks)
	}
}
