package index

import (
	"fmt"
	"math/bits"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// docProbe is what a query compares about a document: its fingerprint and,
// for a document with text, its canonical-text hash, MinHash signature and
// bands, and its set under a set method. Probes let a caller match
// documents that are not in the index (documents on their way to it) by the
// rule Query applies, with a matcher. A docProbe is immutable.
type docProbe struct {
	p     probe
	byFP  bool // from QueryFingerprint: the fingerprint rule always applies
	valid bool
	akey  uint64 // analysisKey of the settings it was made under; 0 for a fingerprint
}

// probeText returns the probe of text, what Query(text) looks for and what Add
// would store for a document with that text. Text over MaxDocSize gives
// ErrTooLarge. Cost: one analysis of text, O(len(text)).
func (x *Index) probeText(text []byte) (docProbe, error) {
	if len(text) > MaxDocSize {
		return docProbe{}, fmt.Errorf("%w: text has %d bytes, more than %d", ErrTooLarge, len(text), MaxDocSize)
	}
	a := x.getAnalyzer()
	defer x.pool.Put(a)
	an := a.analyze(text)
	// The signature as a record holds it (the low 32 bits of each value
	// in a wide index, flagSig32; the analysis keeps 8 or 16 bits in
	// others):
	// a probe of a text and the probe of its stored document are the
	// same.
	sig := slices.Clone(an.sig)
	for i, v := range sig {
		sig[i] = uint64(uint32(v))
	}
	return docProbe{p: probe{fp: an.fp, text: true, exact: an.exact, sig: sig,
		bands: slices.Clone(an.bands), set: slices.Clone(an.set), short: slices.Clone(an.short), shingles: slices.Clone(an.shingles), self: -1},
		valid: true, akey: x.akey}, nil
}

// probeFingerprint returns the probe of a query by fingerprint, as
// QueryFingerprint makes it. It costs nothing.
func (x *Index) probeFingerprint(fp uint64) docProbe {
	return docProbe{p: probe{fp: fp, self: -1}, byFP: true, valid: true}
}

// probeID returns the probe of the stored document id, what QueryID looks
// for, or an error wrapping ErrNotFound. It costs two bbolt lookups.
func (x *Index) probeID(id string) (docProbe, error) {
	if err := x.checkOpen(); err != nil {
		return docProbe{}, err
	}
	if x.pend != nil {
		if op := x.pend.snapshot().latest(id); op != nil {
			if op.del {
				return docProbe{}, fmt.Errorf("%w: %q", ErrNotFound, id)
			}
			return op.probe, nil
		}
	}
	var pr docProbe
	err := x.view(func(tx *bolt.Tx) error {
		n, r, err := x.lookup(tx, id, true)
		if err != nil {
			return err
		}
		sh, _, err := storedShingles(tx.Bucket(bucketShingles), nil, n)
		if err != nil {
			return err
		}
		pr = docProbe{p: probe{fp: r.fp, text: r.text, exact: r.exact, sig: slices.Clone(r.sig),
			bands: slices.Clone(r.bands), set: slices.Clone(r.set), short: slices.Clone(r.short), shingles: sh, self: -1}, valid: true, akey: x.akey}
		return nil
	})
	return pr, boltErr(err)
}

// Fingerprint returns the probe's 64-bit fingerprint.
func (p *docProbe) Fingerprint() uint64 { return p.p.fp }

// HasText reports whether the probe comes from text (not from a
// fingerprint alone).
func (p *docProbe) HasText() bool { return p.p.text }

// Exact returns the hash of the probe's canonical text, and false for a
// probe without text. Documents with the same canonical text always match.
func (p *docProbe) Exact() (uint64, bool) { return p.p.exact, p.p.text }

// HasSet reports whether the probe has a set of hashes (a document with
// text under a set method, MethodNshash or MethodShort).
func (p *docProbe) HasSet() bool { return len(p.p.set) > 0 }

// Bands returns the probe's MinHash band hashes, one per band (nil without
// the MinHash layer or text). A document shares a band with a query when
// their hashes of that band are equal. The slice must not be changed.
func (p *docProbe) Bands() []uint64 { return p.p.bands }

// matcher applies the match rule of Query, QueryFingerprint and QueryID
// for one QueryOptions to probes. It is safe for concurrent use.
type matcher struct {
	x *Index
	q queryParams
}

// newMatcher returns the matcher of opts, or an error wrapping ErrSettings
// for options Query would refuse. It costs nothing.
func (x *Index) newMatcher(opts *QueryOptions) (*matcher, error) {
	q, err := x.resolve(opts)
	if err != nil {
		return nil, err
	}
	return &matcher{x: x, q: q}, nil
}

// Match reports whether a query for q finds the document d (stored with
// probe d) and the Match it reports, without the ID: exactly as Query (or
// QueryFingerprint or QueryID, by how q was made) would if d were stored.
// It costs a popcount, and with MinHash a band and a signature comparison,
// with a set method a set intersection.
func (m *matcher) Match(q, d *docProbe) (Match, bool) {
	x := m.x
	if x.emptyProbe(q.p.text, q.p.exact) || x.emptyProbe(d.p.text, d.p.exact) {
		return Match{}, false // an empty text matches nothing
	}
	fpRule := m.q.fp || q.byFP
	dist := bits.OnesCount64(q.p.fp ^ d.p.fp)
	// A document is a candidate by the rule of find (candidacy).
	if !x.candidacy(m.q, fpRule, &q.p).admits(&q.p, &d.p, dist) {
		return Match{}, false
	}
	exact := q.p.text && d.p.text && q.p.exact == d.p.exact
	return x.judge(m.q, fpRule, &q.p, dist, d.p.sig, d.p.set, d.p.short, d.p.shingles, d.p.text && m.q.verify, exact)
}

// Sort sorts matches in the order Query reports them. Cost: O(n log n).
func (m *matcher) Sort(ms []Match) { m.x.sortMatches(ms) }

// Limit returns the most matches a query reports, 0 for no limit.
func (m *matcher) Limit() int { return m.q.limit }

// queryProbe returns the documents of the file matching the probe p, as
// Query, QueryFingerprint or QueryID (without leaving out the document
// itself) would for what p was made from, without the pending
// operations; it spares a second analysis of a text already probed. A
// probe of a text made by an index of other text settings gives an error
// wrapping ErrSettings. It costs what Query costs, less the analysis.
func (x *Index) queryProbe(p *docProbe, opts *QueryOptions) ([]Match, error) {
	if err := x.checkOpen(); err != nil {
		return nil, err
	}
	q, err := x.resolve(opts)
	if err != nil {
		return nil, err
	}
	if !p.valid {
		return nil, fmt.Errorf("%w: the zero probe", ErrSettings)
	}
	if p.p.text && p.akey != x.akey {
		return nil, fmt.Errorf("%w: a probe made under other text settings than the index's", ErrSettings)
	}
	if !p.p.text {
		if q.minSimSet {
			return nil, fmt.Errorf("%w: a probe without text has no MinHash signature for MinSimilarity", ErrSettings)
		}
		q.minSim = 0 // no signature: the fingerprint rule alone
	}
	q.fp = q.fp || p.byFP
	var ms []Match
	err = x.viewFiltered(func(tx *bolt.Tx, bf *bandFilter) error {
		var err error
		ms, err = x.search(tx, bf, p.p, q)
		return err
	})
	return ms, boltErr(err)
}
