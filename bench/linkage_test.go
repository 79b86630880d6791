package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
)

// TestLinkage runs the linkage comparison on the licences of testdata and
// a planted chain of edited copies, each a near duplicate of the one
// before: single linkage joins the chain into one cluster with members
// far from the one kept, center linkage splits it, and every figure
// agrees with the others.
func TestLinkage(t *testing.T) {
	files, err := filepath.Glob("../testdata/licenses/*.txt")
	if err != nil || len(files) < 20 {
		t.Fatalf("licences: %d, %v", len(files), err)
	}
	var b bytes.Buffer
	add := func(id, text string) {
		line, _ := json.Marshal(map[string]string{"id": id, "text": text})
		b.Write(append(line, '\n'))
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(f), string(text))
	}
	rng := rand.New(rand.NewPCG(24, 3))
	text := "unrelated words of a planted chain "
	for i := range 200 {
		text += fmt.Sprintf("w%d ", rng.IntN(5000)+i)
	}
	for i := range 10 {
		add(fmt.Sprint("chain", i), text)
		text = eval.Apply(rng, text, eval.Substitute, 0.04)
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := runLinkage("c", path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(linkageVariants) {
		t.Fatalf("%d rows", len(rows))
	}
	single := rows[0]
	if single.FarClusters == 0 || single.MinSim >= index.DefaultMinSimilarity || single.Lonely != 0 {
		t.Errorf("single linkage: %+v; want far members below the threshold and no lonely document", single)
	}
	for _, r := range rows[1:] {
		if r.Far != 0 || r.FarClusters != 0 || r.MinSim < index.DefaultMinSimilarity {
			t.Errorf("%s: %+v; want no far member", r.Variant, r)
		}
		// The documents with a pair are those single linkage clusters.
		if r.InClusters+r.Lonely != single.InClusters || r.Dropped > single.Dropped || r.Dropped != r.InClusters-r.Clusters {
			t.Errorf("%s: %+v, against single %+v", r.Variant, r, single)
		}
	}
	var md bytes.Buffer
	writeLinkage(&md, rows)
	for _, want := range []string{"| c | single |", "| c | center, input order | 78 |", "| c | center, by degree |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
