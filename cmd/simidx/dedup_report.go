package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/keep"
	"github.com/simidx/simidx/internal/report"
	"github.com/spf13/pflag"
)

// checkReport refuses the flags that do not go with --report, which
// writes the clusters to its file and nothing on standard output.
func checkReport(o *dedupOptions) error {
	if o.report == "" {
		return nil
	}
	for _, f := range []string{"emit", "pairs", "limit", "format", "output"} {
		if o.fs.Changed(f) {
			return usagef("--report writes the clusters as HTML to its FILE and nothing on standard output, so --%s does not go with it; for a list too, run dedup again on the index (--db)", f)
		}
	}
	if o.report == "-" {
		return usagef("--report takes the name of the HTML file to write, not -")
	}
	if o.db != "" {
		if samePath(o.report, o.db) {
			return usagef("--report %s is the index --db %s: writing the report there would destroy the index; give another file", o.report, o.db)
		}
		if jd := index.LogDir(o.db); samePath(o.report, jd) || samePath(filepath.Dir(o.report), jd) {
			return usagef("--report %s is in the journal %s of the index --db %s; give a file outside it", o.report, jd, o.db)
		}
	}
	if fi, err := os.Stat(o.report); err == nil && fi.IsDir() {
		return usagef("--report %s is a directory; give the name of the HTML file to write", o.report)
	}
	return nil
}

// writeDedupReport writes the report of x's clusters within opts to
// o.report: the records of reportClusters, the pairs for the histogram,
// and the texts read in this run (texts, nil without INPUT). The file
// appears whole or not at all: it is written beside its name and renamed.
func writeDedupReport(ctx context.Context, e *env, o *dedupOptions, x *index.Index, opts *index.QueryOptions, rd *keep.Docs, texts *report.Texts, args []string) error {
	var sizes map[string]int64
	if rd != nil {
		sizes = rd.Sizes()
	}
	sim := hasSimilarity(x, opts)
	rep := report.New(report.Options{
		Command:    dedupCommandLine(o.fs, args),
		Settings:   reportSettings(x, opts, o, texts != nil),
		Text:       x.Settings().Text,
		Similarity: sim,
		Chains:     opts.Linkage != index.CenterLinkage,
	})
	clusters, members := 0, 0
	err := clusterRecords(ctx, x, opts, o.policy, sizes, sim, func(rec clusterRecord) error {
		rc := report.Cluster{Number: rec.Cluster, Members: make([]report.Member, len(rec.Members))}
		for i, m := range rec.Members {
			rc.Members[i] = report.Member{ID: m.ID, Distance: m.Distance, Similarity: m.Similarity, Exact: m.Exact}
		}
		rep.AddCluster(rc)
		clusters++
		members += len(rc.Members)
		return nil
	})
	if err != nil {
		return err
	}
	// The histogram of the pairs: the same rule as the clusters, whose
	// pairs they are.
	err = x.Pairs(ctx, opts, func(p index.Pair) error {
		rep.AddPair(p.Distance, p.Similarity)
		return nil
	})
	if err != nil {
		return err
	}
	st, err := x.Stats()
	if err != nil {
		return err
	}

	dir, base := filepath.Split(o.report)
	f, err := os.CreateTemp(dir, "."+base+".tmp-")
	if err != nil {
		return fmt.Errorf("cannot write the report: %v", trimPathError(o.report, err))
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := rep.Write(ctx, bw, texts, report.Summary{Documents: x.Len(), Empty: st.Empty}); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the report %s: %v", o.report, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the report %s: %v", o.report, err)
	}
	if err := os.Rename(f.Name(), o.report); err != nil {
		return fmt.Errorf("cannot write the report: %v", err)
	}
	done = true
	if !o.quiet {
		fmt.Fprintf(e.stderr, "simidx dedup: wrote %s: %d clusters, %d documents in them\n", o.report, clusters, members)
	}
	return nil
}

