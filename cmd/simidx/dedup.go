package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/input"
	"github.com/simidx/simidx/internal/keep"
	"github.com/simidx/simidx/internal/ordered"
	"github.com/simidx/simidx/internal/output"
	"github.com/simidx/simidx/internal/pairsort"
	"github.com/simidx/simidx/internal/report"
	"github.com/spf13/pflag"
)

var dedupCommand = &command{
	name:  "dedup",
	args:  "[--db PATH] [-k N] [--min-similarity S] [--verify] [--linkage L] [--keep POLICY] [--emit WHAT | --report FILE.html] [INPUT...]",
	short: "report every near-duplicate cluster, or what to keep and drop",
	long: `Dedup finds the groups of near duplicates of a corpus: every cluster of two
or more documents, made of pairs of near duplicates (see --linkage). On an
index with the MinHash layer (the default), a pair is two documents whose
estimated Jaccard similarity is at least --min-similarity (0.6) that are
within the index's k bits or share a MinHash band; with -k
alone or --min-similarity 0, two documents within -k bits, whatever their
similarity; without the MinHash layer, two documents within -k bits. With
--verify each candidate pair is checked against the exact Jaccard similarity
of the two shingle sets, which is then the similarity reported and the one
--min-similarity applies to. Documents with the same canonical text are
exact copies. A text with no words (empty, or only punctuation or markup)
matches nothing. A document added as a fingerprint has no similarity ("-").

Given INPUT (files, directories or -, read as simidx index reads them) and no
--db, it indexes them into a temporary index, which it removes afterwards;
the settings flags then set up that index (--verify makes it keep the
shingle sets; an explicit --min-similarity turns on --minhash for the dom
and mfonda methods). Every document read is a document: with several
INPUTs, files are named by their path from the INPUT as given (a/LICENSE,
b/LICENSE), and a document whose ID was read before in the run gets the ID
with #2, #3, ... appended, and a warning. Given --db, it reports on that
index, after adding the INPUT to it if any is given.

--keep says which member of each cluster is kept: first (in input order,
the default), last, longest or shortest (by the size of the text read in
this run), or id (the smallest ID). --linkage says how pairs make clusters:

  center    (the default) the documents that have a pair are taken in the
            order of --keep; one that no center has taken becomes a center,
            the member kept, and takes every document paired with it that
            is not taken yet. Every member dropped is a near duplicate of
            the member kept (a pair of the two), which is the cluster's
            representative. A document whose near duplicates all went to
            other centers is in no cluster, and kept.
  single    every group of documents connected by a chain of pairs is one
            cluster, its representative the smallest ID. Chains join
            documents that are not near duplicates of each other: a member
            can be far below --min-similarity to the member kept.

On the SPDX licences, 15 of the 78 clusters of single linkage have members
that are no pair of the member kept, one at similarity 0.33; center linkage
makes 87 clusters, none such, and keeps 22 more documents (docs/cli.md).
--emit says what is written:

  clusters  each cluster, its kept member first, each other member with its
            distance, similarity and exactness to the kept one (default)
  pairs     every pair of near duplicates, sorted by IDs (--pairs)
  keep      the ID of every document to keep: the kept member of each
            cluster and every document in no cluster, in input order
  drop      the ID of every other document, in input order
  records   the input lines (JSONL or --input lines) of the documents to
            keep, byte for byte, in input order: a corpus filter

keep and drop together list every document once.

--report FILE.html writes the clusters as one HTML file instead, to open in
a browser (offline: its style and script are inline, and it loads nothing):
a summary (documents, clusters, exact copies, empty texts, the bytes the
--keep policy saves, the settings, a histogram of the pairs' similarities),
then every cluster, largest first, with its kept member and each other
member's similarity, distance and exactness to it; filters by least
similarity and size, and a search by ID. With INPUT, the texts read are in
the file too (each cut to its first 64 KiB, 64 MiB in all, the largest
clusters first), and a member opens as a word-level diff against the kept
one, their shared passages highlighted; an index alone (--db without INPUT)
keeps no texts, and its report has none. --report writes nothing on
standard output, so it is not used with --emit, --pairs, --format or
--output; run dedup again with --db for a list.

Example:

	simidx dedup testdata/licenses
	simidx dedup --linkage single testdata/licenses
	simidx dedup --pairs --verify --format jsonl testdata/licenses
	simidx dedup --emit records --keep longest corpus.jsonl > clean.jsonl
	simidx dedup --report duplicates.html --keep longest corpus/
	simidx dedup --db licenses.db --emit drop`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &dedupOptions{fs: fs}
		fs.StringVar(&o.db, "db", "", "index file `PATH` (default: a temporary index of the INPUT)")
		o.q.Add(fs, false)
		fs.StringVar(&o.emit, "emit", emitClusters, "`what` to write: clusters, pairs, keep, drop or records (see above)")
		fs.BoolVar(&o.pairs, "pairs", false, "write pairs instead of clusters (--emit pairs)")
		fs.StringVar(&o.policy, "keep", keep.First, "`policy` choosing the member a cluster keeps: first, last, longest, shortest or id")
		fs.StringVar(&o.link, "linkage", defaultLinkage, "`linkage` joining pairs into clusters: center (each member dropped a pair of the member kept) or single (chains; see above)")
		fs.StringVar(&o.report, "report", "", "write the clusters as an HTML report to `FILE` (see above)")
		fs.IntVar(&o.limit, "limit", 0, "with --emit pairs, write only the first `N` pairs of the sorted list (default: all)")
		o.out.add(fs)
		o.in.Add(fs)
		o.sf.AddIndex(fs, false)
		o.sf.AddText(fs)
		o.memory.add(fs)
		fs.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress and no summary while indexing INPUT, and no progress while finding pairs")
		return func(ctx context.Context, e *env, args []string) error { return runDedup(ctx, e, o, args) }
	},
}

