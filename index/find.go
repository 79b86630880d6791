package index

import (
	"cmp"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/simidx/simidx/shingle"
	bolt "go.etcd.io/bbolt"
)

// probe is what a query looks for.
type probe struct {
	fp    uint64
	text  bool // exact is valid
	exact uint64
	sig   []uint64 // nil without MinHash or text
	bands []uint64
	set   []uint64 // the set of a set method, with text
	short []uint64 // the short set of a short text (see shortSet)
	// shingles is the shingle set of the text, sorted, when the index
	// stores shingle sets (Settings.StoreShingles).
	shingles []uint64
	self     int64 // document number to leave out, or -1
}

// search runs a query in tx, with tx's band filter bf (see viewFiltered).
func (x *Index) search(tx *bolt.Tx, bf *bandFilter, pr probe, q queryParams) ([]Match, error) {
	found, err := x.find(tx, bf, pr, q)
	if err != nil {
		return nil, err
	}
	out := make([]Match, len(found))
	for i, f := range found {
		out[i] = f.m
		out[i].ID = idOf(f.rec, x.lay)
	}
	x.sortMatches(out)
	if q.limit > 0 && len(out) > q.limit {
		out = out[:q.limit]
	}
	return out, nil
}

// found is a match by document number, without its ID.
type found struct {
	n   uint32
	m   Match
	rec []byte // the document's record, valid in the transaction
}

// find returns the documents matching pr in tx, in document-number order:
// it gathers the candidates of pr under q from the sources the rule of
// candidacy names (the permuted tables, the exact-copy keys, the MinHash
// band postings, the set postings), each source with the in-memory
// levels that hold what its bucket does not yet, and judges each
// candidate once (judgeHits).
func (x *Index) find(tx *bolt.Tx, bf *bandFilter, pr probe, q queryParams) ([]found, error) {
	if loading(tx) || x.emptyProbe(pr.text, pr.exact) {
		return nil, nil // an empty text matches nothing
	}
	c := x.candidacy(q, q.fp, &pr)
	hits := make([]hit, 0, 16)
	docs := tx.Bucket(bucketDocs) // opened once: each tx.Bucket is a seek
	if c.tables {
		hits = x.tableHits(hits, tx, docs, &pr, c.maxDist)
	}
	var exactSet map[uint32]bool
	if c.exact {
		hits, exactSet = x.exactHits(hits, tx, bf, docs, pr.exact)
	}
	var err error
	if c.minBands > 0 {
		if hits, err = x.bandHits(hits, tx, bf, docs, pr.bands, c.minBands); err != nil {
			return nil, err
		}
	}
	if c.minShared > 0 {
		if hits, err = x.setHits(hits, tx, pr.set, c.minShared); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Compare(a.n, b.n) })
	hits = slices.CompactFunc(hits, func(a, b hit) bool { return a.n == b.n })
	return x.judgeHits(tx, docs, hits, &pr, q, exactSet)
}

// candidacy is the candidate rule of a query: which documents are
// candidates for a probe, each then judged by the match rule (judge). A
// document is a candidate if it is
//
//   - within maxDist of the probe's fingerprint, with the fingerprint rule
//     (tables): found in the permuted tables;
//   - an exact copy, the probe having text (exact): a document with text
//     and the probe's canonical-text hash, found under the exact keys;
//   - sharing at least minBands of the probe's MinHash bands (minBands
//     above 0: with a similarity threshold and bands), found in the band
//     postings;
//   - sharing at least minShared hashes of the probe's set (minShared
//     above 0: a set method and a probe with a set), found in the set
//     postings.
//
// find reads the sources the rule names; admits applies the same rule to
// one document known by its probe (matcher.Match). The one place that
// says which documents are candidates.
type candidacy struct {
	tables    bool
	maxDist   int
	exact     bool
	minBands  int // 0: no band candidates
	minShared int // 0: no set candidates
}

// candidacy returns the candidate rule of a query for pr under q, where
// fpRule says the fingerprint rule applies. It costs nothing.
func (x *Index) candidacy(q queryParams, fpRule bool, pr *probe) candidacy {
	c := candidacy{tables: fpRule, maxDist: q.maxDist, exact: pr.text}
	if q.minSim > 0 && len(pr.bands) > 0 {
		c.minBands = max(x.settings.MinBands, 1)
	}
	if x.lay.sets && pr.text && len(pr.set) > 0 {
		c.minShared = x.minShared()
	}
	return c
}

// admits reports whether the document with probe d, at distance dist from
// the probe pr of c, is a candidate by c: what find's sources yield, for
// one document. (A band posting holds a document under band i if its
// band i has that hash, so the postings of pr's bands hold d as many times
// as the two share bands; a set posting holds it under each hash of its
// set, so those of pr's set hold it as many times as the two sets share
// hashes.) It costs a comparison, and with bands or a set a comparison of
// those.
func (c candidacy) admits(pr, d *probe, dist int) bool {
	switch {
	case c.tables && dist <= c.maxDist:
		return true
	case c.exact && d.text && d.exact == pr.exact:
		return true
	case c.minBands > 0 && len(d.bands) == len(pr.bands) && shingle.SharedBands(pr.bands, d.bands) >= c.minBands:
		return true
	case c.minShared > 0 && shingle.Intersection(pr.set, d.set) >= c.minShared:
		return true
	}
	return false
}

// distUnknown is the distance of a hit found without it (exact keys, band
// or set postings): judgeHits computes it from the record.
const distUnknown = -1

// atLeast appends to hits the documents in at least min of the postings
// bms.
func atLeast(hits []hit, bms []*roaring.Bitmap, min int) ([]hit, error) {
	if len(bms) < min {
		return hits, nil
	}
	if min <= 1 {
		for n := range roaring.Values(roaring.FastOr(bms...)) {
			hits = append(hits, hit{n: n, d: distUnknown})
		}
		return hits, nil
	}
	count := make(map[uint32]int)
	for _, b := range bms {
		for n := range roaring.Values(b) {
			count[n]++
		}
	}
	for n, c := range count {
		if c >= min {
			hits = append(hits, hit{n: n, d: distUnknown})
		}
	}
	return hits, nil
}
