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
