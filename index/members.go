package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"

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
		c := tx.Bucket(bucketDocs).Cursor()
		done := 0
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if done++; done%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if len(k) != 4 || len(v) < 9 {
				return fmt.Errorf("%w: bad document record", ErrCorrupt)
			}
			if err := callUser(fn, x.member(binary.BigEndian.Uint32(k), v)); err != nil {
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
	if err := x.checkOpen(); err != nil {
		return Pair{}, err
	}
	if err := x.settle(); err != nil {
		return Pair{}, err
	}
	q, err := x.resolve(opts)
	if err != nil {
		return Pair{}, err
	}
	p := Pair{A: a, B: b}
	err = x.view(func(tx *bolt.Tx) error {
		na, ra, err := x.lookup(tx, a, true)
		if err != nil {
			return err
		}
		nb, rb, err := x.lookup(tx, b, true)
		if err != nil {
			return err
		}
		p.Distance = bits.OnesCount64(ra.fp ^ rb.fp)
		if !ra.text || !rb.text || x.emptyProbe(true, ra.exact) || x.emptyProbe(true, rb.exact) {
			return nil
		}
		p.Exact = ra.exact == rb.exact
		switch {
		case len(ra.short) > 0 && len(rb.short) > 0:
			p.Similarity, _ = textSimilarity(ra.sig, ra.short, rb.sig, rb.short)
		case q.verify:
			var err error
			p.Similarity, _, err = x.verifier(tx)(na, nb)
			return err
		case x.lay.sets:
			p.Similarity, _ = x.setMatch(ra.set, rb.set)
			if p.Exact {
				p.Similarity = 1
			}
		case x.settings.MinHash:
			p.Similarity, _ = textSimilarity(ra.sig, nil, rb.sig, nil)
		}
		return nil
	})
	if err != nil {
		return Pair{}, boltErr(err)
	}
	return p, nil
}
