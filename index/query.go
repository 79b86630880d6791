package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/simidx/simidx/shingle"
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
		ms, err = x.search(tx, bf, probe{fp: an.fp, text: true, exact: an.exact, sig: an.sig, bands: an.bands, set: an.set, shingles: an.shingles, self: -1}, q)
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
		ms, err = x.search(tx, bf, probe{fp: r.fp, text: r.text, exact: r.exact, sig: r.sig, bands: r.bands, set: r.set, shingles: sh, self: int64(n)}, q)
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
	verify    bool // QueryOptions.Verify
}

func (x *Index) resolve(o *QueryOptions) (queryParams, error) {
	q := queryParams{maxDist: x.settings.MaxDistance, fp: !x.lay.sets}
	if x.settings.MinHash {
		q.minSim = DefaultMinSimilarity
	}
	if o == nil {
		return q, nil
	}
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

// probe is what a query looks for.
type probe struct {
	fp    uint64
	text  bool // exact is valid
	exact uint64
	sig   []uint64 // nil without MinHash or text
	bands []uint64
	set   []uint64 // the set of a set method, with text
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

// find returns the documents matching pr in tx, in document-number order.
func (x *Index) find(tx *bolt.Tx, bf *bandFilter, pr probe, q queryParams) ([]found, error) {
	if loading(tx) || x.emptyProbe(pr.text, pr.exact) {
		return nil, nil // an empty text matches nothing
	}
	hits := make([]hit, 0, 16)
	docs := tx.Bucket(bucketDocs) // opened once: each tx.Bucket is a seek
	if q.fp {
		var kbuf [8]byte
		mr := x.mirrorFor(tx) // nil: read the tables bucket
		var c *bolt.Cursor
		if mr == nil {
			c = tx.Bucket(bucketTables).Cursor()
		}
		tl := x.levels()
		levels := !tl.tablesEmpty()
		kb := uint(64 - x.settings.Design.KeyBits)
		var ids []uint64 // each table's group of the query, for the levels
		if levels {
			ids = make([]uint64, len(x.tables))
		}
		for i := range x.tables {
			t := &x.tables[i]
			p := t.permute(pr.fp)
			if mr != nil {
				if v := mr.group(i, uint32(p>>kb)); v != nil {
					hits = x.scanGroup(hits, p>>kb<<kb, p, q.maxDist, v)
				}
			} else {
				key := x.tableKey(kbuf[:0], i, p)
				if k, v := c.Seek(key); k != nil && bytes.Equal(k, key) {
					hits = x.scanGroup(hits, x.keyValue(key), p, q.maxDist, v)
				}
			}
			if levels {
				ids[i] = groupID(i, p>>kb)
			}
		}
		if levels {
			var tes []tableEnt
			for _, r := range tl {
				tes = r.appendNearGroups(tes, ids, pr.fp, q.maxDist)
			}
			if len(tes) > 0 {
				// Below its table's watermark the bucket has an entry. (The
				// watermarks are read only for a query that finds something
				// in the levels: most find nothing.)
				tw := x.tableWatermarks(tx)
				near := make([]levelEnt, 0, len(tes))
				for _, e := range tes {
					if e.n >= tw[e.t] {
						near = append(near, e.levelEnt)
					}
				}
				for _, e := range verifyRecent(near, docs.Cursor(), 0) {
					hits = append(hits, hit{n: e.n, d: bits.OnesCount64(e.fp ^ pr.fp)})
				}
			}
		}
	}
	const unknown = -1 // distance not yet computed
	var exactSet map[uint32]bool
	if pr.text && (bf == nil || bf.has(exactBand, pr.exact)) {
		for _, n := range x.appendExact(nil, tx, docs.Cursor(), pr.exact) {
			if exactSet == nil {
				exactSet = make(map[uint32]bool)
			}
			exactSet[n] = true
			hits = append(hits, hit{n: n, d: unknown})
		}
	}
	if q.minSim > 0 && len(pr.bands) > 0 {
		// The bands the filter may hold, asked in one pass so that its
		// cache misses (about one a band) overlap.
		ks := make([]recentKey, 0, len(pr.bands))
		for i, h := range pr.bands {
			if bf == nil || bf.has(i, h) {
				ks = append(ks, recentKey{h: h, b: uint8(i)})
			} // else no stored document has this band
		}
		var recent []keyDoc
		if lv := x.levels(); lv[0] != nil && len(ks) > 0 {
			recent = x.recentKeyDocs(lv, docs.Cursor(), ks)
		}
		// One cursor for every band: a bbolt Get makes (and allocates) a
		// new one each time.
		bc := tx.Bucket(bucketBands).Cursor()
		var bms []*roaring.Bitmap
		var bk [9]byte
		var nums []uint32
		for ki, key := range ks {
			var b *roaring.Bitmap
			bk[0] = key.b
			binary.BigEndian.PutUint64(bk[1:], key.h)
			if k, v := bc.Seek(bk[:]); v != nil && bytes.Equal(k, bk[:]) {
				b = roaring.New()
				if _, err := b.FromBuffer(v); err != nil {
					return nil, fmt.Errorf("%w: band posting: %v", ErrCorrupt, err)
				}
			}
			nums = nums[:0]
			for ; len(recent) > 0 && recent[0].k == uint32(ki); recent = recent[1:] {
				nums = append(nums, recent[0].n)
			}
			if len(nums) > 0 {
				if b == nil {
					b = roaring.New()
				} else {
					b = b.Clone() // FromBuffer's bitmap reads the page
				}
				b.AddMany(nums)
			}
			if b != nil {
				bms = append(bms, b)
			}
		}
		var err error
		if hits, err = atLeast(hits, bms, max(x.settings.MinBands, 1)); err != nil {
			return nil, err
		}
	}
	if x.lay.sets && pr.text && len(pr.set) > 0 {
		sb := tx.Bucket(bucketSets)
		var bms []*roaring.Bitmap
		for _, h := range pr.set {
			if v := sb.Get(setKey(h)); v != nil {
				b := roaring.New()
				if _, err := b.FromBuffer(v); err != nil {
					return nil, fmt.Errorf("%w: set posting: %v", ErrCorrupt, err)
				}
				bms = append(bms, b)
			}
		}
		var err error
		if hits, err = atLeast(hits, bms, x.minShared()); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Compare(a.n, b.n) })
	hits = slices.CompactFunc(hits, func(a, b hit) bool { return a.n == b.n })
	// One cursor for every record: a bbolt Get makes a new cursor each time.
	dc := docs.Cursor()
	// The candidates' signatures are decoded into one buffer, on the
	// stack for the usual sizes.
	var sigBuf [128]uint64
	sig, set := sigBuf[:0], []uint64(nil)
	var cand []uint64 // a candidate's shingle set, with q.verify
	var shb *bolt.Bucket
	if q.verify && pr.text {
		shb = tx.Bucket(bucketShingles)
	}
	out := make([]found, 0, len(hits))
	for _, h := range hits {
		if int64(h.n) == pr.self {
			continue
		}
		v := seekRecord(dc, h.n)
		if len(v) < 9 {
			return nil, fmt.Errorf("%w: document %d in a table or posting has no record", ErrCorrupt, h.n)
		}
		if x.isEmpty(v) {
			continue
		}
		d := bits.OnesCount64(binary.BigEndian.Uint64(v) ^ pr.fp)
		// Decode only what the rule reads.
		sig, set = sig[:0], set[:0]
		switch {
		case x.lay.sets && pr.text:
			set = recordSet(set, v, x.lay)
		case !x.lay.sets && pr.sig != nil:
			sig = sigOf(sig, v, x.settings.MinHashK)
		}
		has := false
		if q.verify && pr.text {
			var err error
			if cand, has, err = storedShingles(shb, cand, h.n); err != nil {
				return nil, err
			}
		}
		m, ok := x.judge(q, q.fp, &pr, d, sig, set, cand, has, exactSet[h.n])
		if !ok {
			continue
		}
		out = append(out, found{n: h.n, m: m, rec: v})
	}
	return out, nil
}

// appendExact appends to dst the documents of tx whose text has the exact
// hash h, each once, in document order: those under h in the exact bucket
// and those under h in the band levels (which hold the documents from the
// exact watermark on, meta.exactFrom) whose record has that hash. docs is a
// cursor of the docs bucket. Cost: a seek of the bucket and, with the
// levels, a map lookup per level and a seek per document found there.
func (x *Index) appendExact(dst []uint32, tx *bolt.Tx, docs *bolt.Cursor, h uint64) []uint32 {
	start := len(dst)
	prefix := exactKey(h, 0)[:8]
	c := tx.Bucket(bucketExact).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) == 12 {
			dst = append(dst, binary.BigEndian.Uint32(k[8:]))
		}
	}
	if lv := x.levels(); lv[0] != nil {
		mid := len(dst)
		if dst = x.recentDocs(dst, lv, docs, exactBand, h); mid > start && len(dst) > mid {
			// A document may be in both while a merge moves it.
			slices.Sort(dst[start:])
			dst = dst[:start+len(slices.Compact(dst[start:]))]
		}
	}
	return dst
}

