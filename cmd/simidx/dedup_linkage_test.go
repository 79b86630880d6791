package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// linkageInput returns the licences of testdata and a chain of ten edited
// copies, each a near duplicate of the one before, as JSON lines: single
// linkage makes one cluster of the chain, whose ends are far apart.
func linkageInput(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(licenses, "*.txt"))
	if err != nil || len(files) < 20 {
		t.Fatalf("licences: %d, %v", len(files), err)
	}
	var b strings.Builder
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(jsonLine(t, filepath.Base(f), string(text)) + "\n")
	}
	rng := rand.New(rand.NewPCG(24, 3))
	text := "unrelated words of a planted chain "
	for i := range 200 {
		text += fmt.Sprintf("w%d ", rng.IntN(5000)+i)
	}
	for i := range 10 {
		b.WriteString(jsonLine(t, fmt.Sprint("chain", i), text) + "\n")
		text = eval.Apply(rng, text, eval.Substitute, 0.04)
	}
	return b.String()
}

// dedupCluster is a cluster of dedup -f jsonl.
type dedupCluster struct {
	Cluster        int      `json:"cluster"`
	Representative string   `json:"representative"`
	IDs            []string `json:"ids"`
	Keep           string   `json:"keep"`
	Members        []struct {
		ID         string   `json:"id"`
		Keep       bool     `json:"keep"`
		Distance   *int     `json:"distance"`
		Similarity *float64 `json:"similarity"`
	} `json:"members"`
}

func dedupClusters(t *testing.T, out string) []dedupCluster {
	t.Helper()
	var cs []dedupCluster
	for l := range strings.Lines(out) {
		var c dedupCluster
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		cs = append(cs, c)
	}
	return cs
}

// TestDedupLinkage checks --linkage: with center (the default) every
// member dropped is a pair of the member kept, which is the cluster's
// representative, for every --keep policy, and the keep and drop lists
// follow the clusters; single linkage chains.
func TestDedupLinkage(t *testing.T) {
	in := linkageInput(t)
	pairs := map[[2]string]bool{}
	for _, o := range jsonLines(t, mustRun(t, in, "dedup", "-q", "--pairs", "-f", "jsonl", "-").stdout, "a", "b", "distance", "similarity", "exact") {
		pairs[[2]string{o["a"].(string), o["b"].(string)}] = true
	}
	single := dedupClusters(t, mustRun(t, in, "dedup", "-q", "--linkage", "single", "-f", "jsonl", "-").stdout)
	far := 0
	for _, c := range single {
		if c.Representative != c.IDs[0] {
			t.Errorf("single linkage: representative %s, not the smallest ID of %v", c.Representative, c.IDs)
		}
		for _, m := range c.Members[1:] {
			if *m.Similarity < index.DefaultMinSimilarity {
				far++
			}
		}
	}
	if far == 0 {
		t.Errorf("single linkage: no member below the threshold to the kept one; the chain is not one cluster")
	}
	if d := mustRun(t, in, "dedup", "-q", "-f", "jsonl", "-").stdout; d != mustRun(t, in, "dedup", "-q", "--linkage", "center", "-f", "jsonl", "-").stdout {
		t.Errorf("the default is not --linkage center:\n%s", d)
	}
	for _, policy := range []string{"first", "last", "longest", "shortest", "id"} {
		for _, lk := range []string{"single", "center"} {
			out := mustRun(t, in, "dedup", "-q", "--linkage", lk, "--keep", policy, "-f", "jsonl", "-").stdout
			var wantDrop []string
			for _, c := range dedupClusters(t, out) {
				if !c.Members[0].Keep || c.Members[0].ID != c.Keep {
					t.Errorf("%s %s: cluster %v does not keep its first member", lk, policy, c.IDs)
				}
				for _, m := range c.Members[1:] {
					wantDrop = append(wantDrop, m.ID)
					if lk == "single" {
						continue
					}
					if !pairs[[2]string{min(c.Keep, m.ID), max(c.Keep, m.ID)}] || *m.Similarity < index.DefaultMinSimilarity {
						t.Errorf("--keep %s: %s is dropped for %s, and they are no pair (similarity %v)", policy, m.ID, c.Keep, *m.Similarity)
					}
				}
				if lk == "center" && c.Representative != c.Keep {
					t.Errorf("--keep %s: cluster %v keeps %s, its representative is %s", policy, c.IDs, c.Keep, c.Representative)
				}
			}
			drop := strings.Fields(mustRun(t, in, "dedup", "-q", "--linkage", lk, "--keep", policy, "--emit", "drop", "-").stdout)
			slices.Sort(drop)
			slices.Sort(wantDrop)
			if !slices.Equal(drop, wantDrop) {
				t.Errorf("%s %s: --emit drop %v, the clusters drop %v", lk, policy, drop, wantDrop)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--linkage", "average", "-"}, `--linkage must be single or center, not "average"`},
		{[]string{"--pairs", "--linkage", "single", "-"}, "--emit pairs writes the pairs themselves"},
	} {
		r := simidx(t, in, append([]string{"dedup", "-q"}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
			t.Errorf("dedup %q: want exit 2 and %q, got %v", tc.args, tc.msg, r)
		}
	}
}