// reportSettings returns the settings of the run that the report states.
func reportSettings(x *index.Index, opts *index.QueryOptions, o *dedupOptions, haveTexts bool) []report.Setting {
	s := x.Settings()
	idx := o.db
	if idx == "" {
		idx = "a temporary index of the INPUT"
	}
	k := max(s.MaxDistance, 0)
	if opts.MaxDistance != 0 {
		k = max(opts.MaxDistance, 0) // ZeroDistance is 0
	}
	minHash := "off (--no-minhash)"
	if s.MinHash {
		minHash = fmt.Sprintf("on: K=%d, %d bands", s.MinHashK, s.Bands)
	}
	var measure, threshold string
	switch {
	case opts.Verify:
		measure = "exact Jaccard similarity of the shingle sets (--verify)"
	case s.Text.Method.IsSet():
		measure = "the similarity of --method " + string(s.Text.Method)
	case s.MinHash && s.ShortUnits > 0:
		measure = fmt.Sprintf("Jaccard similarity estimated by MinHash; of two texts of at most %d words, the exact Jaccard similarity of their pairs of adjacent words", s.ShortUnits)
		if s.ShortLayer() >= 2 {
			measure = fmt.Sprintf("Jaccard similarity estimated by MinHash; of two texts of at most %d distinct pairs of adjacent words (%d words), the exact Jaccard similarity of those pairs", s.ShortUnits+1, s.ShortUnits)
		}
	case s.MinHash:
		measure = "Jaccard similarity estimated by MinHash"
	default:
		measure = "none: pairs by the distance of their fingerprints"
	}
	switch {
	case opts.MinSimilarity > 0:
		threshold = strconv.FormatFloat(opts.MinSimilarity, 'f', -1, 64)
	case opts.MinSimilarity == 0 && opts.MaxDistance == 0 && s.MinHash:
		threshold = strconv.FormatFloat(index.DefaultMinSimilarity, 'f', -1, 64) + " (the default)"
	default:
		threshold = "none: every pair within the distance"
	}
	policy := map[string]string{
		keep.First:    "first: the first member in input order",
		keep.Last:     "last: the last member in input order",
		keep.Longest:  "longest: the longest text read, the first of equals",
		keep.Shortest: "shortest: the shortest text read, the first of equals",
		keep.ID:       "id: the smallest ID",
	}[o.policy]
	linkage := "single: every chain of pairs is one cluster"
	if opts.Linkage == index.CenterLinkage {
		linkage = "center: every member dropped is a pair of the member kept"
	}
	shown := "none: an index keeps no texts; give the INPUT to see them"
	if haveTexts {
		shown = fmt.Sprintf("the texts read, each cut to its first %d KiB, %d MiB in all", report.DefaultMaxText>>10, report.DefaultMaxTexts>>20)
	}
	sh := s.Text.Shingle
	return []report.Setting{
		{Name: "index", Value: idx},
		{Name: "method", Value: string(s.Text.Method)},
		{Name: "shingles", Value: fmt.Sprintf("%d %s", sh.Size, sh.Unit)},
		{Name: "MinHash layer", Value: minHash},
		{Name: "max distance (k)", Value: fmt.Sprintf("%d bits", k)},
		{Name: "similarity", Value: measure},
		{Name: "min similarity", Value: threshold},
		{Name: "linkage", Value: linkage},
		{Name: "keep", Value: policy},
		{Name: "texts", Value: shown},
	}
}

// dedupCommandLine returns the command line of the run as a shell would
// read it: the flags given and the INPUT.
func dedupCommandLine(fs *pflag.FlagSet, args []string) string {
	parts := []string{"simidx", "dedup"}
	fs.Visit(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			parts = append(parts, "--"+f.Name)
			return
		}
		parts = append(parts, "--"+f.Name, shellWord(f.Value.String()))
	})
	for _, a := range args {
		parts = append(parts, shellWord(a))
	}
	return strings.Join(parts, " ")
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