// dedupOptions are the flags of simidx dedup.
type dedupOptions struct {
	db     string
	q      indexflag.Query
	pairs  bool
	emit   string
	policy string
	link   string // --linkage
	limit  int
	report string
	in     input.Flags
	sf     indexflag.Settings
	out    outputFlags
	quiet  bool
	memory loadMemory
	fs     *pflag.FlagSet // for the flags given
}

// runDedup runs simidx dedup on the INPUT args or the index at --db.
func runDedup(ctx context.Context, e *env, o *dedupOptions, args []string) error {
	if err := o.out.check(o.db); err != nil {
		return err
	}
	if err := o.in.Check(); err != nil {
		return err
	}
	if err := o.q.Check(); err != nil {
		return err
	}
	if err := checkEmit(o.emit); err != nil {
		return err
	}
	if err := checkKeep(o.policy); err != nil {
		return err
	}
	linkage, err := parseLinkage(o.link)
	if err != nil {
		return err
	}
	if err := checkReport(o); err != nil {
		return err
	}
	if o.pairs {
		if o.fs.Changed("emit") && o.emit != emitPairs {
			return usagef("--pairs is --emit pairs; it cannot be used with --emit %s", o.emit)
		}
		o.emit = emitPairs
	}
	if o.limit < 0 {
		return usagef("--limit must not be negative")
	}
	if o.fs.Changed("limit") && o.emit != emitPairs {
		return usagef("--limit applies to --emit pairs only; clusters are always reported whole")
	}
	if o.fs.Changed("keep") && o.emit == emitPairs {
		return usagef("--keep chooses the member a cluster keeps; --emit pairs keeps nothing")
	}
	if o.fs.Changed("linkage") && o.emit == emitPairs {
		return usagef("--linkage says how pairs join into clusters; --emit pairs writes the pairs themselves")
	}
	if o.db == "" && len(args) == 0 {
		return usagef("give INPUT to deduplicate (files, directories or -), or --db PATH of an index")
	}
	if len(args) == 0 && (o.policy == keep.Longest || o.policy == keep.Shortest) {
		return usagef("--keep %s compares the sizes of the texts read, and an index does not keep its texts: give the INPUT", o.policy)
	}
	if len(args) == 0 && o.emit == emitRecords {
		return usagef("--emit records writes input lines, and an index does not keep them: give the INPUT")
	}
	s, err := o.sf.Build()
	if err != nil {
		return err
	}

	var x *index.Index
	var opts *index.QueryOptions
	var loadErr error       // inputs that could not be read: reported after the clusters
	var rd *keep.Docs       // what was read, for --keep and --emit records
	var texts *report.Texts // the texts read, for --report
	switch {
	case len(args) == 0:
		if s != nil {
			return usagef("settings flags apply to a new index; without INPUT, --db %s is only read", o.db)
		}
		if x, err = openExisting(o.db, true, false); err != nil {
			return err
		}
		if opts, err = o.q.Options(x); err != nil {
			x.Close()
			return err
		}
	default:
		path := o.db
		_, statErr := os.Stat(path)
		exists := path != "" && statErr == nil
		if exists {
			if s != nil {
				return usagef("settings flags apply to a new index, and %s exists", o.db)
			}
		} else {
			if s == nil {
				s = &index.Settings{}
			}
			if k, given := o.q.MaxDistance(); given {
				// A new index is built for the distance asked for.
				s.MaxDistance = k
				if s.MaxDistance == 0 {
					s.MaxDistance = index.ZeroDistance
				}
			}
			if o.q.Verify() {
				s.StoreShingles = true
			}
			if o.q.Threshold() && (s.Text.Method == index.MethodDOM || s.Text.Method == index.MethodMfonda) && !s.NoMinHash {
				s.MinHash = true // a similarity to apply the threshold to
			}
		}
		tmp, err := os.MkdirTemp("", "simidx-dedup-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if path == "" {
			path = filepath.Join(tmp, "index.db")
			o.q.Temporary = true
		}
		con := console.New(e.stderr, "dedup")
		r, err := input.Open(args, o.in, e.stdin, con)
		if err != nil {
			return err
		}
		if o.db == "" && !o.fs.Changed("expected-docs") {
			sizeTemporary(s, r)
		}
		if x, err = openCreate(path, s, index.Options{NoSync: o.db == ""}); err != nil {
			return err
		}
		// The query flags are checked before anything is added to
		// the index; an index created for nothing is removed.
		opts, err = o.q.Options(x)
		if err == nil {
			rd, err = keep.NewDocs(tmp, o.policy == keep.Longest || o.policy == keep.Shortest, o.emit == emitRecords)
		}
		if err == nil && o.report != "" {
			if texts, err = report.NewTexts(tmp, 0); err == nil {
				defer texts.Close()
			}
		}
		if err != nil {
			x.Close()
			if !exists && o.db != "" {
				os.Remove(path)
			}
			return err
		}
		defer rd.Close()
		r.Unique = true // every document counts
		r.OnDoc = rd.Add
		if texts != nil {
			r.OnDoc = func(d *index.Doc, raw []byte) {
				rd.Add(d, raw)
				texts.Add(d.ID, d.Text, d.Precomputed)
			}
		}
		_, loadErr = load(ctx, x, r, con, e.stderr, o.quiet, o.memory)
		if _, unread := loadErr.(unreadError); loadErr != nil && !unread && loadErr != errInterrupted {
			// The index is not what was read (a failed commit, a
			// full disk): nothing is reported from it.
			x.Close()
			return loadErr
		}
		if loadErr == errInterrupted {
			x.Close()
			if o.db != "" {
				con.Messagef("simidx dedup: interrupted; the index %s is consistent; nothing reported", o.db)
			} else {
				con.Messagef("simidx dedup: interrupted; nothing reported")
			}
			return errInterrupted
		}
		if r.Docs() == 0 {
			if o.db == "" {
				con.Messagef("simidx dedup: %s; nothing to deduplicate", noDocuments(r))
			} else {
				con.Messagef("simidx dedup: %s; nothing added to %s", noDocuments(r), o.db)
			}
		}
	}
	defer x.Close()

	opts.Linkage = linkage
	if !o.quiet && isTerminal(e.stderr) {
		defer showScan(console.New(e.stderr, "dedup"), opts)()
	}
	if o.report != "" {
		err = writeDedupReport(ctx, e, o, x, opts, rd, texts, args)
		if ctx.Err() != nil {
			return errInterrupted
		}
		if err == nil {
			err = loadErr
		}
		return err
	}
	w, err := o.out.open(e.stdout)
	if err != nil {
		return err
	}
	var sizes map[string]int64
	if rd != nil {
		sizes = rd.Sizes()
	}
	switch o.emit {
	case emitPairs:
		err = reportPairs(ctx, x, opts, o.limit, w)
	case emitClusters:
		err = reportClusters(ctx, x, opts, o.policy, sizes, w)
	case emitKeep, emitDrop:
		err = reportKeep(ctx, x, opts, o.policy, sizes, o.emit == emitKeep, w)
	case emitRecords:
		var drop map[string]bool
		if drop, err = keep.Drops(ctx, x, opts, o.policy, sizes); err == nil {
			err = rd.WriteRecords(w, drop)
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err == nil {
		err = loadErr
	}
	return err
}

// sizeTemporary chooses the design of dedup's temporary index, which holds
// the input and nothing more, for the input's size when that is under the
// default ExpectedDocs: s.ExpectedDocs is then the estimate of r
// (input.Reader.EstimateDocs), and stays as it is for a larger input or
// when the size is not known before it is read (standard input, a pipe,
// compressed files, archives). The design for fewer documents has fewer
// keys in its tables and its ID, exact and band groups, which the load
// writes on one goroutine and the scan for pairs reads; a larger one would
// have more. The pairs and clusters are the same: the tables find every
// pair within k bits whatever their design, and the band hashes keep 38
// bits at any size up to the default.
func sizeTemporary(s *index.Settings, r *input.Reader) {
	if n, ok := r.EstimateDocs(); ok && n < index.DefaultExpectedDocs {
		s.ExpectedDocs = int(max(n, 1))
	}
}

// showScan draws a progress line on con during each scan of Pairs or
// Clusters with opts (see index.ScanProgress), from its beginning until
// every pair is found: what follows a scan writes to stdout, which may be
// the same terminal. It returns a function that removes the line if one
// is drawn.
func showScan(con *console.Console, opts *index.QueryOptions) (stop func()) {
	var (
		sp     atomic.Pointer[index.ScanProgress]
		mu     sync.Mutex
		remove func() // of the line drawn, nil when none is
	)
	stop = func() {
		mu.Lock()
		defer mu.Unlock()
		if remove != nil {
			remove()
			remove = nil
		}
	}
	opts.Progress = func(p index.ScanProgress) {
		sp.Store(&p)
		if p.Done {
			stop()
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if remove == nil {
			begun := time.Now()
			remove = con.StartProgress(func() string { return scanLine(sp.Load(), time.Since(begun)) })
		}
	}
	return stop
}

// scanLine is the progress line of a scan at p (nil before it begins),
// elapsed after it began.
func scanLine(p *index.ScanProgress, elapsed time.Duration) string {
	line := "finding pairs"
	if p != nil && p.Tables > 0 {
		line += fmt.Sprintf(": tables %d of %d", p.TablesDone, p.Tables)
	}
	if p != nil && p.Bands > 0 {
		sep := ", "
		if p.Tables == 0 {
			sep = ": "
		}
		line += fmt.Sprintf("%sbands %d of %d", sep, p.BandsDone, p.Bands)
	}
	return line + ", " + elapsed.Round(time.Second).String()
}

// What dedup writes (--emit).
const (
	emitClusters = "clusters"
	emitPairs    = "pairs"
	emitKeep     = "keep"
	emitDrop     = "drop"
	emitRecords  = "records"
)

func checkKeep(policy string) error {
	switch policy {
	case keep.First, keep.Last, keep.Longest, keep.Shortest, keep.ID:
		return nil
	}
	return usagef("--keep must be first, last, longest, shortest or id, not %q", policy)
}

// defaultLinkage is the --linkage of dedup.
const defaultLinkage = "center"

func parseLinkage(s string) (index.Linkage, error) {
	switch s {
	case "single":
		return index.SingleLinkage, nil
	case "center":
		return index.CenterLinkage, nil
	}
	return 0, usagef("--linkage must be single or center, not %q", s)
}

func checkEmit(what string) error {
	switch what {
	case emitClusters, emitPairs, emitKeep, emitDrop, emitRecords:
		return nil
	}
	return usagef("--emit must be clusters, pairs, keep, drop or records, not %q", what)
}

// memberRecord is a member of a cluster in --format jsonl: the kept one,
// or another with its distance, similarity and exactness to the kept one.
type memberRecord struct {
	ID         string   `json:"id"`
	Keep       bool     `json:"keep"`
	Distance   *int     `json:"distance,omitempty"`
	Similarity *float64 `json:"similarity,omitempty"`
	Exact      *bool    `json:"exact,omitempty"`
}

// idRecord is an ID of --emit keep or drop in --format jsonl.
type idRecord struct {
	ID string `json:"id"`
}

// pairRecord is a pair of --format jsonl.
type pairRecord struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	Distance   int      `json:"distance"`
	Similarity *float64 `json:"similarity,omitempty"`
	Exact      *bool    `json:"exact,omitempty"`
}

// clusterRecord is a cluster of --format jsonl.
type clusterRecord struct {
	Cluster        int            `json:"cluster"`
	Representative string         `json:"representative"`
	IDs            []string       `json:"ids"`
	Keep           string         `json:"keep"`
	Members        []memberRecord `json:"members"`
}

// hasSimilarity reports whether x reports similarities with opts: with
// MinHash, a set method, or verified.
func hasSimilarity(x *index.Index, opts *index.QueryOptions) bool {
	s := x.Settings()
	return s.MinHash || s.Text.Method.IsSet() || (opts != nil && opts.Verify)
}

// reportPairs writes the pairs of x, sorted by their IDs; with a limit
// above 0, only the first limit pairs of that order. Memory is bounded
// (see pairsort.Sorted), the table's too: when the pairs do not fit in
// memory, they are read twice, to measure the columns and to write them.
func reportPairs(ctx context.Context, x *index.Index, opts *index.QueryOptions, limit int, w *output.Writer) error {
	return writePairs(ctx, x, opts, limit, pairsort.RunPairs, w)
}

// writePairs is reportPairs holding run pairs in memory.
func writePairs(ctx context.Context, x *index.Index, opts *index.QueryOptions, limit, run int, w *output.Writer) error {
	ps, err := pairsort.Sorted(ctx, x, opts, limit, run)
	if err != nil {
		return err
	}
	defer ps.Close()
	sim := hasSimilarity(x, opts)
	if sim {
		w.Header("A", "B", "DISTANCE", "SIMILARITY", "EXACT")
	} else {
		w.Header("A", "B", "DISTANCE", "EXACT")
	}
	// row returns the record of p, and its cells for a table.
	row := func(p index.Pair) (pairRecord, []string) {
		// A document added as a fingerprint has no similarity.
		hasSim := sim && !fingerprintOnly(x, p.A, p.Similarity) && !fingerprintOnly(x, p.B, p.Similarity)
		var exact *bool // known when both have text
		if p.Exact || (!noText(x, p.A) && !noText(x, p.B)) {
			exact = &p.Exact
		}
		rec := pairRecord{A: p.A, B: p.B, Distance: p.Distance, Exact: exact}
		if hasSim {
			rec.Similarity = similarity(p.Similarity)
		}
		if w.JSONL() {
			return rec, nil
		}
		cells := []string{cell(p.A), cell(p.B), strconv.Itoa(p.Distance)}
		if sim {
			s := "-"
			if hasSim {
				s = showSimilarity(p.Similarity)
			}
			cells = append(cells, s)
		}
		return rec, append(cells, exactCell(exact))
	}
	if !w.JSONL() && ps.Spilled() {
		err := ps.Each(ctx, func(p index.Pair) error {
			_, cells := row(p)
			w.Measure(cells...)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return ps.Each(ctx, func(p index.Pair) error {
		rec, cells := row(p)
		if w.JSONL() {
			w.JSON(rec)
		} else {
			w.Row(cells...)
		}
		return w.Err()
	})
}

// reportClusters writes the clusters of x: for each, the member policy
// keeps, then the others by ID, each with its distance, similarity and
// exactness to the kept one.
func reportClusters(ctx context.Context, x *index.Index, opts *index.QueryOptions, policy string, sizes map[string]int64, w *output.Writer) error {
	sim := hasSimilarity(x, opts)
	if sim {
		w.Header("CLUSTER", "SIZE", "ID", "KEEP", "DISTANCE", "SIMILARITY", "EXACT")
	} else {
		w.Header("CLUSTER", "SIZE", "ID", "KEEP", "DISTANCE", "EXACT")
	}
	return clusterRecords(ctx, x, opts, policy, sizes, sim, func(rec clusterRecord) error {
		if w.JSONL() {
			w.JSON(rec)
			return w.Err()
		}
		for i, m := range rec.Members {
			num, size, keep, dist, simCell, exact := "", "", "drop", "-", "-", "-"
			if i == 0 {
				num, size, keep = strconv.Itoa(rec.Cluster), strconv.Itoa(len(rec.IDs)), "keep"
			} else {
				dist = strconv.Itoa(*m.Distance)
				if m.Exact != nil {
					exact = yesNo(*m.Exact)
				}
				if m.Similarity != nil {
					simCell = showSimilarity(*m.Similarity)
				}
			}
			if sim {
				w.Row(num, size, cell(m.ID), keep, dist, simCell, exact)
			} else {
				w.Row(num, size, cell(m.ID), keep, dist, exact)
			}
		}
		return w.Err()
	})
}

// clusterRecords calls out with the record of every cluster of x (see
// clusterRecordOf) in the order of keep.Clusters. The records are made on
// all cores (the comparisons of their members cost most), in batches of
// clusters of about clusterBatch members (most clusters have two or three,
// whose comparisons cost about what handing one to a core costs); out runs
// on one goroutine at a time.
func clusterRecords(ctx context.Context, x *index.Index, opts *index.QueryOptions, policy string, sizes map[string]int64, sim bool, out func(clusterRecord) error) error {
	type kept struct {
		c index.Cluster
		k index.Member
	}
	each := func(yield func([]kept) error) error {
		var batch []kept
		members := 0
		err := keep.Clusters(ctx, x, opts, policy, sizes, func(c index.Cluster, k index.Member) error {
			batch = append(batch, kept{c, k})
			if members += len(c.Members); members < clusterBatch {
				return nil
			}
			b := batch
			batch, members = nil, 0
			return yield(b)
		})
		if err == nil && len(batch) > 0 {
			err = yield(batch)
		}
		return err
	}
	// The records of a batch up to the first that failed, and its error:
	// the clusters before it are written, as they would be one at a time.
	type made struct {
		recs []clusterRecord
		err  error
	}
	records := func(b []kept) (made, error) {
		recs := make([]clusterRecord, 0, len(b))
		for _, ck := range b {
			r, err := clusterRecordOf(x, opts, ck.c, ck.k, sim)
			if err != nil {
				return made{recs, err}, nil
			}
			recs = append(recs, r)
		}
		return made{recs, nil}, nil
	}
	outAll := func(m made) error {
		for _, r := range m.recs {
			if err := out(r); err != nil {
				return err
			}
		}
		return m.err
	}
	return ordered.Map(ctx, runtime.GOMAXPROCS(0), each, records, outAll)
}

// clusterBatch is about the number of members of the clusters whose
// records clusterRecords makes in one batch.
const clusterBatch = 256

// clusterRecordOf returns the record of cluster c whose kept member is k
// (keep.Clusters): k first, then the others by ID, each with its
// distance, similarity (when sim) and exactness to the kept one, from
// x.CompareMembers. Both members of a comparison need a text for its
// similarity and exactness: a document added as a fingerprint has neither.
func clusterRecordOf(x *index.Index, opts *index.QueryOptions, c index.Cluster, k index.Member, sim bool) (clusterRecord, error) {
	rec := clusterRecord{Cluster: c.Number, Representative: c.Representative, IDs: c.IDs, Keep: k.ID,
		Members: []memberRecord{{ID: k.ID, Keep: true}}}
	others := make([]index.Member, 0, len(c.Members))
	for _, m := range c.Members {
		if m.Seq != k.Seq {
			others = append(others, m)
		}
	}
	ps, err := x.CompareMembers(k, others, opts)
	if err != nil {
		return clusterRecord{}, err
	}
	i := 0
	for _, m := range c.Members {
		if m.Seq == k.Seq {
			continue
		}
		p := ps[i]
		i++
		mr := memberRecord{ID: m.ID, Distance: &p.Distance}
		if k.Text && m.Text { // a fingerprint has no text to compare
			mr.Exact = &p.Exact
			if sim {
				mr.Similarity = similarity(p.Similarity)
			}
		}
		rec.Members = append(rec.Members, mr)
	}
	return rec, nil
}

// reportKeep writes the IDs of the documents to keep (keeping set) or to
// drop, in the order of addition.
func reportKeep(ctx context.Context, x *index.Index, opts *index.QueryOptions, policy string, sizes map[string]int64, keeping bool, w *output.Writer) error {
	drop, err := keep.Drops(ctx, x, opts, policy, sizes)
	if err != nil {
		return err
	}
	// One ID a line, without a header: a list for other commands.
	return x.Members(ctx, func(m index.Member) error {
		if drop[m.ID] == keeping {
			return nil
		}
		if w.JSONL() {
			w.JSON(idRecord{ID: m.ID})
		} else {
			w.Row(cell(m.ID))
		}
		return w.Err()
	})
}
