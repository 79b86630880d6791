package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/input"
	"github.com/spf13/pflag"
)

var queryCommand = &command{
	name:  "query",
	args:  "--db PATH [-k N] [--min-similarity S] [--limit N] [--id ID]... [FILE...|-]",
	short: "find the near duplicates of documents or stored IDs",
	long: `Query finds the documents of the index at --db that are near duplicates of
each stored document named by --id (the document itself left out), of each
fingerprint given by --fingerprint, and of each document read from the FILE
arguments (read like simidx index reads its inputs, --input included; a
directory is read recursively). With no FILE, --id or --fingerprint it reads
one document from standard input.

On an index with the MinHash layer (the default), a match is a document
whose estimated Jaccard similarity is at least --min-similarity (default
0.6) and that is within the index's k bits of Hamming distance of the
query's fingerprint or shares a MinHash band with the query. -k alone, or
--min-similarity 0, selects the fingerprint rule alone: every document
within -k bits, whatever its similarity. A fingerprint (--fingerprint,
--input hashes) and a stored document added as one have no MinHash
signature: they match by distance alone, and show no similarity ("-").
On an index without the MinHash layer, a match is a document within -k
bits (default: the index's --max-distance); on an index made with --method
nshash or short, a document that matches by the method's rule. With
--verify (on an index made with --store-shingles) each candidate's
similarity is the exact Jaccard similarity of the shingle sets, and
--min-similarity applies to it. EXACT says a match has the same canonical
text as the query. Matches are listed by similarity (highest first), then
distance, then ID; by distance, then ID on an index without a similarity.

Example:

	simidx query --db licenses.db testdata/licenses/MIT.txt
	simidx query --db licenses.db --id Apache-2.0.txt --format jsonl
	echo "some text" | simidx query --db licenses.db -`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &queryOptions{}
		fs.StringVar(&o.db, "db", "", "index file `PATH`")
		o.q.Add(fs, true)
		fs.StringArrayVar(&o.ids, "id", nil, "query the stored document `ID` (repeatable)")
		fs.StringArrayVar(&o.fps, "fingerprint", nil, "query a 64-bit fingerprint given in `HEX` (repeatable)")
		o.in.Add(fs)
		o.out.add(fs)
		return func(ctx context.Context, e *env, args []string) error { return runQuery(ctx, e, o, args) }
	},
}

// queryOptions are the flags of simidx query.
type queryOptions struct {
	db  string
	q   indexflag.Query
	ids []string
	fps []string
	in  input.Flags
	out outputFlags
}

