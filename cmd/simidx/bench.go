package main

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/input"
	"github.com/simidx/simidx/shingle"
	"github.com/spf13/pflag"
)

const benchMaxK = 12

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
		var (
			db        string
			in        input.Flags
			sf        settingsFlags
			out       outputFlags
			sample    int
			minWords  int
			edits     string
			rates     string
			unrelated int
			seed      uint64
			byEdit    bool
		)
		fs.StringVar(&db, "db", "", "use the settings of the index at `PATH`")
		fs.IntVar(&sample, "sample", 200, "`documents` sampled from the input")
		fs.IntVar(&minWords, "min-words", 20, "sample only documents of at least `N` shingles")
		fs.StringVar(&edits, "edits", "insert,delete,substitute,swap,shuffle,crop,wrap", "planted `edits`, comma-separated")
		fs.StringVar(&rates, "rates", "0.01,0.02,0.05,0.1,0.2,0.3", "edit `rates`, comma-separated, each in (0, 1)")
		fs.IntVar(&unrelated, "unrelated", 2000, "unrelated `pairs` for the false-positive rate")
		fs.Uint64Var(&seed, "seed", 1, "random `seed`")
		fs.BoolVar(&byEdit, "by-edit", false, "also report each edit and rate on its own")
		in.Add(fs)
		sf.addIndexFlags(fs, false)
		sf.addTextFlags(fs)
		out.add(fs)
		return func(ctx context.Context, e *env, args []string) error {
			if err := out.check(db); err != nil {
				return err
			}
			if err := in.Check(); err != nil {
				return err
			}
			if !in.Given(args) {
				return usagef("give the documents to sample (files, directories, or - for standard input)")
			}
			if sample < 2 {
				return usagef("--sample must be at least 2, not %d", sample)
			}
			kinds, err := parseEdits(edits)
			if err != nil {
				return err
			}
			rs, err := parseRates(rates)
			if err != nil {
				return err
			}
			f, err := sf.fingerprinter(db)
			if err != nil {
				return err
			}
			con := console.New(e.stderr, "bench")
			r, err := input.Open(args, in, e.stdin, con)
			if err != nil {
				return err
			}
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			docs := reservoir(ctx, r, f, rng, sample, minWords)
			if ctx.Err() != nil {
				return errInterrupted
			}
			if len(docs) < 2 {
				return fmt.Errorf("found %d documents of at least %d shingles; bench needs 2 or more (see --min-words)", len(docs), minWords)
			}
			res := measure(ctx, f, docs, kinds, rs, unrelated, rng)
			if ctx.Err() != nil {
				return errInterrupted
			}
			w, err := out.open(e.stdout)
			if err != nil {
				return err
			}
			res.write(w, byEdit)
			return w.Close()
		}
	},
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

// reservoir returns a uniform sample of up to n documents of at least
// minShingles shingles from r.
func reservoir(ctx context.Context, r *input.Reader, f *index.Fingerprinter, rng *rand.Rand, n, minShingles int) []index.Doc {
	var docs []index.Doc
	seen := 0
	for d, err := range r.All(ctx) {
		if err != nil {
			break
		}
		if len(f.Shingles(d.Text)) < minShingles {
			continue
		}
		seen++
		switch {
		case len(docs) < n:
			docs = append(docs, d)
		default:
			if j := rng.IntN(seen); j < n {
				docs[j] = d
			}
		}
	}
	return docs
}

// benchPair is one measured pair.
type benchPair struct {
	edit     eval.Edit
	rate     float64
	jaccard  float64
	distance int
	band     bool // shares a MinHash band
	found    bool // reported by a default query (with MinHash)
}

// benchResult holds every measured pair.
type benchResult struct {
	minhash   bool
	planted   []benchPair
	unrelated []benchPair
}

