package index

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Document is what the index stores about a document.
type Document struct {
	// ID is the external ID.
	ID string `json:"id"`

	// Fingerprint is the 64-bit simhash fingerprint.
	Fingerprint uint64 `json:"fingerprint"`

	// Precomputed says the document was added with a precomputed
	// fingerprint, without text.
	Precomputed bool `json:"precomputed,omitempty"`
}

// Get returns what the index stores about the document id, or an error
// wrapping ErrNotFound, a document logged and not yet in the file
// included. It costs two bbolt lookups (and a binary search of an ID
// group, see idgroups.go), or a lookup among the pending
// operations.
func (x *Index) Get(id string) (Document, error) {
	if x.pend != nil {
		if op := x.pend.snapshot().latest(id); op != nil {
			if err := x.checkOpen(); err != nil {
				return Document{}, err
			}
			if op.del {
				return Document{}, fmt.Errorf("%w: %q", ErrNotFound, id)
			}
			return Document{ID: id, Fingerprint: op.probe.Fingerprint(), Precomputed: !op.probe.HasText()}, nil
		}
	}
	return x.getStored(id)
}

// getStored is Get of the file alone, without the pending operations.
func (x *Index) getStored(id string) (Document, error) {
	if err := x.checkOpen(); err != nil {
		return Document{}, err
	}
	var d Document
	err := x.view(func(tx *bolt.Tx) error {
		_, r, err := x.lookup(tx, id, false)
		if err != nil {
			return err
		}
		d = Document{ID: r.id, Fingerprint: r.fp, Precomputed: !r.text}
		return nil
	})
	return d, boltErr(err)
}

// Fingerprint returns the fingerprint of the document id, or an error
// wrapping ErrNotFound.
func (x *Index) Fingerprint(id string) (uint64, error) {
	d, err := x.Get(id)
	return d.Fingerprint, err
}

// lookup returns the number and record of the committed document id.
func (x *Index) lookup(tx *bolt.Tx, id string, full bool) (uint32, record, error) {
	return x.lookupBands(tx, id, full, full)
}

// lookupBands is lookup that, with bands false, leaves the bands of a
// compact record out (see decodeFields).
func (x *Index) lookupBands(tx *bolt.Tx, id string, full, bands bool) (uint32, record, error) {
	if loading(tx) {
		return 0, record{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	docs := tx.Bucket(bucketDocs)
	n, v, ok, err := x.docRecord(tx.Bucket(bucketIDs), docs, id)
	if err != nil {
		return 0, record{}, err
	}
	if !ok {
		return 0, record{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if v == nil {
		v = getRecord(docs, n)
	}
	r, err := decodeRecordBands(v, x.lay, full, bands)
	return n, r, err
}
