package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/simidx/simidx/index"
	"github.com/spf13/pflag"
)

var dedupCommand = &command{
	name:  "dedup",
	args:  "[--db PATH] [-k N] [--min-similarity S] [--pairs] [INPUT...]",
	short: "report every near-duplicate cluster (or pair)",
	long: `Dedup reports the groups of near duplicates of a corpus: every cluster of two
or more documents, a cluster being the documents connected by pairs of near
duplicates; with --pairs, every such pair instead. On an index with the
MinHash layer (the default), a pair is two documents whose estimated Jaccard
similarity is at least --min-similarity (0.6) that are within the index's k
bits or share a MinHash band; with -k alone or --min-similarity 0, two
documents within -k bits, whatever their similarity; without the MinHash
layer, two documents within -k bits. A document added as a fingerprint has
no MinHash signature: its pairs are by distance alone, without a similarity
("-").

Given INPUT (files, directories or -, read as simidx index reads them) and no
--db, it indexes them into a temporary index, which it removes afterwards;
the settings flags then set up that index (an explicit --min-similarity turns
on --minhash for the methods without it by default). Given --db, it reports
on that index, after adding the INPUT to it if any is given.

Clusters are listed in the order of their smallest ID, each with its IDs
sorted, one row per ID; pairs sorted by their IDs, the smaller first.

Example:

	simidx dedup testdata/licenses
	simidx dedup --pairs --format jsonl testdata/licenses
	simidx dedup --db licenses.db -k 1`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		var (
			db    string
			q     queryFlags
			pairs bool
			limit int
			in    inputFlags
			sf    settingsFlags
			out   outputFlags
			quiet bool
		)
		fs.StringVar(&db, "db", "", "index file `PATH` (default: a temporary index of the INPUT)")
		q.add(fs, false)
		fs.BoolVar(&pairs, "pairs", false, "report pairs instead of clusters")
		fs.IntVar(&limit, "limit", 0, "with --pairs, report only the first `N` pairs of the sorted list (default: all)")
		out.add(fs)
		in.add(fs)
		sf.addIndexFlags(fs, false)
		sf.addTextFlags(fs)
		fs.BoolVarP(&quiet, "quiet", "q", false, "print no progress and no summary while indexing INPUT")
		return func(ctx context.Context, e *env, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			if err := in.check(); err != nil {
				return err
			}
			if err := q.check(); err != nil {
				return err
			}
			if limit < 0 {
				return usagef("--limit must not be negative")
			}
			if fs.Changed("limit") && !pairs {
				return usagef("--limit applies to --pairs only; clusters are always reported whole")
			}
			if db == "" && !in.given(args) {
				return usagef("give INPUT to deduplicate (files, directories or -), or --db PATH of an index")
			}
			s, err := sf.settings()
			if err != nil {
				return err
			}

			var x *index.Index
			var opts *index.QueryOptions
			var loadErr error // inputs that could not be read: reported after the clusters
			switch {
			case !in.given(args):
				if s != nil {
					return usagef("settings flags apply to a new index; without INPUT, --db %s is only read", db)
				}
				if x, err = openExisting(db, true); err != nil {
					return err
				}
				if opts, err = q.options(x); err != nil {
					x.Close()
					return err
				}
			default:
				path := db
				_, statErr := os.Stat(path)
				exists := path != "" && statErr == nil
				if exists {
					if s != nil {
						return usagef("settings flags apply to a new index, and %s exists", db)
					}
				} else if q.fs.Changed("max-distance") {
					// A new index is built for the distance asked for.
					if s == nil {
						s = &index.Settings{}
					}
					s.MaxDistance = q.maxDistance
					if s.MaxDistance == 0 {
						s.MaxDistance = index.ZeroDistance
					}
				}
				if path == "" {
					dir, err := os.MkdirTemp("", "simidx-dedup-")
					if err != nil {
						return err
					}
					defer os.RemoveAll(dir)
					path = filepath.Join(dir, "index.db")
					if q.threshold() {
						if s == nil {
							s = &index.Settings{}
						}
						s.MinHash = true
					}
				}
				if x, err = openCreate(path, s, index.Options{NoSync: db == ""}); err != nil {
					return err
				}
				// The query flags and the inputs are checked before
				// anything is added to the index; an index created for
				// nothing is removed.
				con := &console{w: e.stderr, cmd: "dedup"}
				var r *reader
				opts, err = q.options(x)
				if err == nil {
					r, err = newReader(args, in, e.stdin, con)
				}
				if r != nil {
					r.unique = true // every document counts
				}
				if err != nil {
					x.Close()
					if !exists && db != "" {
						os.Remove(path)
					}
					return err
				}
				_, loadErr = load(ctx, x, r, con, e.stderr, quiet)
				if loadErr == errInterrupted {
					x.Close()
					if db != "" {
						con.message("simidx dedup: interrupted; the index %s is consistent; nothing reported", db)
					} else {
						con.message("simidx dedup: interrupted; nothing reported")
					}
					return errInterrupted
				}
			}
			defer x.Close()

			w, err := out.open(e.stdout)
			if err != nil {
				return err
			}
			if pairs {
				err = reportPairs(ctx, x, opts, limit, w)
			} else {
				err = reportClusters(ctx, x, opts, w)
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
	},
}

// pairRecord is a pair of --format jsonl.
type pairRecord struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	Distance   int      `json:"distance"`
	Similarity *float64 `json:"similarity,omitempty"`
}

