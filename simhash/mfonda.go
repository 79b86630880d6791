package simhash

import "bytes"

// Mfonda returns the fingerprint that github.com/mfonda/simhash computes
// for text with Simhash(NewWordFeatureSet(text)), bit for bit, so that
// fingerprints stored by that library can be loaded into an index and
// compared with new ones. Its features are the words of the lower-cased text
// that match [\w']+ (ASCII letters, digits, underscores and apostrophes), each followed by
// "://" and a path when it is a URL, hashed with FNV-1 64 at weight 1; a bit
// is set when its sum is zero or more, so an empty text gives all ones.
// Cost: O(len(text)); no allocation for ASCII text.
func Mfonda(text []byte) uint64 {
	b := text
	for _, c := range text {
		if c >= 0x80 {
			// Unicode lower-casing can turn non-ASCII into ASCII (K, İ).
			b = bytes.ToLower(text)
			break
		}
	}
	var acc Accumulator
	for i := 0; i < len(b); {
		if !mfondaWord(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && mfondaWord(b[j]) {
			j++
		}
		if j+3 < len(b) && b[j] == ':' && b[j+1] == '/' && b[j+2] == '/' && mfondaURL(b[j+3]) {
			j += 3
			for j < len(b) && mfondaURL(b[j]) {
				j++
			}
		}
		acc.Add(fnv1(b[i:j]))
		i = j
	}
	return acc.sum64(true)
}

// fnv1 is FNV-1 64 (multiply, then xor), as hash/fnv.New64, of b with
// ASCII letters lower-cased.
func fnv1(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		h *= 1099511628211
		h ^= uint64(c)
	}
	return h
}

func mfondaWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '\''
}

func mfondaURL(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/'
}
