package index

import (
	"cmp"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// QueryOptions select what a query, Pairs or Clusters report. A nil
// *QueryOptions means the zero QueryOptions: on an index without MinHash,
// every document within the index's MaxDistance; with MinHash (the
// default), every candidate from the permuted tables or a shared band
// whose estimated similarity reaches DefaultMinSimilarity (see
// MinSimilarity); no limit.
//
// On an index with a set method (MethodNshash, MethodShort) a document
// matches if it has the same canonical text (an exact copy) or if it
// matches by the method's rule (nshash: the two sets share a hash; short:
// they share at least TextSettings.MinShared hashes and the similarity
// reaches TextSettings.Threshold). The fingerprint rule (distance within
// MaxDistance) is added only when MaxDistance is set (non-zero), so the
// zero QueryOptions select the method's rule alone. Match.Distance is still
// the distance between the simhash fingerprints, and Match.Similarity the
// method's similarity: shared hashes over the size of the smaller set, 1
// for exact copies.
type QueryOptions struct {
	// MaxDistance is the largest Hamming distance reported. Zero means the
	// index's Settings.MaxDistance (k), or no fingerprint rule on an index
	// with a set method; ZeroDistance means 0 (identical fingerprints
	// only). More than k is an error wrapping ErrSettings: the tables are
	// exact up to k only.
	MaxDistance int

	// MinSimilarity is the similarity threshold of an index with MinHash:
	// a document matches if its estimated Jaccard similarity is at least
	// MinSimilarity and it is a candidate from the permuted tables (within
	// MaxDistance) or from the MinHash bands (sharing at least
	// Settings.MinBands bands with the query). Zero means
	// DefaultMinSimilarity (0.6) on an index with MinHash when MaxDistance
	// is zero too (the default query), and no threshold otherwise: a query
	// that sets MaxDistance alone asks for the fingerprint rule alone, as
	// does NoMinSimilarity. A value above zero needs an index with MinHash,
	// or with a set method, where it is the least similarity of the
	// method's own measure (see above) that a match must reach, or Verify
	// (which applies it to the exact similarity).
	// At most 1.
	//
	// The threshold needs a signature on both sides, so a document added
	// with a precomputed fingerprint (and a query by fingerprint, or by the
	// ID of such a document) is matched by the fingerprint rule alone; an
	// explicit MinSimilarity above zero makes such a query an error.
	MinSimilarity float64

	// Limit, when above zero, caps the number of matches (Query) or pairs
	// (Pairs) reported. Clusters ignores it.
	Limit int

	// Verify replaces the estimated similarity of each candidate by the
	// exact Jaccard similarity of the shingle sets (the query text's and
	// the stored document's), and applies MinSimilarity to that: a
	// candidate whose estimate reached the threshold but whose exact
	// similarity does not is dropped, and one whose estimate fell short
	// but whose exact similarity reaches it is kept. Candidates are found
	// as without Verify (within MaxDistance, sharing a band, exact
	// copies). It needs an index with Settings.StoreShingles, and then
	// also allows MinSimilarity on an index without MinHash (applied to
	// the candidates within MaxDistance). Not for the set methods. A
	// document added by fingerprint has no set: it is matched as without
	// Verify. Cost: a read and decoding of the stored set of each
	// candidate (of both documents of each candidate pair in Pairs) and a
	// merge of two sorted sets.
	Verify bool

	// Linkage is how Clusters joins pairs into clusters: SingleLinkage
	// (the zero value) or CenterLinkage. Query and Pairs ignore it.
	Linkage Linkage

	// CenterOrder is the order in which CenterLinkage takes documents as
	// centers: a before b if it returns a negative number, ties broken by
	// Seq; nil is the order of addition (Seq). The center of a cluster is
	// its first member in this order: to keep the centers, order the
	// documents by what should be kept. Clusters calls it outside its
	// read transaction; the other methods ignore it.
	CenterOrder func(a, b Member) int

	// Progress, when not nil, is told how far a scan of Pairs or Clusters
	// is (see ScanProgress): as it begins, as it hands out each permuted
	// table and each MinHash band after the first, and last once every
	// pair is found (Done). It runs on the caller's goroutine inside the
	// read transaction, as the function given to Pairs does: it must not
	// call the index's methods. The other methods ignore it. Cost: a call
	// per table and per band.
	Progress func(ScanProgress)
}

// ScanProgress is how far a scan of Pairs or Clusters is: it has handed
// out TablesDone of its Tables permuted tables, then BandsDone of its
// Bands MinHash bands, in that order (0 of 0 for a part it does not
// scan: the tables without the fingerprint rule, the bands without a
// similarity threshold). The pairs of what is handed out are being found
// (on up to GOMAXPROCS goroutines). A scan of an index with a set method
// then reads its set postings, and one of MethodDOM or MethodMfonda its
// exact copies, neither counted in parts; Done says every pair is found,
// and Clusters then joins them.
type ScanProgress struct {
	TablesDone, Tables int
	BandsDone, Bands   int
	Done               bool
}

// Match is a document found by a query.
type Match struct {
	// ID is the external ID of the document.
	ID string `json:"id"`

	// Distance is the Hamming distance between the fingerprints.
	Distance int `json:"distance"`

	// Similarity is the Jaccard similarity estimated from the MinHash
	// signatures, 0 to 1, on an index with MinHash; the method's
	// similarity on an index with a set method (see QueryOptions);
	// otherwise 0.
	Similarity float64 `json:"similarity"`

	// Exact says the document has the same canonical text as the query
	// (an exact copy, up to what canonicalization removes: markup, case,
	// punctuation, spacing).
	Exact bool `json:"exact"`
}

// Query returns the stored documents similar to text, as selected by opts,
// sorted by similarity (highest first), then distance, then ID on an
// index with a similarity (MinHash, a set method, or stored shingle sets
// for Verify); by distance, then ID on others. A document added as a
// fingerprint has similarity 0 and so comes after those with text. Documents with the same canonical text are always included.
// Text over MaxDocSize gives ErrTooLarge.
//
// It costs one analysis of text plus one bbolt lookup per table and a scan
// of the group found (see Design.Candidates), and a lookup per match; with
// MinSimilarity, also one lookup per band and a signature comparison per
// candidate; with a set method, one lookup per hash of the set and a
// record read per document in those postings.
func (x *Index) Query(text []byte, opts *QueryOptions) ([]Match, error) {
	if err := x.checkOpen(); err != nil {
		return nil, err
	}
	if v := x.pendingOps(); v != nil {
		pr, err := x.probeText(text)
		if err != nil {
			return nil, err
		}
		return x.queryPending(v, &pr, opts, "")
	}
	q, err := x.resolve(opts)
	if err != nil {
		return nil, err
	}
	if len(text) > MaxDocSize {
		return nil, fmt.Errorf("%w: query has %d bytes, more than %d", ErrTooLarge, len(text), MaxDocSize)
	}
	a := x.getAnalyzer()
	defer x.pool.Put(a)
	an := a.analyze(text)
	var ms []Match
	err = x.viewFiltered(func(tx *bolt.Tx, bf *bandFilter) error {
		var err error
		ms, err = x.search(tx, bf, probe{fp: an.fp, text: true, exact: an.exact, sig: an.sig, bands: an.bands, set: an.set, short: an.short, shingles: an.shingles, self: -1}, q)
		return err
	})
	return ms, boltErr(err)
}

// QueryFingerprint returns the stored documents within opts.MaxDistance of
// the fingerprint fp, sorted by distance, then ID. MinSimilarity cannot be
// used (there is no signature to compare). On an index with a set method
// it applies the fingerprint rule alone (there is no set), with
// MaxDistance zero meaning the index's k. It costs one bbolt lookup per
// table and a scan of the group found, and a lookup per match.
func (x *Index) QueryFingerprint(fp uint64, opts *QueryOptions) ([]Match, error) {
	if err := x.checkOpen(); err != nil {
		return nil, err
	}
	q, err := x.resolve(opts)
	if err != nil {
		return nil, err
	}
	if q.minSimSet {
		return nil, fmt.Errorf("%w: a query by fingerprint has no MinHash signature for MinSimilarity", ErrSettings)
	}
	if v := x.pendingOps(); v != nil {
		pr := x.probeFingerprint(fp)
		return x.queryPending(v, &pr, opts, "")
	}
	q.fp, q.minSim = true, 0
	var ms []Match
	err = x.viewFiltered(func(tx *bolt.Tx, bf *bandFilter) error {
		var err error
		ms, err = x.search(tx, bf, probe{fp: fp, self: -1}, q)
		return err
	})
	return ms, boltErr(err)
}

// QueryID returns the stored documents similar to the stored document id,
// excluding that document itself, like Query of its text. It fails with
// ErrNotFound if there is no such document. With MinSimilarity the document
// must have been added with text.
func (x *Index) QueryID(id string, opts *QueryOptions) ([]Match, error) {
	if err := x.checkOpen(); err != nil {
		return nil, err
	}
	if v := x.pendingOps(); v != nil {
		return x.queryIDPending(v, id, opts)
	}
	q, err := x.resolve(opts)
	if err != nil {
		return nil, err
	}
	var ms []Match
	err = x.viewFiltered(func(tx *bolt.Tx, bf *bandFilter) error {
		n, r, err := x.lookup(tx, id, true)
		if err != nil {
			return err
		}
		if !r.text {
			if q.minSimSet {
				return fmt.Errorf("%w: document %q has no MinHash signature for MinSimilarity", ErrSettings, id)
			}
			q.minSim = 0 // added by fingerprint: the fingerprint rule alone
		}
		var sh []uint64
		if q.verify {
			if sh, _, err = storedShingles(tx.Bucket(bucketShingles), nil, n); err != nil {
				return err
			}
		}
		ms, err = x.search(tx, bf, probe{fp: r.fp, text: r.text, exact: r.exact, sig: r.sig, bands: r.bands, set: r.set, short: r.short, shingles: sh, self: int64(n)}, q)
		return err
	})
	return ms, boltErr(err)
}

// DefaultMinSimilarity is the similarity threshold of queries on an index
// with MinHash when QueryOptions.MinSimilarity is zero. Under the default
// query's rule (within MaxDistance or sharing a band) it gives the highest
// F1 for pairs with Jaccard similarity >= 0.8 on every corpus of the
// ground truth of docs/benchmarks.md.
const DefaultMinSimilarity = 0.6

// NoMinSimilarity in QueryOptions.MinSimilarity asks an index with MinHash
// for the fingerprint rule alone: documents within MaxDistance, whatever
// their similarity, and no band candidates.
const NoMinSimilarity = -1

// queryParams are resolved QueryOptions.
type queryParams struct {
	maxDist int
	fp      bool // the fingerprint rule: a document within maxDist matches
	minSim  float64
	// minSimSet says minSim was asked for explicitly, not by default: a
	// query without a signature is then an error instead of falling back
	// to the fingerprint rule.
	minSimSet bool
	limit     int
	verify    bool               // QueryOptions.Verify
	progress  func(ScanProgress) // QueryOptions.Progress
}

func (x *Index) resolve(o *QueryOptions) (queryParams, error) {
	q := queryParams{maxDist: x.settings.MaxDistance, fp: !x.lay.sets}
	if x.settings.MinHash {
		q.minSim = DefaultMinSimilarity
	}
	if o == nil {
		return q, nil
	}
	q.progress = o.Progress
	if o.MaxDistance != 0 {
		q.fp = true
	}
	switch {
	case o.MaxDistance == ZeroDistance:
		q.maxDist = 0
	case o.MaxDistance < 0 || o.MaxDistance > x.settings.MaxDistance:
		return q, fmt.Errorf("%w: max distance %d not in 0..%d, the distance the index was built for", ErrSettings, o.MaxDistance, x.settings.MaxDistance)
	case o.MaxDistance > 0:
		q.maxDist = o.MaxDistance
	}
	switch ms := o.MinSimilarity; {
	case ms == NoMinSimilarity || (ms == 0 && o.MaxDistance != 0):
		q.minSim = 0
	case ms < 0 || ms > 1 || ms != ms:
		return q, fmt.Errorf("%w: min similarity %v not in 0..1", ErrSettings, ms)
	case ms > 0 && !x.settings.MinHash && !x.lay.sets && !(o.Verify && x.settings.StoreShingles):
		return q, fmt.Errorf("%w: min similarity needs an index with MinHash or a set method, or Verify on an index that stores shingle sets", ErrSettings)
	case ms > 0:
		q.minSim, q.minSimSet = ms, true
	}
	q.limit = max(o.Limit, 0)
	if o.Verify {
		switch {
		case x.lay.sets:
			return q, fmt.Errorf("%w: verify is not for the %s method, whose similarity is its own", ErrSettings, x.settings.Text.Method)
		case !x.settings.StoreShingles:
			return q, fmt.Errorf("%w: verify needs an index that stores shingle sets (StoreShingles)", ErrSettings)
		}
		q.verify = true
		if !x.settings.MinHash && q.minSim > 0 {
			q.fp = true // the candidates: the tables'
		}
	}
	return q, nil
}

// sortMatches sorts by similarity (highest first), then distance, then ID
// on an index with a similarity (MinHash, a set method); by distance, then
// ID on others.
func (x *Index) sortMatches(ms []Match) {
	bySim := x.lay.sets || x.settings.MinHash || x.settings.StoreShingles
	slices.SortFunc(ms, func(a, b Match) int {
		if bySim {
			if c := cmp.Compare(b.Similarity, a.Similarity); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Similarity, a.Similarity); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
