package simhash

// Feature is a weighted feature: the 64-bit hash of a token, shingle, tag or
// anything else, and its weight.
type Feature struct {
	Hash   uint64
	Weight int64
}

// Fingerprint returns the simhash of features. Cost: O(len(features)).
func Fingerprint(features []Feature) uint64 {
	var a Accumulator
	for _, f := range features {
		if f.Weight == 1 {
			a.Add(f.Hash)
		} else {
			a.AddWeighted(f.Hash, f.Weight)
		}
	}
	return a.Sum64()
}