// judge applies the match rule of q to a candidate found for the probe pr
// (through the tables, the exact keys, the bands or the set postings) at
// distance d, whose signature and set are sig and set (empty when it has
// none, or the rule does not read them), whose shingle set is shingles if
// hasShingles (read with q.verify only) and which is an exact copy of the
// probe's text if exact. fpRule says the fingerprint rule applies. It is
// the one rule of Query and matcher.
func (x *Index) judge(q queryParams, fpRule bool, pr *probe, d int, sig, set, shingles []uint64, hasShingles, exact bool) (Match, bool) {
	m := Match{Distance: d}
	keep := fpRule && d <= q.maxDist
	switch {
	case q.verify && pr.text && hasShingles:
		m.Similarity = setJaccard(pr.shingles, shingles)
		if q.minSim > 0 {
			keep = m.Similarity >= q.minSim
		}
	case x.lay.sets:
		if pr.text {
			var ok bool
			m.Similarity, ok = x.setMatch(pr.set, set)
			keep = keep || ok
		}
		if exact {
			m.Similarity = 1
		}
		if q.minSim > 0 && m.Similarity < q.minSim {
			return m, false // the method's similarity is below the threshold
		}
	case pr.sig != nil:
		// A document added by fingerprint has no signature: it keeps the
		// fingerprint rule's answer.
		if len(sig) == len(pr.sig) {
			m.Similarity = estimateJaccard(pr.sig, sig)
			if q.minSim > 0 {
				keep = m.Similarity >= q.minSim
			}
		}
	}
	m.Exact = exact
	return m, keep || exact
}

