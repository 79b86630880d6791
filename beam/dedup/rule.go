// Package dedup is simidx dedup as an Apache Beam pipeline: the same
// documents, IDs, pairs, clusters and keep and drop lists as
// `simidx dedup --format jsonl`, computed by joins that a distributed
// runner (Flink, Spark, Dataflow) spreads over machines, or in one
// process with Prism.
//
// The stages: read (files, directories and JSON lines, gzip, through
// Beam's file systems) -> rename repeated IDs -> analyse (index.Fingerprinter)
// -> collapse exact copies by canonical-text hash -> emit permuted-table
// keys and MinHash band keys of each distinct text -> group (oversized
// groups split into blocks) -> candidate pairs, each from the first key
// the two share -> verify by the match rule (signatures joined back by
// document) -> pairs -> connected components (large-star/small-star
// rounds) -> clusters (center or single linkage within each component)
// -> keep and drop.
package dedup

import (
	"fmt"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/keep"
)

// Rule is what decides the pairs and the clusters: the text settings
// and the query rule of simidx dedup. Its fields are serialized into the
// pipeline's functions.
type Rule struct {
	// Settings are the index settings, normalized (index.Fingerprinter's
	// Settings): the text pipeline, the MinHash layer and its bands.
	Settings index.Settings
	// K is the largest Hamming distance of a pair by fingerprint, at
	// most the settings' MaxDistance.
	K int
	// MinSim is the least similarity of a pair with the MinHash layer;
	// 0 means the fingerprint rule alone (pairs within K bits).
	MinSim float64
	// ExpectedDocs chooses the table design when above 0; 0 chooses it
	// from the number of documents read (index.DesignFor(K, N)).
	ExpectedDocs int
	// Keep is the keep policy (internal/keep): first, last, longest,
	// shortest or id.
	Keep string
	// Center says center linkage; single linkage otherwise.
	Center bool
}

// NewRule returns the rule of simidx dedup with settings s (nil: the
// defaults), the query flags given (kGiven with k, simGiven with
// minSim; as dedup's -k and --min-similarity), the keep policy and the
// linkage. It resolves them as dedup does for its temporary index:
// -k sets the index's distance and, without --min-similarity, the
// fingerprint rule alone; --min-similarity 0 is the fingerprint rule
// alone too. The methods other than simhash and --verify are not
// supported: an error says so.
func NewRule(s *index.Settings, kGiven bool, k int, simGiven bool, minSim float64, policy string, center bool) (Rule, error) {
	var st index.Settings
	if s != nil {
		st = *s
	}
	if st.Text.Method != "" && st.Text.Method != index.MethodSimhash {
		return Rule{}, fmt.Errorf("--method %s is not supported by simidx-beam (only simhash)", st.Text.Method)
	}
	if st.StoreShingles {
		return Rule{}, fmt.Errorf("--store-shingles (for --verify) is not supported by simidx-beam")
	}
	if kGiven {
		st.MaxDistance = k
		if k == 0 {
			st.MaxDistance = index.ZeroDistance
		}
	}
	expected := st.ExpectedDocs
	f, err := index.NewFingerprinter(&st)
	if err != nil {
		return Rule{}, err
	}
	n := f.Settings()
	r := Rule{Settings: n, K: max(n.MaxDistance, 0), ExpectedDocs: expected, Keep: policy, Center: center}
	if n.MaxDistance == index.ZeroDistance {
		r.K = 0
	}
	if n.MinHash {
		r.MinSim = index.DefaultMinSimilarity
	}
	switch {
	case simGiven && minSim == 0, kGiven && !simGiven:
		r.MinSim = 0
	case simGiven:
		if !n.MinHash {
			return Rule{}, fmt.Errorf("--min-similarity needs a similarity: without the MinHash layer (--no-minhash) use -k for a distance")
		}
		r.MinSim = minSim
	}
	switch policy {
	case keep.First, keep.Last, keep.Longest, keep.Shortest, keep.ID:
	default:
		return Rule{}, fmt.Errorf("--keep must be first, last, longest, shortest or id, not %q", policy)
	}
	return r, nil
}

// fingerprinter returns a Fingerprinter of r's settings (as serialized:
// NoMinHash is not, and is restored from MinHash).
func (r *Rule) fingerprinter() (*index.Fingerprinter, error) {
	s := r.Settings
	s.NoMinHash = !s.MinHash
	return index.NewFingerprinter(&s)
}

// design returns the table design for n documents.
func (r *Rule) design(n int) index.Design {
	if r.ExpectedDocs > 0 {
		n = r.ExpectedDocs
	}
	return index.DesignFor(r.K, max(n, 1))
}
