package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/simidx/simidx/index"

	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/input"
	"github.com/simidx/simidx/internal/output"
	"github.com/spf13/pflag"
)

var benchCommand = &command{
	name:  "bench",
	args:  "[--db PATH | settings flags] [--target-similarity T] [--prefer WHAT] [flags] INPUT...",
	short: "find the settings that find your documents' near duplicates best",
	long: `Bench measures how well near duplicates of your own documents are found, and
recommends the settings that find them best. It reads INPUT (as simidx index
reads its inputs) once and takes two uniform samples of it.

Real pairs. A sample of --join-sample documents (2000; every document with
words) is joined exactly: every pair whose Jaccard similarity over the
shingles of the settings reaches --target-similarity T (0.8) is a true pair.
The sample is indexed with the settings, built for k = 8, and every setting
of a sweep is run on it as a query of the index's own rule would be: with
the MinHash layer, -k 0 to 8 and --min-similarity 0.40 to 0.90 in steps of
0.05; without it, -k 0 to 8; with --method nshash or short, the method's
rule and --min-similarity 0.40 to 0.90. Each setting's pairs are scored: a
pair reported below T is a false positive, a true pair not reported a false
negative. Bench prints the score of each setting (F1, or with --prefer
precision F0.5, with --prefer recall F2), the best ones beside yours (-k
and --min-similarity as given, 3 and 0.6 by default), and the best with
the commands that use it. Of settings that score the same, the smallest k
(the smallest index) and then the highest threshold win. With --db, the
settings are the index's and k goes up to its own. Cost: the exact join,
and an index of the sample with a Pairs run per setting: on 2000 documents
of mail (spamassassin-body), 1 s and 2 s, with the sample in memory and the
index in a temporary directory.

Planted edits. A sample of --sample documents (200) of at least --min-words
shingles is edited at a range of rates (word insert, delete, substitute and
swap, sentence shuffle, head and tail crop, HTML wrapping), and each pair of
a document and its edited copy is measured: its Jaccard similarity, the
distance between the fingerprints, whether it is within k, shares a MinHash
band (MINHASH) or is found by a query of your settings (FOUND: within k or
sharing a band, and an estimate of at least --min-similarity). A row sums
up each band of Jaccard similarity, and the last row unrelated documents of
the sample (Jaccard below 0.3): what they find is false positives.
--by-distance shows the share within every k from 0 to 12 (a wide table).

The same --seed gives the same figures (but for the times). With --format
jsonl every row and every setting of the sweep is a JSON object.

Example:

	simidx bench testdata/licenses
	simidx bench --target-similarity 0.9 --prefer precision corpus.jsonl
	simidx bench --no-minhash --join-sample 0 --rates 0.02,0.1 docs.jsonl`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &benchOptions{fs: fs}
		fs.StringVar(&o.db, "db", "", "use the settings of the index at `PATH`")
		fs.IntVar(&o.joinSample, "join-sample", 2000, "`documents` sampled for the real pairs (0: none)")
		fs.Float64Var(&o.target, "target-similarity", 0.8, "the Jaccard `similarity` of the pairs to find")
		fs.StringVar(&o.prefer, "prefer", "f1", "weigh `what` most in the recommendation: precision, recall or f1")
		fs.Float64Var(&o.minSim, "min-similarity", index.DefaultMinSimilarity, "the `similarity` threshold of your settings, compared with the best")
		fs.IntVar(&o.sample, "sample", 200, "`documents` sampled for planted edits")
		fs.IntVar(&o.minWords, "min-words", 20, "plant edits only in documents of at least `N` shingles")
		fs.StringVar(&o.edits, "edits", "insert,delete,substitute,swap,shuffle,crop,wrap", "planted `edits`, comma-separated")
		fs.StringVar(&o.rates, "rates", "0.01,0.02,0.05,0.1,0.2,0.3", "edit `rates`, comma-separated, each in (0, 1)")
		fs.IntVar(&o.unrelated, "unrelated", 2000, "unrelated `pairs` for the false-positive rate")
		fs.Uint64Var(&o.seed, "seed", 1, "random `seed`")
		fs.BoolVar(&o.byEdit, "by-edit", false, "also report each planted edit and rate on its own")
		fs.BoolVar(&o.byDistance, "by-distance", false, "report the planted pairs found within every k from 0 to 12 (a wide table)")
		o.in.Add(fs)
		o.sf.AddIndex(fs, true)
		o.sf.AddText(fs)
		o.out.add(fs)
		return func(ctx context.Context, e *env, args []string) error { return runBench(ctx, e, o, args) }
	},
}

