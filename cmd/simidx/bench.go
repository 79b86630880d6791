package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/input"
	"github.com/simidx/simidx/internal/output"
	"github.com/spf13/pflag"
)

var benchCommand = &command{
	name:  "bench",
	args:  "[--db PATH | settings flags] [flags] INPUT...",
	short: "measure recall versus Hamming distance on your own documents",
	long: `Bench measures how well near duplicates of your own documents are found. It
takes a sample of the documents in INPUT (read like simidx index reads its
inputs), plants edits in each at a range of rates (word insert, delete,
substitute and swap, sentence shuffle, head and tail crop, HTML wrapping),
measures each pair's true Jaccard similarity over shingles, and reports, for
each band of Jaccard similarity, the Hamming distances between the
fingerprints and the share of pairs found at each k from 0 to 12; with the
MinHash layer (the default), also the share found by its bands (MINHASH) and
by a default query (FOUND: within k bits or sharing a band, and an estimated
similarity of at least 0.6). The last row measures
unrelated documents of the sample (Jaccard below 0.3): the share of their
pairs within each k is the false-positive rate.

The settings are those of the index at --db (its documents are not needed:
an index stores no text), or the defaults changed by the settings flags.
The same --seed gives the same figures.

Example:

	simidx bench testdata/licenses
	simidx bench --no-minhash --rates 0.02,0.1 --edits substitute,crop docs.jsonl`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &benchOptions{}
		fs.StringVar(&o.db, "db", "", "use the settings of the index at `PATH`")
		fs.IntVar(&o.sample, "sample", 200, "`documents` sampled from the input")
		fs.IntVar(&o.minWords, "min-words", 20, "sample only documents of at least `N` shingles")
		fs.StringVar(&o.edits, "edits", "insert,delete,substitute,swap,shuffle,crop,wrap", "planted `edits`, comma-separated")
		fs.StringVar(&o.rates, "rates", "0.01,0.02,0.05,0.1,0.2,0.3", "edit `rates`, comma-separated, each in (0, 1)")
		fs.IntVar(&o.unrelated, "unrelated", 2000, "unrelated `pairs` for the false-positive rate")
		fs.Uint64Var(&o.seed, "seed", 1, "random `seed`")
		fs.BoolVar(&o.byEdit, "by-edit", false, "also report each edit and rate on its own")
		o.in.Add(fs)
		o.sf.AddIndex(fs, false)
		o.sf.AddText(fs)
		o.out.add(fs)
		return func(ctx context.Context, e *env, args []string) error { return runBench(ctx, e, o, args) }
	},
}

// benchOptions are the flags of simidx bench.
type benchOptions struct {
	db        string
	in        input.Flags
	sf        indexflag.Settings
	out       outputFlags
	sample    int
	minWords  int
	edits     string
	rates     string
	unrelated int
	seed      uint64
	byEdit    bool
}

// runBench runs simidx bench: recall by distance on a sample of args.
func runBench(ctx context.Context, e *env, o *benchOptions, args []string) error {
	if err := o.out.check(o.db); err != nil {
		return err
	}
	if err := o.in.Check(); err != nil {
		return err
	}
	if !o.in.Given(args) {
		return usagef("give the documents to sample (files, directories, or - for standard input)")
	}
	if o.sample < 2 {
		return usagef("--sample must be at least 2, not %d", o.sample)
	}
	kinds, err := parseEdits(o.edits)
	if err != nil {
		return err
	}
	rs, err := parseRates(o.rates)
	if err != nil {
		return err
	}
	f, err := fingerprinter(&o.sf, o.db)
	if err != nil {
		return err
	}
	con := console.New(e.stderr, "bench")
	r, err := input.Open(args, o.in, e.stdin, con)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
	docs := eval.Sample(r.All(ctx), f, rng, o.sample, o.minWords)
	if ctx.Err() != nil {
		return errInterrupted
	}
	if len(docs) < 2 {
		return fmt.Errorf("found %d documents of at least %d shingles; bench needs 2 or more (see --min-words)", len(docs), o.minWords)
	}
	res := eval.MeasureRecall(ctx, f, docs, kinds, rs, o.unrelated, rng)
	if ctx.Err() != nil {
		return errInterrupted
	}
	w, err := o.out.open(e.stdout)
	if err != nil {
		return err
	}
	writeRecall(w, res, o.byEdit)
	return w.Close()
}

func parseEdits(s string) ([]eval.Edit, error) {
	var es []eval.Edit
	for _, name := range strings.Split(s, ",") {
		ed, err := eval.ParseEdit(strings.TrimSpace(name))
		if err != nil {
			return nil, usagef("--edits: unknown edit %q (want insert, delete, substitute, swap, shuffle, crop or wrap)", name)
		}
		es = append(es, ed)
	}
	return es, nil
}

func parseRates(s string) ([]float64, error) {
	var rs []float64
	for _, f := range strings.Split(s, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(r > 0 && r < 1) {
			return nil, usagef("--rates: %q is not a number between 0 and 1", f)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// writeRecall writes the rows of r.
func writeRecall(w *output.Writer, r *eval.Recall, byEdit bool) {
	rows := r.Rows(byEdit)
	if w.JSONL() {
		for _, row := range rows {
			w.JSON(row)
		}
		return
	}
	cols := []string{"PAIRS", "GROUP", "MEAN_J", "DIST_P50", "DIST_P90"}
	for k := 0; k <= eval.MaxK; k++ {
		cols = append(cols, fmt.Sprintf("K<=%d", k))
	}
	if r.MinHash {
		cols = append(cols, "MINHASH", "FOUND")
	}
	w.Header(cols...)
	for _, row := range rows {
		name := row.Group
		if row.Edit != "" {
			name = fmt.Sprintf("%s %.3g", row.Edit, row.Rate)
		}
		cells := []string{strconv.Itoa(row.Pairs), name, fmt.Sprintf("%.2f", row.MeanJaccard),
			strconv.Itoa(row.DistanceP50), strconv.Itoa(row.DistanceP90)}
		for _, v := range row.WithinK {
			cells = append(cells, fmt.Sprintf("%.2f", v))
		}
		if row.MinHashWithin != nil {
			cells = append(cells, fmt.Sprintf("%.2f", *row.MinHashWithin), fmt.Sprintf("%.2f", *row.QueryFound))
		}
		w.Row(cells...)
	}
}