func measure(ctx context.Context, f *index.Fingerprinter, docs []index.Doc, kinds []eval.Edit, rates []float64, unrelated int, rng *rand.Rand) *benchResult {
	type prepared struct {
		set   []uint64
		fp    uint64
		sig   []uint64
		bands []uint64
	}
	prep := func(text []byte) prepared {
		set := slices.Clone(f.Shingles(text))
		fp, sig, bands := f.Analyze(text)
		return prepared{set, fp, slices.Clone(sig), slices.Clone(bands)}
	}
	st := f.Settings()
	k := max(st.MaxDistance, 0) // ZeroDistance is 0
	res := &benchResult{}
	base := make([]prepared, len(docs))
	for i, d := range docs {
		base[i] = prep(d.Text)
		res.minhash = base[i].bands != nil
	}
	compare := func(a, b prepared, ed eval.Edit, rate float64) benchPair {
		p := benchPair{
			edit: ed, rate: rate,
			jaccard:  shingle.Jaccard(a.set, b.set),
			distance: bits.OnesCount64(a.fp ^ b.fp),
			band:     shingle.SharedBands(a.bands, b.bands) > 0,
		}
		if a.sig != nil {
			// The rule of a default query (index.QueryOptions).
			cand := p.distance <= k || shingle.SharedBands(a.bands, b.bands) >= max(st.MinBands, 1)
			p.found = cand && shingle.Estimate(a.sig, b.sig) >= index.DefaultMinSimilarity
		}
		return p
	}
	for i, d := range docs {
		if ctx.Err() != nil {
			return res
		}
		for _, ed := range kinds {
			for _, rate := range rates {
				edited := eval.Apply(rng, string(d.Text), ed, rate)
				res.planted = append(res.planted, compare(base[i], prep([]byte(edited)), ed, rate))
			}
		}
	}
	for range unrelated * 4 {
		if len(res.unrelated) == unrelated || ctx.Err() != nil {
			break
		}
		i, j := rng.IntN(len(docs)), rng.IntN(len(docs))
		if i == j {
			continue
		}
		if p := compare(base[i], base[j], -1, 0); p.jaccard < 0.3 {
			res.unrelated = append(res.unrelated, p)
		}
	}
	return res
}

// benchRow is one line of bench output: a band of Jaccard similarity, an
// edit, or the unrelated pairs.
type benchRow struct {
	Group         string    `json:"group"`
	Edit          string    `json:"edit,omitempty"`
	Rate          float64   `json:"rate,omitempty"`
	JaccardLo     *float64  `json:"jaccard_lo,omitempty"`
	JaccardHi     *float64  `json:"jaccard_hi,omitempty"`
	Pairs         int       `json:"pairs"`
	MeanJaccard   float64   `json:"mean_jaccard"`
	DistanceP50   int       `json:"distance_p50"`
	DistanceP90   int       `json:"distance_p90"`
	WithinK       []float64 `json:"within_k"`
	MinHashWithin *float64  `json:"minhash_found,omitempty"`
	QueryFound    *float64  `json:"query_found,omitempty"`
}

func summarize(group string, ps []benchPair, minhash bool) benchRow {
	row := benchRow{Group: group, Pairs: len(ps), WithinK: make([]float64, benchMaxK+1)}
	if len(ps) == 0 {
		return row
	}
	ds := make([]int, len(ps))
	band, found := 0, 0
	for i, p := range ps {
		if p.found {
			found++
		}
		ds[i] = p.distance
		row.MeanJaccard += p.jaccard / float64(len(ps))
		if p.band {
			band++
		}
		for k := range row.WithinK {
			if p.distance <= k {
				row.WithinK[k]++
			}
		}
	}
	for k := range row.WithinK {
		row.WithinK[k] /= float64(len(ps))
	}
	slices.Sort(ds)
	row.DistanceP50, row.DistanceP90 = ds[len(ds)/2], ds[len(ds)*9/10]
	if minhash {
		v := float64(band) / float64(len(ps))
		row.MinHashWithin = &v
		q := float64(found) / float64(len(ps))
		row.QueryFound = &q
	}
	return row
}

func (r *benchResult) rows(byEdit bool) []benchRow {
	var rows []benchRow
	for _, b := range slices.Backward(eval.Bins(0, 0.1)) {
		var ps []benchPair
		for _, p := range r.planted {
			if b.Contains(p.jaccard) {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		row := summarize("jaccard "+b.String(), ps, r.minhash)
		lo, hi := b.Lo, b.Hi
		row.JaccardLo, row.JaccardHi = &lo, &hi
		rows = append(rows, row)
	}
	if byEdit {
		type key struct {
			e eval.Edit
			r float64
		}
		groups := map[key][]benchPair{}
		var order []key
		for _, p := range r.planted {
			k := key{p.edit, p.rate}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], p)
		}
		for _, k := range order {
			row := summarize("edit", groups[k], r.minhash)
			row.Edit, row.Rate = k.e.String(), k.r
			rows = append(rows, row)
		}
	}
	rows = append(rows, summarize("unrelated", r.unrelated, r.minhash))
	return rows
}

func (r *benchResult) write(w *output, byEdit bool) {
	rows := r.rows(byEdit)
	if w.jsonl {
		for _, row := range rows {
			w.json(row)
		}
		return
	}
	cols := []string{"PAIRS", "GROUP", "MEAN_J", "DIST_P50", "DIST_P90"}
	for k := 0; k <= benchMaxK; k++ {
		cols = append(cols, fmt.Sprintf("K<=%d", k))
	}
	if r.minhash {
		cols = append(cols, "MINHASH", "FOUND")
	}
	w.header(cols...)
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
		w.row(cells...)
	}
}