// clusterRecord is a cluster of --format jsonl.
type clusterRecord struct {
	Cluster        int      `json:"cluster"`
	Representative string   `json:"representative"`
	IDs            []string `json:"ids"`
}

// reportPairs writes the pairs of x, sorted by their IDs; with a limit
// above 0, only the first limit pairs of that order.
func reportPairs(ctx context.Context, x *index.Index, opts *index.QueryOptions, limit int, w *output) error {
	// Index.Pairs stops at opts.Limit pairs in its own order: every pair
	// is collected, sorted, and then cut.
	all := *opts
	all.Limit = 0
	var ps []index.Pair
	err := x.Pairs(ctx, &all, func(p index.Pair) error {
		if p.A > p.B {
			p.A, p.B = p.B, p.A
		}
		ps = append(ps, p)
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(ps, func(p, q index.Pair) int {
		return cmp.Or(cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B))
	})
	if limit > 0 && len(ps) > limit {
		ps = ps[:limit]
	}
	minHash := x.Settings().MinHash || x.Settings().Text.Method.IsSet() // both report a similarity
	if minHash {
		w.header("A", "B", "DISTANCE", "SIMILARITY")
	} else {
		w.header("A", "B", "DISTANCE")
	}
	for _, p := range ps {
		// A document added as a fingerprint has no similarity.
		hasSim := minHash && !fingerprintOnly(x, p.A, p.Similarity) && !fingerprintOnly(x, p.B, p.Similarity)
		switch {
		case w.jsonl:
			rec := pairRecord{A: p.A, B: p.B, Distance: p.Distance}
			if hasSim {
				rec.Similarity = similarity(p.Similarity)
			}
			w.json(rec)
		case minHash:
			s := "-"
			if hasSim {
				s = fmt.Sprintf("%.2f", p.Similarity)
			}
			w.row(cell(p.A), cell(p.B), strconv.Itoa(p.Distance), s)
		default:
			w.row(cell(p.A), cell(p.B), strconv.Itoa(p.Distance))
		}
	}
	return nil
}

// reportClusters writes the clusters of x, one row per ID in a table.
func reportClusters(ctx context.Context, x *index.Index, opts *index.QueryOptions, w *output) error {
	w.header("CLUSTER", "SIZE", "ID")
	return x.Clusters(ctx, opts, func(c index.Cluster) error {
		if w.jsonl {
			w.json(clusterRecord{Cluster: c.Number, Representative: c.Representative, IDs: c.IDs})
			return w.err
		}
		for i, id := range c.IDs {
			if i == 0 {
				w.row(strconv.Itoa(c.Number), strconv.Itoa(len(c.IDs)), cell(id))
			} else {
				w.row("", "", cell(id))
			}
		}
		return w.err
	})
}