// runQuery runs simidx query for args, --id and --fingerprint.
func runQuery(ctx context.Context, e *env, o *queryOptions, args []string) error {
	if err := o.out.check(o.db); err != nil {
		return err
	}
	if err := o.in.Check(); err != nil {
		return err
	}
	if err := o.q.Check(); err != nil {
		return err
	}
	var fpv []uint64
	for _, s := range o.fps {
		fp, ok := input.ParseHex(s)
		if !ok {
			return usagef("--fingerprint wants 1 to 16 hexadecimal digits, not %q", s)
		}
		fpv = append(fpv, fp)
	}
	if !o.in.Given(args) && len(o.ids) == 0 && len(o.fps) == 0 {
		args = []string{"-"}
	}
	x, err := openExisting(o.db, true, false)
	if err != nil {
		return err
	}
	defer x.Close()
	opts, err := o.q.Options(x)
	if err != nil {
		return err
	}
	if o.q.Threshold() && len(o.fps) > 0 {
		return usagef("--min-similarity cannot be used with --fingerprint: a fingerprint has no MinHash signature")
	}
	con := console.New(e.stderr, "query")
	var r *input.Reader
	if o.in.Given(args) {
		if r, err = input.Open(args, o.in, e.stdin, con); err != nil {
			return err
		}
		if o.q.Threshold() && r.HasFormat(input.Hashes) {
			return usagef("--min-similarity cannot be used with --input hashes: a fingerprint has no MinHash signature")
		}
	}
	w, err := o.out.open(e.stdout)
	if err != nil {
		return err
	}
	minHash := hasSimilarity(x, opts)
	if minHash {
		w.Header("QUERY", "ID", "DISTANCE", "SIMILARITY", "EXACT")
	} else {
		w.Header("QUERY", "ID", "DISTANCE", "EXACT")
	}
	// emit writes the matches of a query; sim says the query had
	// text, and so a similarity to report (a fingerprint has none,
	// nor has a match added as one).
	emit := func(query string, ms []index.Match, sim bool) {
		for _, m := range ms {
			hasSim := minHash && sim && !fingerprintOnly(x, m.ID, m.Similarity)
			// Whether the match is an exact copy is known when
			// both have text.
			var exact *bool
			if m.Exact || (sim && !noText(x, m.ID)) {
				exact = &m.Exact
			}
			if w.JSONL() {
				rec := queryRecord{Query: query, ID: m.ID, Distance: m.Distance, Exact: exact}
				if hasSim {
					rec.Similarity = similarity(m.Similarity)
				}
				w.JSON(rec)
			} else if minHash {
				s := "-"
				if hasSim {
					s = showSimilarity(m.Similarity)
				}
				w.Row(cell(query), cell(m.ID), strconv.Itoa(m.Distance), s, exactCell(exact))
			} else {
				w.Row(cell(query), cell(m.ID), strconv.Itoa(m.Distance), exactCell(exact))
			}
		}
	}
	err = func() error {
		for _, id := range o.ids {
			ms, err := x.QueryID(id, opts)
			if errors.Is(err, index.ErrNotFound) {
				return fmt.Errorf("no document %q in %s", id, o.db)
			}
			if err != nil {
				return err
			}
			doc, err := x.Get(id)
			if err != nil {
				return err
			}
			emit(id, ms, !doc.Precomputed)
		}
		for i, fp := range fpv {
			ms, err := x.QueryFingerprint(fp, opts)
			if err != nil {
				return err
			}
			emit(o.fps[i], ms, false)
		}
		if r == nil {
			return nil
		}
		for d, err := range r.All(ctx) {
			if err != nil {
				return err
			}
			var ms []index.Match
			if d.Precomputed {
				ms, err = x.QueryFingerprint(d.Fingerprint, opts)
			} else {
				ms, err = x.Query(d.Text, opts)
			}
			if errors.Is(err, index.ErrTooLarge) {
				// A document the index refuses is skipped like
				// an unreadable one; the others are queried.
				con.Warnf("%s: %v, skipped", d.ID, err)
				r.CountInvalid()
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: %w", d.ID, err)
			}
			emit(d.ID, ms, !d.Precomputed)
		}
		if n := r.Skipped(); n > 0 {
			return fmt.Errorf("%d %s skipped (see above)", n, plural(n, "input was", "inputs were"))
		}
		return nil
	}()
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	return err
}

// fingerprintOnly reports whether the stored document id of a match with
// similarity sim was added as a fingerprint, without text: it has no
// MinHash signature, and so no similarity (the index reports 0). Only a
// similarity of 0 needs the lookup.
func fingerprintOnly(x *index.Index, id string, sim float64) bool {
	if sim != 0 || !x.Settings().MinHash {
		return false
	}
	d, err := x.Get(id)
	return err == nil && d.Precomputed
}

// noText reports whether the stored document id was added as a
// fingerprint, without text: whether it is an exact copy of another is not
// known. Cost: a lookup.
func noText(x *index.Index, id string) bool {
	d, err := x.Get(id)
	return err == nil && d.Precomputed
}

// exactCell is the EXACT cell of a table: yes, no, or - when not known.
func exactCell(exact *bool) string {
	if exact == nil {
		return "-"
	}
	return yesNo(*exact)
}

// queryRecord is a match of --format jsonl.
type queryRecord struct {
	Query      string   `json:"query"`
	ID         string   `json:"id"`
	Distance   int      `json:"distance"`
	Similarity *float64 `json:"similarity,omitempty"`
	Exact      *bool    `json:"exact,omitempty"`
}