// benchOptions are the flags of simidx bench.
type benchOptions struct {
	fs         *pflag.FlagSet
	db         string
	in         input.Flags
	sf         indexflag.Settings
	out        outputFlags
	sample     int
	joinSample int
	target     float64
	prefer     string
	minSim     float64
	minWords   int
	edits      string
	rates      string
	unrelated  int
	seed       uint64
	byEdit     bool
	byDistance bool
}

// runBench runs simidx bench: recall by distance on planted edits, and
// the settings that find the real pairs of a sample best.
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
	if o.joinSample != 0 && o.joinSample < 2 {
		return usagef("--join-sample must be 0 (no real pairs) or at least 2, not %d", o.joinSample)
	}
	if !(o.target > 0 && o.target <= 1) {
		return usagef("--target-similarity must be above 0 and at most 1, not %g", o.target)
	}
	if !(o.minSim >= 0 && o.minSim <= 1) {
		return usagef("--min-similarity must be 0 to 1, not %g", o.minSim)
	}
	beta, ok := preferBeta[o.prefer]
	if !ok {
		return usagef("--prefer must be precision, recall or f1, not %q", o.prefer)
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
	st := f.Settings()
	if o.fs.Changed("min-similarity") && o.minSim > 0 && !st.MinHash && !st.Text.Method.IsSet() {
		return usagef("--min-similarity needs a similarity, and these settings have none (no MinHash layer); leave it out to measure by distance alone")
	}
	yours := eval.Setting{K: max(st.MaxDistance, 0), MinSimilarity: o.minSim}
	switch {
	case st.Text.Method.IsSet():
		yours.K = eval.NoK
		if !o.fs.Changed("min-similarity") {
			yours.MinSimilarity = 0
		}
	case !st.MinHash:
		yours.MinSimilarity = 0
	}
	con := console.New(e.stderr, "bench")
	r, err := input.Open(args, o.in, e.stdin, con)
	if err != nil {
		return err
	}
	// One pass, two samples: documents of --min-words shingles or more to
	// plant edits in, and documents with words for the real pairs, each
	// with its own random stream.
	rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
	jrng := rand.New(rand.NewPCG(o.seed, 0x701e))
	planted, joined := eval.Reservoir{N: o.sample}, eval.Reservoir{N: o.joinSample}
	for d, err := range r.All(ctx) {
		if err != nil {
			break
		}
		n := len(f.Shingles(d.Text))
		if n >= o.minWords {
			planted.Offer(d, rng)
		}
		if n > 0 && o.joinSample > 0 {
			joined.Offer(d, jrng)
		}
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	if len(planted.Docs) < 2 {
		return fmt.Errorf("found %d documents of at least %d shingles; bench needs 2 or more (see --min-words)", len(planted.Docs), o.minWords)
	}
	res := eval.MeasureRecall(ctx, f, planted.Docs, kinds, rs, max(o.minSim, 0), o.unrelated, rng)
	if ctx.Err() != nil {
		return errInterrupted
	}
	var real *realPairs
	if o.joinSample > 0 {
		maxK := index.MaxMaxDistance
		if o.db != "" {
			maxK = max(st.MaxDistance, 0) // what queries of it can ask
		}
		if real, err = measureReal(ctx, f, joined, o.target, yours, maxK); err != nil {
			if ctx.Err() != nil {
				return errInterrupted
			}
			return err
		}
		real.beta = beta
	}
	w, err := o.out.open(e.stdout)
	if err != nil {
		return err
	}
	writeRecall(w, res, o.byEdit, o.byDistance, st, len(planted.Docs), len(kinds)*len(rs))
	if real != nil {
		writeReal(w, real, o, args)
	}
	return w.Close()
}

// preferBeta are the --prefer choices, each the beta of the F-score it
// maximizes.
var preferBeta = map[string]float64{"precision": 0.5, "f1": 1, "recall": 2}

// Sweeps of the real pairs.
var (
	sweepKs   = []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
	sweepSims = []float64{0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9}
)

// realPairs is what bench measures of the real pairs of a sample.
type realPairs struct {
	Docs, Read int // documents sampled, of those read with words
	Positives  int // pairs with J >= Target
	Target     float64
	Scores     []eval.SettingScore
	Yours      eval.SettingScore
	beta       float64
	Join       time.Duration
	Sweep      time.Duration
}

// sweepSettings returns the settings swept under st: k and the threshold
// with the MinHash layer, k alone without it, the threshold alone (the
// method's similarity; 0 for its rule alone) with a set method.
func sweepSettings(st index.Settings, maxK int) []eval.Setting {
	var out []eval.Setting
	switch {
	case st.Text.Method.IsSet():
		out = append(out, eval.Setting{K: eval.NoK})
		for _, s := range sweepSims {
			out = append(out, eval.Setting{K: eval.NoK, MinSimilarity: s})
		}
	case st.MinHash:
		for _, k := range sweepKs[:maxK+1] {
			for _, s := range sweepSims {
				out = append(out, eval.Setting{K: k, MinSimilarity: s})
			}
		}
	default:
		for _, k := range sweepKs[:maxK+1] {
			out = append(out, eval.Setting{K: k})
		}
	}
	return out
}

// measureReal finds the true pairs of the sample (J >= target over the
// shingles of f, by an exact join) and scores every setting of the sweep
// on an index of the sample with f's settings.
func measureReal(ctx context.Context, f *index.Fingerprinter, sample eval.Reservoir, target float64, yours eval.Setting, maxK int) (*realPairs, error) {
	rp := &realPairs{Docs: len(sample.Docs), Read: sample.Seen, Target: target}
	t0 := time.Now()
	sets := make([][]uint64, len(sample.Docs))
	for i, d := range sample.Docs {
		sets[i] = slices.Clone(f.Shingles(d.Text))
	}
	truth := map[eval.Pair]float64{}
	if err := eval.Join(sets, target, func(i, j int, sim float64) { truth[eval.MakePair(i, j)] = sim }); err != nil {
		return nil, err
	}
	rp.Positives = len(truth)
	rp.Join = time.Since(t0)
	dir, err := os.MkdirTemp("", "simidx-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	t0 = time.Now()
	settings := sweepSettings(f.Settings(), maxK)
	n := len(settings)
	at := slices.Index(settings, yours)
	if at < 0 { // measured beside the sweep
		at = len(settings)
		settings = append(settings, yours)
	}
	scores, err := eval.Sweep(ctx, dir, f.Settings(), sample.Docs, truth, settings)
	if err != nil {
		return nil, err
	}
	rp.Sweep = time.Since(t0)
	rp.Yours = scores[at]
	rp.Scores = scores[:n]
	return rp, nil
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

// writeRecall writes the rows of r: with JSON lines every row; in a table
// the share found within the k of st and by a query, or with byDistance
// within every k from 0 to eval.MaxK.
func writeRecall(w *output.Writer, r *eval.Recall, byEdit, byDistance bool, st index.Settings, docs, variants int) {
	rows := r.Rows(byEdit)
	if w.JSONL() {
		for _, row := range rows {
			w.JSON(row)
		}
		return
	}
	k := max(st.MaxDistance, 0)
	fmt.Fprintf(w, "Planted edits: %d documents, each edited %d ways; the share of pairs found\n", docs, variants)
	t := newSection(w)
	cols := []string{"PAIRS", "GROUP", "MEAN_J", "DIST_P50", "DIST_P90"}
	if byDistance {
		for k := 0; k <= eval.MaxK; k++ {
			cols = append(cols, fmt.Sprintf("K<=%d", k))
		}
	} else {
		cols = append(cols, fmt.Sprintf("K<=%d", k))
	}
	if r.MinHash {
		cols = append(cols, "MINHASH", "FOUND")
	}
	t.Header(cols...)
	for _, row := range rows {
		name := row.Group
		if row.Edit != "" {
			name = fmt.Sprintf("%s %.3g", row.Edit, row.Rate)
		}
		cells := []string{strconv.Itoa(row.Pairs), name, fmt.Sprintf("%.2f", row.MeanJaccard),
			strconv.Itoa(row.DistanceP50), strconv.Itoa(row.DistanceP90)}
		if byDistance {
			for _, v := range row.WithinK {
				cells = append(cells, fmt.Sprintf("%.2f", v))
			}
		} else {
			cells = append(cells, fmt.Sprintf("%.2f", row.WithinK[k]))
		}
		if row.MinHashWithin != nil {
			cells = append(cells, fmt.Sprintf("%.2f", *row.MinHashWithin), fmt.Sprintf("%.2f", *row.QueryFound))
		}
		t.Row(cells...)
	}
	t.close()
}

// section is a table of its own within the output of bench, written to
// it when closed.
type section struct {
	*output.Writer
	b  bytes.Buffer
	to *output.Writer
}

func newSection(to *output.Writer) *section {
	s := &section{to: to}
	s.Writer = output.New(&s.b, false)
	return s
}

// close writes the table, each line without the padding of an empty last
// cell.
func (s *section) close() {
	s.Writer.Close()
	for l := range strings.Lines(s.b.String()) {
		fmt.Fprintln(s.to, strings.TrimRight(l, " \n"))
	}
}

// settingRecord is a measured setting of the real pairs in JSON lines.
type settingRecord struct {
	Group         string   `json:"group"` // real, yours or recommended
	K             *int     `json:"k,omitempty"`
	MinSimilarity *float64 `json:"min_similarity,omitempty"`
	Reported      int      `json:"reported"`
	TP            int      `json:"tp"`
	FP            int      `json:"fp"`
	FN            int      `json:"fn"`
	Precision     float64  `json:"precision"`
	Recall        float64  `json:"recall"`
	F1            float64  `json:"f1"`
	Score         float64  `json:"score"`                 // the F-score of --prefer
	Dedup         string   `json:"dedup,omitempty"`       // simidx dedup of the INPUT (of --db)
	Index         string   `json:"index,omitempty"`       // simidx index of the INPUT
	DedupIndex    string   `json:"dedup_index,omitempty"` // simidx dedup of that index
}

// sampleRecord sums up the real pairs in JSON lines.
type sampleRecord struct {
	Group        string  `json:"group"` // "real sample"
	Docs         int     `json:"docs"`
	Read         int     `json:"read"`
	Target       float64 `json:"target_similarity"`
	Prefer       string  `json:"prefer"`
	TruePairs    int     `json:"true_pairs"`
	Settings     int     `json:"settings"`
	JoinSeconds  float64 `json:"join_seconds"`
	SweepSeconds float64 `json:"sweep_seconds"`
}

func (rp *realPairs) record(group string, sc eval.SettingScore) settingRecord {
	r := settingRecord{Group: group, Reported: sc.Reported, TP: sc.TP, FP: sc.FP, FN: sc.FN,
		Precision: sc.Precision(), Recall: sc.Recall(), F1: sc.F1(), Score: sc.FScore(rp.beta)}
	if sc.K != eval.NoK {
		k := sc.K
		r.K = &k
	}
	if sc.MinSimilarity > 0 {
		s := sc.MinSimilarity
		r.MinSimilarity = &s
	}
	return r
}

// scoreName names the F-score of beta.
func scoreName(beta float64) string {
	switch beta {
	case 1:
		return "F1"
	case 0.5:
		return "F0.5"
	}
	return "F2"
}

// writeReal writes what bench measured of the real pairs: the score of
// every setting, the best ones beside the settings given, and the command
// lines of the best.
func writeReal(w *output.Writer, rp *realPairs, o *benchOptions, args []string) {
	best := eval.Best(rp.Scores, rp.beta)
	cmds := recommend(best.Setting, o, args)
	if w.JSONL() {
		w.JSON(sampleRecord{Group: "real sample", Docs: rp.Docs, Read: rp.Read, Target: rp.Target, Prefer: o.prefer,
			TruePairs: rp.Positives, Settings: len(rp.Scores), JoinSeconds: rp.Join.Seconds(), SweepSeconds: rp.Sweep.Seconds()})
		for _, sc := range rp.Scores {
			w.JSON(rp.record("real", sc))
		}
		w.JSON(rp.record("yours", rp.Yours))
		if rp.Positives > 0 {
			rec := rp.record("recommended", best)
			rec.Dedup, rec.Index, rec.DedupIndex = cmds[0], cmds[1], cmds[2]
			w.JSON(rec)
		}
		return
	}
	name := scoreName(rp.beta)
	fmt.Fprintf(w, "\nReal pairs: %d documents sampled of %d with words, %d pairs with J >= %s among them\n",
		rp.Docs, rp.Read, rp.Positives, fmtSim(rp.Target))
	fmt.Fprintf(w, "(an exact join, %.1fs; %d settings on an index of the sample, %.1fs)\n", rp.Join.Seconds(), len(rp.Scores), rp.Sweep.Seconds())
	if rp.Positives == 0 {
		fmt.Fprintf(w, "No pair of the sample has J >= %s: nothing to recommend. Raise --join-sample, or lower --target-similarity.\n", fmtSim(rp.Target))
		return
	}
	grid := rp.Scores[0].K != eval.NoK && rp.Scores[0].MinSimilarity > 0
	if grid {
		// The score of each setting: k by row, the threshold by column.
		fmt.Fprintf(w, "%s for J >= %s by k (rows) and --min-similarity (columns)\n", name, fmtSim(rp.Target))
		t := newSection(w)
		head := []string{"K"}
		for _, s := range sweepSims {
			head = append(head, fmtSim2(s))
		}
		t.Header(head...)
		for _, k := range sweepKs {
			row := []string{strconv.Itoa(k)}
			if !slices.ContainsFunc(rp.Scores, func(sc eval.SettingScore) bool { return sc.K == k }) {
				break
			}
			for _, sc := range rp.Scores {
				if sc.K == k {
					row = append(row, showSimilarity(sc.FScore(rp.beta)))
				}
			}
			t.Row(row...)
		}
		t.close()
		fmt.Fprintln(w)
	}
	// The best settings (all of them for a short sweep), and those given.
	top := slices.Clone(rp.Scores)
	if grid {
		// By score, then as Best breaks ties; of settings that report
		// the same pairs, the first.
		slices.SortStableFunc(top, func(a, b eval.SettingScore) int {
			return cmp.Or(cmp.Compare(b.FScore(rp.beta), a.FScore(rp.beta)), cmp.Compare(a.K, b.K), cmp.Compare(b.MinSimilarity, a.MinSimilarity))
		})
		type outcome struct{ reported, tp, fp int }
		seen := map[outcome]bool{}
		top = slices.DeleteFunc(top, func(sc eval.SettingScore) bool {
			o := outcome{sc.Reported, sc.TP, sc.FP}
			dup := seen[o]
			seen[o] = true
			return dup
		})
		top = top[:min(5, len(top))]
	}
	t := newSection(w)
	cols := []string{"K", "MIN_SIM", "PAIRS", "TP", "FP", "FN", "PRECISION", "RECALL", "F1"}
	if rp.beta != 1 {
		cols = append(cols, name)
	}
	t.Header(append(cols, "NOTE")...)
	row := func(sc eval.SettingScore, note string) {
		k, sim := "-", "-"
		if sc.K != eval.NoK {
			k = strconv.Itoa(sc.K)
		}
		if sc.MinSimilarity > 0 {
			sim = fmtSim2(sc.MinSimilarity)
		}
		cells := []string{k, sim, strconv.Itoa(sc.Reported), strconv.Itoa(sc.TP), strconv.Itoa(sc.FP), strconv.Itoa(sc.FN),
			showSimilarity(sc.Precision()), showSimilarity(sc.Recall()), showSimilarity(sc.F1())}
		if rp.beta != 1 {
			cells = append(cells, showSimilarity(sc.FScore(rp.beta)))
		}
		t.Row(append(cells, note)...)
	}
	yoursShown := false
	for _, sc := range top {
		var notes []string
		if sc.Setting == best.Setting {
			notes = append(notes, "best")
		}
		if sc.Setting == rp.Yours.Setting {
			notes = append(notes, "yours")
			yoursShown = true
		}
		row(sc, strings.Join(notes, ", "))
	}
	if !yoursShown {
		row(rp.Yours, "yours")
	}
	t.close()
	fmt.Fprintln(w)
	if rp.Positives < 20 {
		fmt.Fprintf(w, "Only %d true pairs: the figures are rough; raise --join-sample for more.\n", rp.Positives)
	}
	fmt.Fprintf(w, "Recommended for J >= %s, %s first: %s (precision %s, recall %s)\n", fmtSim(rp.Target), preferName(o.prefer),
		settingFlags(best.Setting), showSimilarity(best.Precision()), showSimilarity(best.Recall()))
	for _, c := range cmds {
		if c != "" {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
}

func preferName(p string) string {
	if p == "f1" {
		return "F1"
	}
	return p
}

// fmtSim formats a similarity as short as it is (0.8, 0.75).
func fmtSim(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) }

// fmtSim2 formats a similarity of the sweep with two decimals.
func fmtSim2(s float64) string { return strconv.FormatFloat(s, 'f', 2, 64) }

// settingFlags returns the query flags of sc.
func settingFlags(sc eval.Setting) string {
	var f []string
	if sc.K != eval.NoK {
		f = append(f, fmt.Sprintf("-k %d", sc.K))
	}
	if sc.MinSimilarity > 0 {
		f = append(f, "--min-similarity "+fmtSim(sc.MinSimilarity))
	}
	if len(f) == 0 {
		return "the method's rule"
	}
	return strings.Join(f, " ")
}

// benchOnly are the flags of bench that are not settings or inputs of an
// index, and so stay out of the command lines it recommends.
var benchOnly = map[string]bool{
	"db": true, "sample": true, "join-sample": true, "min-words": true, "edits": true, "rates": true,
	"unrelated": true, "seed": true, "by-edit": true, "by-distance": true, "target-similarity": true,
	"prefer": true, "min-similarity": true, "max-distance": true, "format": true, "output": true,
}

// recommend returns the command lines of sc: simidx dedup of the INPUT
// (args), simidx index of it, and simidx dedup of that index, each with
// the settings and input flags given to bench; with --db, dedup of that
// index alone.
func recommend(sc eval.Setting, o *benchOptions, args []string) [3]string {
	var given []string // settings and input flags, as given
	o.fs.Visit(func(f *pflag.Flag) {
		if benchOnly[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				given = append(given, "--"+f.Name, shellQuote(v))
			}
			return
		}
		if f.Value.Type() == "bool" {
			given = append(given, "--"+f.Name)
			return
		}
		given = append(given, "--"+f.Name, shellQuote(f.Value.String()))
	})
	var in []string
	for _, a := range args {
		in = append(in, shellQuote(a))
	}
	join := func(parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return strings.Join(all, " ")
	}
	var k, sim []string
	if sc.K != eval.NoK {
		k = []string{"-k", strconv.Itoa(sc.K)}
	}
	if sc.MinSimilarity > 0 {
		sim = []string{"--min-similarity", fmtSim(sc.MinSimilarity)}
	}
	if o.db != "" { // the sweep went up to the index's k
		return [3]string{join([]string{"simidx", "dedup", "--db", shellQuote(o.db)}, k, sim), "", ""}
	}
	return [3]string{
		join([]string{"simidx", "dedup"}, given, k, sim, in),
		join([]string{"simidx", "index", "--db", "INDEX.db"}, given, k, in),
		join([]string{"simidx", "dedup", "--db", "INDEX.db"}, sim),
	}
}

// shellQuote returns s as a word of a POSIX shell: as it is if it has only
// safe characters, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
