package index

import (
	"context"
	"fmt"
	"math/bits"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// Members calls fn for every stored document in the order of addition
// (Member.Seq), until fn returns an error, which Members then returns. It
// reads one snapshot, in one read transaction, and costs a scan of the
// document records. As with Pairs, fn runs inside the transaction: it must
// not call the index's other methods.
//
// Cancelling ctx stops the scan with ctx.Err().
func (x *Index) Members(ctx context.Context, fn func(Member) error) error {
	if err := x.checkOpen(); err != nil {
		return err
	}
	if err := x.settle(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	err := x.view(func(tx *bolt.Tx) error {
		if loading(tx) {
			return nil
		}
		done := 0
		for n, v := range eachRecord(tx.Bucket(bucketDocs).Cursor(), 0) {
			if done++; done%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if len(v) < 9 {
				return fmt.Errorf("%w: bad document record", ErrCorrupt)
			}
			if err := callUser(fn, x.member(n, v)); err != nil {
				return err
			}
		}
		return nil
	})
	return boltErr(err)
}

// member returns the Member of document n, whose record is v.
func (x *Index) member(n uint32, v []byte) Member {
	h, text := textHash(v)
	return Member{ID: idOf(v, x.lay), Seq: n, Fingerprint: fpOf(v), TextHash: h, Text: text}
}

// Compare returns what the index knows of the stored documents a and b as
// a Pair: the distance between their fingerprints, whether they are exact
// copies, and their similarity as the index measures it (see Pair), the
// exact Jaccard similarity with opts.Verify (which needs stored shingle
// sets, see QueryOptions). It does not say whether they match: Query and
// Pairs apply the rule. Empty texts have similarity 0 and are no one's
// exact copies. It fails with ErrNotFound if either is not stored. Cost:
// two lookups, and a comparison of signatures or sets.
func (x *Index) Compare(a, b string, opts *QueryOptions) (Pair, error) {
	ps, err := x.CompareAll(a, []string{b}, opts)
	if err != nil {
		return Pair{}, err
	}
	return ps[0], nil
}

// CompareAll returns Compare(a, b, opts) for each b of others, in their
// order, from one snapshot in one read transaction. It fails with
// ErrNotFound if a or any of others is not stored. Cost: Compare's for
// each of others, less a lookup of a (and with opts.Verify a decoding of
// its set) for all but the first: a cluster's members compared with the
// one kept cost one lookup each.
func (x *Index) CompareAll(a string, others []string, opts *QueryOptions) ([]Pair, error) {
	return x.compareMany(opts, a, others, func(tx *bolt.Tx) func(i int, r *record) (uint32, error) {
		return func(i int, r *record) (uint32, error) {
			id := a
			if i >= 0 {
				id = others[i]
			}
			return x.lookupCompared(tx, id, r)
		}
	})
}

// lookupCompared looks document id up for compareMany: its number, and
// its record, without the bands, which a comparison does not use, in r.
func (x *Index) lookupCompared(tx *bolt.Tx, id string, r *record) (uint32, error) {
	n, rec, err := x.lookupBands(tx, id, true, false)
	*r = rec
	return n, err
}

// CompareMembers returns Compare(k.ID, m.ID, opts) for each m of others,
// in their order, as CompareAll does, for Members that Clusters or Members
// gave: it reads each one's record by its Seq and looks the document up by
// ID only if that record is not of its ID (the index changed since), so
// that a comparison costs a record read instead of an ID lookup and a
// record read. It fails with ErrNotFound if k or any of others is not
// stored.
func (x *Index) CompareMembers(k Member, others []Member, opts *QueryOptions) ([]Pair, error) {
	ids := make([]string, len(others))
	for i, m := range others {
		ids[i] = m.ID
	}
	return x.compareMany(opts, k.ID, ids, func(tx *bolt.Tx) func(i int, r *record) (uint32, error) {
		if loading(tx) {
			return func(int, *record) (uint32, error) { return 0, fmt.Errorf("%w: %q", ErrNotFound, k.ID) }
		}
		c := tx.Bucket(bucketDocs).Cursor()
		return func(i int, r *record) (uint32, error) {
			m := k
			if i >= 0 {
				m = others[i]
			}
			v := seekRecord(c, m.Seq)
			if len(v) < 9 || string(idBytes(v, x.lay)) != m.ID {
				return x.lookupCompared(tx, m.ID, r)
			}
			// Into r's slices, without the ID, which is m.ID.
			return m.Seq, decodeRecordInto(r, v, x.lay, true, false, false)
		}
	})
}

// compareMany returns the Pairs of document a with each of others, for
// CompareAll and CompareMembers, from one snapshot in one read
// transaction: lookup(tx) returns the function that gives the number of
// others[i], or of a for i = -1, and decodes its record (without bands)
// into r, whose slices it may reuse.
func (x *Index) compareMany(opts *QueryOptions, a string, others []string, lookup func(tx *bolt.Tx) func(i int, r *record) (uint32, error)) ([]Pair, error) {
	if err := x.checkOpen(); err != nil {
		return nil, err
	}
	if err := x.settle(); err != nil {
		return nil, err
	}
	q, err := x.resolve(opts)
	if err != nil {
		return nil, err
	}
	ps := make([]Pair, len(others))
	err = x.view(func(tx *bolt.Tx) error {
		get := lookup(tx)
		rs := comparedRecords.Get().(*[2]record)
		defer comparedRecords.Put(rs)
		ra, rb := &rs[0], &rs[1]
		na, err := get(-1, ra)
		if err != nil {
			return err
		}
		// One verifier: it keeps a's set decoded from one pair to the next.
		verified := x.verifier(tx)
		for i, b := range others {
			nb, err := get(i, rb)
			if err != nil {
				return err
			}
			if ps[i], err = x.compareRecords(q, verified, a, b, na, nb, ra, rb); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, boltErr(err)
	}
	return ps, nil
}

// comparedRecords holds the records that compareMany decodes into, so
// that CompareMembers' comparisons, once the pool holds a pair of records
// grown to their size, allocate no record (those that look a document up
// by ID, as CompareAll's do, still make one).
var comparedRecords = sync.Pool{New: func() any { return new([2]record) }}

// compareRecords returns the Pair of the stored documents a and b, numbered
// na and nb, whose decoded records are ra and rb (see Compare); verified is
// the verifier of their transaction.
func (x *Index) compareRecords(q queryParams, verified func(a, b uint32) (float64, bool, error), a, b string, na, nb uint32, ra, rb *record) (Pair, error) {
	p := Pair{A: a, B: b, Distance: bits.OnesCount64(ra.fp ^ rb.fp)}
	if !ra.text || !rb.text || x.emptyProbe(true, ra.exact) || x.emptyProbe(true, rb.exact) {
		return p, nil
	}
	p.Exact = ra.exact == rb.exact
	switch {
	case len(ra.short) > 0 && len(rb.short) > 0:
		p.Similarity, _ = textSimilarity(ra.sig, ra.short, rb.sig, rb.short)
	case q.verify:
		var err error
		if p.Similarity, _, err = verified(na, nb); err != nil {
			return Pair{}, err
		}
	case x.lay.sets:
		p.Similarity, _ = x.setMatch(ra.set, rb.set)
		if p.Exact {
			p.Similarity = 1
		}
	case x.settings.MinHash:
		p.Similarity, _ = textSimilarity(ra.sig, nil, rb.sig, nil)
	}
	return p, nil
}
