package indexflag

import (
	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/usage"
	"github.com/spf13/pflag"
)

// Query are the flags that select matches: -k, --min-similarity, --verify
// and --limit.
type Query struct {
	fs            *pflag.FlagSet
	maxDistance   int
	minSimilarity float64
	verify        bool
	limit         int
	// Temporary says the index is dedup's temporary one: messages do not
	// name its file.
	Temporary bool
}

// Add defines the flags on fs, --limit only if limit is set.
func (q *Query) Add(fs *pflag.FlagSet, limit bool) {
	q.fs = fs
	fs.IntVarP(&q.maxDistance, "max-distance", "k", 0,
		"largest Hamming `distance` reported (default: the index's --max-distance)")
	fs.Float64Var(&q.minSimilarity, "min-similarity", index.DefaultMinSimilarity,
		"report documents with at least this `similarity`, 0 to 1: the estimated Jaccard similarity with the MinHash layer, the exact one with --verify, the method's own with --method nshash or short; 0 reports every document within -k, whatever its similarity")
	fs.BoolVar(&q.verify, "verify", false,
		"check each candidate against the exact Jaccard similarity of the shingle sets, report that and apply --min-similarity to it (needs an index made with --store-shingles)")
	if limit {
		fs.IntVar(&q.limit, "limit", 0, "report at most `N` matches per query (default: all)")
	}
}

// Threshold reports whether a similarity threshold above 0 was asked for
// (--min-similarity given): it needs the MinHash layer and text, where the
// index's default threshold gives way to the fingerprint rule.
func (q *Query) Threshold() bool {
	return q.fs.Changed("min-similarity") && q.minSimilarity > 0
}

// Verify reports whether --verify was given.
func (q *Query) Verify() bool { return q.verify }

// MaxDistance returns the -k given, and whether it was given.
func (q *Query) MaxDistance() (int, bool) { return q.maxDistance, q.fs.Changed("max-distance") }

// Check validates the flags without an index.
func (q *Query) Check() error {
	if q.maxDistance < 0 || q.maxDistance > index.MaxMaxDistance {
		return usage.Errorf("-k must be 0 to %d, not %d", index.MaxMaxDistance, q.maxDistance)
	}
	// Written so that NaN fails too.
	if !(q.minSimilarity >= 0 && q.minSimilarity <= 1) {
		return usage.Errorf("--min-similarity must be 0 to 1, not %g", q.minSimilarity)
	}
	if q.limit < 0 {
		return usage.Errorf("--limit must not be negative")
	}
	return nil
}

// Options returns the query options for index x.
func (q *Query) Options(x *index.Index) (*index.QueryOptions, error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	s := x.Settings()
	k := max(s.MaxDistance, 0) // ZeroDistance is 0
	opts := &index.QueryOptions{Limit: q.limit}
	name := x.Path()
	if q.Temporary {
		name = "the temporary index of the INPUT"
	}
	if q.fs.Changed("min-similarity") {
		opts.MinSimilarity = q.minSimilarity
		if q.minSimilarity == 0 {
			opts.MinSimilarity = index.NoMinSimilarity
		}
	}
	if q.fs.Changed("max-distance") {
		if q.maxDistance > k {
			return nil, usage.Errorf("-k %d is more than the %d bits %s answers exactly; create the index with --max-distance %d to query that far",
				q.maxDistance, k, name, q.maxDistance)
		}
		opts.MaxDistance = q.maxDistance
		if q.maxDistance == 0 {
			opts.MaxDistance = index.ZeroDistance
		}
	}
	if q.verify {
		switch {
		case s.Text.Method.IsSet():
			return nil, usage.Errorf("--verify is not for --method %s, whose similarity is its own (shared hashes over the smaller set)", s.Text.Method)
		case !s.StoreShingles:
			return nil, usage.Errorf("--verify needs the documents' shingle sets, and %s was created without them (--store-shingles)", name)
		}
		opts.Verify = true
	}
	if q.Threshold() && !s.MinHash && !s.Text.Method.IsSet() && !q.verify {
		why := "--no-minhash"
		if s.Text.Method != index.MethodSimhash {
			why = "--method " + string(s.Text.Method) + ", which has no similarity of its own"
		}
		return nil, usage.Errorf("--min-similarity needs a similarity: %s was created without the MinHash layer (%s); use -k for a distance, or --verify on an index made with --store-shingles", name, why)
	}
	return opts, nil
}
