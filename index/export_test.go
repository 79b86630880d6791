package index

import bolt "go.etcd.io/bbolt"

// MergeState reports whether a merge of the levels of x is under way, for
// tests.
func MergeState(x *Index) (merging bool) {
	x.view(func(tx *bolt.Tx) error {
		merging = x.readMeta(tx).merging
		return nil
	})
	return merging
}

// The write and query paths under Add and Query, for the tests that check
// them against the public ones.

type ProbedDoc = probedDoc

// QueryProbe answers from the file, after every pending operation is
// committed to it.
func (x *Index) QueryProbe(p *Probe, opts *QueryOptions) ([]Match, error) {
	if err := x.flush(); err != nil {
		return nil, err
	}
	return x.queryProbe(p, opts)
}

// AddProbed commits docs to the file at once, after every pending
// operation.
func (x *Index) AddProbed(docs ...ProbedDoc) error {
	if err := x.flush(); err != nil {
		return err
	}
	err := x.addProbed(docs...)
	if x.pend != nil {
		x.pend.rebase(int(x.count.Load()))
	}
	return err
}

// directLogInternal makes Add and Delete commit to the file at once, for
// the tests of the file's levels, merges and copies.
var directLogInternal = &LogOptions{Direct: true}
