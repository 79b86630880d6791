package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/testcorpus"
)

// linkageCorpora are the corpora the linkages of simidx dedup are compared
// on.
var linkageCorpora = []string{"spdx-licenses", "spamassassin-body", "fortunes-en", "fortunes-ru", "manpages-en", "manpages-ru"}

// linkageVariant is one way of joining the pairs into clusters, with the
// member kept: the first in input order (simidx dedup --keep first).
type linkageVariant struct {
	Name    string
	Linkage index.Linkage
	// ByDegree takes the centers by their number of pairs, the most
	// first, instead of in input order.
	ByDegree bool
}

var linkageVariants = []linkageVariant{
	{"single", index.SingleLinkage, false},
	{"center, input order", index.CenterLinkage, false},
	{"center, by degree", index.CenterLinkage, true},
}

// linkageRow is what one variant makes of one corpus.
type linkageRow struct {
	Corpus  string
	Variant string
	Docs    int // documents indexed
	Pairs   int // pairs of the default query
	// Clusters, the documents in them, the documents dropped (all but the
	// one kept of each) and the size of the largest.
	Clusters, InClusters, Dropped, Largest int
	// Far is the number of members that are no pair of the member kept
	// (not among the matches of QueryID of the kept one: below the
	// threshold by the index's rule), and FarClusters the clusters with
	// one or more.
	Far, FarClusters int
	// MinSim is the lowest similarity of a member to the kept one
	// (index.Compare), 1 without clusters.
	MinSim float64
	// Lonely are the documents that have a pair and are in no cluster:
	// kept, though a near duplicate of a document dropped.
	Lonely int
}

// FarShare is the share of clusters with a member that is no pair of the
// kept one.
func (r linkageRow) FarShare() float64 {
	if r.Clusters == 0 {
		return 0
	}
	return float64(r.FarClusters) / float64(r.Clusters)
}

// runLinkage indexes the corpus at path (the first maxDocs documents if
// maxDocs > 0) with the default settings, as simidx dedup does, and
// measures the clusters of every linkage variant under the default query.
func runLinkage(name, path string, maxDocs int) ([]linkageRow, error) {
	docs, err := testcorpus.Load(path)
	if err != nil {
		return nil, err
	}
	if maxDocs > 0 && len(docs) > maxDocs {
		docs = docs[:maxDocs]
	}
	dir, err := os.MkdirTemp("", "simidx-bench-linkage")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	x, err := index.Open(filepath.Join(dir, "x.simidx"), &index.Options{NoSync: true})
	if err != nil {
		return nil, err
	}
	defer x.Close()
	// IDs are positions: a corpus may repeat an ID.
	var src iter.Seq2[index.Doc, error] = func(yield func(index.Doc, error) bool) {
		for i, d := range docs {
			if !yield(index.Doc{ID: strconv.Itoa(i), Text: []byte(d.Text)}, nil) {
				return
			}
		}
	}
	ctx := context.Background()
	if _, err := x.Load(ctx, src, nil); err != nil {
		return nil, err
	}
	degree := map[string]int{}
	pairs := 0
	err = x.Pairs(ctx, nil, func(p index.Pair) error {
		pairs++
		degree[p.A]++
		degree[p.B]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	var rows []linkageRow
	for _, v := range linkageVariants {
		row := linkageRow{Corpus: name, Variant: v.Name, Docs: x.Len(), Pairs: pairs, MinSim: 1}
		opts := &index.QueryOptions{Linkage: v.Linkage}
		if v.ByDegree {
			opts.CenterOrder = func(a, b index.Member) int { return cmp.Compare(degree[b.ID], degree[a.ID]) }
		}
		type cluster struct {
			kept string
			ids  []string
		}
		var cs []cluster
		err := x.Clusters(ctx, opts, func(c index.Cluster) error {
			k := slices.MinFunc(c.Members, func(a, b index.Member) int { return cmp.Compare(a.Seq, b.Seq) })
			if v.Linkage == index.CenterLinkage {
				k.ID = c.Representative // the center is kept
			}
			cs = append(cs, cluster{k.ID, c.IDs})
			return nil
		})
		if err != nil {
			return nil, err
		}
		in := map[string]bool{}
		for _, c := range cs {
			row.Clusters++
			row.InClusters += len(c.ids)
			row.Dropped += len(c.ids) - 1
			row.Largest = max(row.Largest, len(c.ids))
			ms, err := x.QueryID(c.kept, nil)
			if err != nil {
				return nil, err
			}
			match := map[string]bool{}
			for _, m := range ms {
				match[m.ID] = true
			}
			far := 0
			for _, id := range c.ids {
				in[id] = true
				if id == c.kept {
					continue
				}
				if !match[id] {
					far++
				}
				p, err := x.Compare(c.kept, id, nil)
				if err != nil {
					return nil, err
				}
				row.MinSim = min(row.MinSim, p.Similarity)
			}
			row.Far += far
			if far > 0 {
				row.FarClusters++
			}
		}
		for id := range degree {
			if !in[id] {
				row.Lonely++
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// writeLinkage writes the comparison of the linkages as markdown.
func writeLinkage(w io.Writer, rows []linkageRow) {
	fmt.Fprintln(w, "The clusters of `simidx dedup` with the default settings and query (MinHash, t = 0.6, k = 3), by linkage (`--linkage`), the first member in input order kept (`--keep first`; with center linkage, the center). *Far* members are no pair of the member kept: not among the matches of a query by its ID, below the threshold by the index's own rule; *far clusters* have one or more. *Lowest sim.* is the lowest estimated similarity of a member to the member kept. *Kept with a pair* are the documents in no cluster that have a near duplicate (all of which went to other centers). Center linkage *by degree* takes the documents with the most pairs as centers first (subcommand `linkage`).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| corpus | linkage | docs | pairs | clusters | in clusters | dropped | largest | far clusters | far members | lowest sim. | kept with a pair |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %d | %d | %d (%.1f%%) | %d | %.2f | %d |\n",
			r.Corpus, r.Variant, r.Docs, r.Pairs, r.Clusters, r.InClusters, r.Dropped, r.Largest,
			r.FarClusters, 100*r.FarShare(), r.Far, r.MinSim, r.Lonely)
	}
	fmt.Fprintln(w)
}

// linkageMain is the linkage subcommand: the comparison, as markdown on
// standard output.
func linkageMain(args []string) error {
	fs := flag.NewFlagSet("linkage", flag.ExitOnError)
	corpora := fs.String("corpora", "", "directory of the JSONL corpora (required)")
	maxDocs := fs.Int("max-docs", 0, "use only the first N documents of each corpus (0: all)")
	fs.Parse(args)
	if *corpora == "" {
		return fmt.Errorf("linkage: --corpora is required")
	}
	var rows []linkageRow
	for _, name := range linkageCorpora {
		p := filepath.Join(*corpora, name+".jsonl")
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s not found, skipped\n", p)
			continue
		}
		rs, err := runLinkage(name, p, *maxDocs)
		if err != nil {
			return fmt.Errorf("linkage %s: %w", name, err)
		}
		rows = append(rows, rs...)
	}
	writeLinkage(os.Stdout, rows)
	return nil
}
