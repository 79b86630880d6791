package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBench(t *testing.T) {
	r := mustRun(t, "", "bench", "--no-minhash", "--sample", "20", "--rates", "0.02,0.2", "--unrelated", "100", licenses)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if !strings.HasPrefix(lines[0], "PAIRS  GROUP") || !strings.Contains(lines[0], "K<=12") ||
		strings.Contains(lines[0], "MINHASH") {
		t.Errorf("header %q", lines[0])
	}
	if !strings.Contains(lines[len(lines)-1], "unrelated") {
		t.Errorf("last row %q is not the unrelated pairs", lines[len(lines)-1])
	}

	// JSONL, with the MinHash layer (the default) and one row per edit
	// and rate.
	r = mustRun(t, "", "bench", "--format", "jsonl", "--by-edit", "--sample", "20",
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

	// The same seed gives the same figures.
	a := mustRun(t, "", "bench", "--sample", "10", "--rates", "0.1", "--unrelated", "50", licenses)
	b := mustRun(t, "", "bench", "--sample", "10", "--rates", "0.1", "--unrelated", "50", licenses)
	if a.stdout != b.stdout {
		t.Error("bench is not deterministic for a seed")
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
