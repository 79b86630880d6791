package index

import (
	"sync"

	"github.com/simidx/simidx/shingle"
)

// The values of the MinHash layer as an index created by schema 10 or
// later computes and stores them (its settings' signature_bits is 16):
//
//   - each signature value is 16 bits of a hash of the MinHash value and
//     its position (keepSig16; b-bit minwise hashing, as Li and König
//     describe it, with b = 16): two different values agree in them with
//     probability 2^-16, in each position independently, which
//     raises a similarity estimate by (1-J)*2^-16 on average, a
//     thousandth of the step of one value of 84;
//   - each value of a short set is the low 32 bits of its hash, and the
//     set is sorted and without repeats after that: a value of one set
//     agrees with one of another by chance with probability about 2^-20
//     a pair of texts at the default ShortUnits (61 values a set);
//   - the band hashes are computed from these values (bandHasher), and
//     keep their leading 48 bits (bandMask): two unrelated documents share
//     a band by chance with probability 2^-48 a band, a false candidate
//     that the similarity rejects. So the records need not store the band
//     hashes (flagCompact): they are computed from the signature and the
//     short set when they are read.
//
// An index created before keeps 64-bit values in its analysis (32 bits of
// each signature value in its records, flagSig32), and 64-bit band hashes
// of the 64-bit values, stored in its records: Settings.wide.
const (
	sigMask   = 1<<16 - 1
	shortMask = 1<<32 - 1
	bandMask  = 0xffff_ffff_ffff_0000
)

// keepSig16 replaces each value of sig by 16 bits of a hash of the value
// and its position, in place. The hash makes the positions independent:
// a one-permutation signature of a text with few shingles repeats a few
// values in every position (a text of at most 5 words has one shingle,
// and its signature one value 84 times), so 16 bits of the value itself
// would make two such texts agree everywhere with probability 2^-16, a
// similarity of 1 between unrelated short texts of a large corpus. With
// the hash, two different values agree in a position with probability
// 2^-16, independently of the other positions.
func keepSig16(sig []uint64) {
	for i, v := range sig {
		sig[i] = shingle.Mix64(v+uint64(i)*sigPositionSeed) & sigMask
	}
}

// sigPositionSeed spreads the positions of a signature in keepSig16. It
// is part of the persisted format.
const sigPositionSeed = 0x9e3779b97f4a7c15

// bandHasher computes the band hashes of a document from its signature
// and its short set, as an index of given settings does: the Bands bands
// of the signature, then, with the short-text layer, the ShortBands bands
// of the MinHash signature of the short set (zero for a document without
// one). It is safe for concurrent use.
type bandHasher struct {
	wide                  bool
	bands, rows           int
	shortBands, shortRows int // 0 without the short-text layer
	scheme                shingle.Scheme
	pool                  sync.Pool // *shortScratch
}

// shortScratch is a MinHasher of the short sets and its signature, used by
// one goroutine at a time.
type shortScratch struct {
	mh  *shingle.MinHasher
	sig []uint64
}

// newBandHasher returns the bandHasher of normalized settings s with the
// MinHash layer, or an error wrapping ErrSettings.
func newBandHasher(s *Settings, scheme shingle.Scheme) (*bandHasher, error) {
	h := &bandHasher{wide: s.wide, bands: s.Bands, rows: s.MinHashK / s.Bands, scheme: scheme}
	if s.hasShort() {
		h.shortBands, h.shortRows = s.ShortBands, s.ShortRows
		// Made once here, so that an invalid size fails now, not in a
		// pool's New.
		mh, err := shingle.NewMinHasher(h.shortBands*h.shortRows, scheme)
		if err != nil {
			return nil, err
		}
		h.pool.Put(&shortScratch{mh: mh})
	}
	return h, nil
}

// appendBands appends to dst the band hashes of the document of signature
// sig and short set short (empty for a document without one), computed as
// the analysis computes them. A zero hash is a band the document does not
// have. Cost: O(len(sig)), and with a short set a MinHash signature of it,
// O(len(short) + ShortBands*ShortRows).
func (h *bandHasher) appendBands(dst, sig, short []uint64) []uint64 {
	return h.appendShortBandsMasked(h.appendSigBands(dst, sig), short)
}

// appendSigBands appends to dst the Bands band hashes of signature sig, the
// first of appendBands's. Cost: O(len(sig)).
func (h *bandHasher) appendSigBands(dst, sig []uint64) []uint64 {
	n := len(dst)
	dst = shingle.AppendBands(dst, sig, h.bands, h.rows)
	h.mask(dst[n:])
	return dst
}

// appendShortBandsMasked appends to dst the ShortBands band hashes of short
// set short, the last of appendBands's. Cost: a MinHash signature of short.
func (h *bandHasher) appendShortBandsMasked(dst, short []uint64) []uint64 {
	n := len(dst)
	dst = h.appendShortBands(dst, short)
	h.mask(dst[n:])
	return dst
}

// appendShortBands appends to dst the ShortBands band hashes of short set
// short, unmasked: zeros for an empty one or without the layer.
func (h *bandHasher) appendShortBands(dst, short []uint64) []uint64 {
	if h.shortBands == 0 {
		return dst
	}
	if len(short) == 0 {
		// A real band hash is never 0, which marks an absent band: the
		// chance that one is is 2^-64 a band (2^-48 kept to 48 bits),
		// and it would only lose that band.
		return append(dst, make([]uint64, h.shortBands)...)
	}
	s, _ := h.pool.Get().(*shortScratch)
	if s == nil {
		mh, err := shingle.NewMinHasher(h.shortBands*h.shortRows, h.scheme)
		if err != nil {
			panic(err) // ruled out by newBandHasher
		}
		s = &shortScratch{mh: mh}
	}
	s.sig = s.mh.Append(s.sig[:0], short)
	dst = shingle.AppendBands(dst, s.sig, h.shortBands, h.shortRows)
	h.pool.Put(s)
	return dst
}

// mask keeps the leading 48 bits of each band hash of bands, in place, in
// an index that is not wide.
func (h *bandHasher) mask(bands []uint64) {
	if !h.wide {
		for i := range bands {
			bands[i] &= bandMask
		}
	}
}

// band returns band b of the document of signature sig and short set
// short: appendBands's b-th hash. A band of the signature costs O(rows),
// one of the short set a MinHash signature of it.
func (h *bandHasher) band(sig, short []uint64, b int) uint64 {
	var v uint64
	if b < h.bands {
		v = shingle.Band(sig, b, h.rows)
	} else {
		var buf [maxShortBandsStack]uint64
		v = h.appendShortBands(buf[:0], short)[b-h.bands]
	}
	if !h.wide {
		v &= bandMask
	}
	return v
}

// maxShortBandsStack is the capacity of the stack buffer of band's short
// bands (more spill to the heap).
const maxShortBandsStack = 32