// atLeast appends to hits the documents in at least min of the postings
// bms.
func atLeast(hits []hit, bms []*roaring.Bitmap, min int) ([]hit, error) {
	const unknown = -1
	if len(bms) < min {
		return hits, nil
	}
	if min <= 1 {
		for n := range roaring.Values(roaring.FastOr(bms...)) {
			hits = append(hits, hit{n: n, d: unknown})
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
			hits = append(hits, hit{n: n, d: unknown})
		}
	}
	return hits, nil
}

// minShared returns the fewest set hashes a candidate shares with a query
// under the index's set method.
func (x *Index) minShared() int {
	if x.settings.Text.Method == MethodShort {
		return x.settings.Text.MinShared
	}
	return 1
}

// setMatch returns the similarity of two sets under the index's set
// method, |a ∩ b| / min(|a|, |b|) (0 if either is empty), and whether they
// match by its rule.
func (x *Index) setMatch(a, b []uint64) (float64, bool) {
	if len(a) == 0 || len(b) == 0 {
		return 0, false
	}
	shared := shingle.Intersection(a, b)
	sim := float64(shared) / float64(min(len(a), len(b)))
	if x.settings.Text.Method == MethodShort {
		return sim, shared >= x.settings.Text.MinShared && sim >= x.settings.Text.Threshold
	}
	return sim, shared >= 1
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
