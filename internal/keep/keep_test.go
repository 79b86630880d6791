package keep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/usage"
)

func TestKept(t *testing.T) {
	c := index.Cluster{Number: 3, Members: []index.Member{
		{ID: "m", Seq: 5}, {ID: "b", Seq: 2}, {ID: "z", Seq: 9}, {ID: "k", Seq: 7},
	}}
	sizes := map[string]int64{"m": 10, "b": 30, "z": 5, "k": 30}
	for policy, want := range map[string]string{First: "b", Last: "z", ID: "b", Longest: "b", Shortest: "z"} {
		got, err := Kept(c, policy, sizes)
		if err != nil || got.ID != want {
			t.Errorf("Kept(%s) = %s, %v; want %s", policy, got.ID, err, want)
		}
	}
	delete(sizes, "k")
	if _, err := Kept(c, Longest, sizes); err == nil || !strings.Contains(err.Error(), `"k" of cluster 3 was not read`) {
		t.Errorf("a member without a size: %v", err)
	}
	if got, err := Kept(c, First, nil); err != nil || got.ID != "b" {
		t.Errorf("Kept(first) without sizes = %s, %v", got.ID, err)
	}
}

// TestCenterKept checks, on the licences of testdata and edited copies of
// them in a real index, that with center linkage every policy keeps the
// center of each cluster and drops only near duplicates of the member it
// keeps (pairs of Pairs), and that Drops drops what Clusters does, under
// either linkage.
func TestCenterKept(t *testing.T) {
	files, err := filepath.Glob("../../testdata/licenses/*.txt")
	if err != nil || len(files) < 20 {
		t.Fatalf("licences: %d, %v", len(files), err)
	}
	rng := rand.New(rand.NewPCG(24, 2))
	var docs []index.Doc
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, index.Doc{ID: filepath.Base(f), Text: b})
		if rng.IntN(2) == 0 {
			e := eval.Edits[rng.IntN(len(eval.Edits))]
			docs = append(docs, index.Doc{ID: filepath.Base(f) + "~" + e.String(), Text: []byte(eval.Apply(rng, string(b), e, 0.1))})
		}
	}
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	sizes := map[string]int64{}
	for _, d := range docs {
		sizes[d.ID] = int64(len(d.Text))
	}
	x, err := index.Open(filepath.Join(t.TempDir(), "x.simidx"), &index.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Add(docs...); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	paired := map[[2]string]bool{}
	if err := x.Pairs(ctx, nil, func(p index.Pair) error { paired[[2]string{p.A, p.B}] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, lk := range []index.Linkage{index.SingleLinkage, index.CenterLinkage} {
		for _, policy := range []string{First, Last, Longest, Shortest, ID} {
			t.Run(fmt.Sprint(lk, " ", policy), func(t *testing.T) {
				opts := &index.QueryOptions{Linkage: lk}
				want := map[string]bool{}
				clusters := 0
				err := Clusters(ctx, x, opts, policy, sizes, func(c index.Cluster, k index.Member) error {
					clusters++
					if lk == index.CenterLinkage && k.ID != c.Representative {
						t.Errorf("cluster %v keeps %s, not its center %s", c.IDs, k.ID, c.Representative)
					}
					for _, m := range c.Members {
						if m.ID == k.ID {
							continue
						}
						want[m.ID] = true
						if lk == index.CenterLinkage && !paired[[2]string{min(k.ID, m.ID), max(k.ID, m.ID)}] {
							t.Errorf("%s is dropped for %s, and they are no pair", m.ID, k.ID)
						}
					}
					return nil
				})
				if err != nil || clusters < 10 {
					t.Fatalf("%d clusters, %v", clusters, err)
				}
				drop, err := Drops(ctx, x, opts, policy, sizes)
				if err != nil || fmt.Sprint(drop) != fmt.Sprint(want) {
					t.Errorf("Drops = %v, %v; want %v", drop, err, want)
				}
			})
		}
	}
}

// TestWriteRecords checks that the lines of the documents kept are copied
// as read, in reading order, a last line without a line end given one.
func TestWriteRecords(t *testing.T) {
	rd, err := NewDocs(t.TempDir(), true, true)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for _, l := range []struct{ id, raw string }{
		{"a", "{\"id\":\"a\"}\r\n"}, {"b", "b line\n"}, {"c", "  c, as it is  \n"}, {"d", "no line end"},
	} {
		rd.Add(&index.Doc{ID: l.id, Text: []byte(l.raw[:2])}, []byte(l.raw))
	}
	var b bytes.Buffer
	if err := rd.WriteRecords(&b, map[string]bool{"b": true}); err != nil {
		t.Fatal(err)
	}
	if want := "{\"id\":\"a\"}\r\n  c, as it is  \nno line end\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	if s := rd.Sizes(); len(s) != 4 || s["a"] != 2 {
		t.Errorf("Sizes() = %v", s)
	}
	// Read twice: the spool stays.
	b.Reset()
	if err := rd.WriteRecords(&b, nil); err != nil || strings.Count(b.String(), "\n") != 4 {
		t.Errorf("second WriteRecords: %q, %v", b.String(), err)
	}
	rd.Add(&index.Doc{ID: "file.txt"}, nil)
	var ue *usage.Error
	if err := rd.WriteRecords(&b, nil); !errors.As(err, &ue) || !strings.Contains(err.Error(), `"file.txt" was read as a whole file`) {
		t.Errorf("a whole file: %v, want a usage error", err)
	}
}
