package index

import (
	"sync"

	"github.com/simidx/simidx/shingle"
)

// The values of the MinHash layer as an index created by schema 13 or
// later computes and stores them (its settings' signature_bits is 8):
//
//   - each signature value is 8 bits of a hash of the MinHash value and
//     its position (keepSig; b-bit minwise hashing, as Li and König
//     describe it, with b = 8): two different values agree in them with
//     probability 2^-8, in each position independently, which raises a
//     similarity estimate by (1-J)*2^-8 on average (0.0016 at J = 0.6,
//     against a step of 1/84 = 0.012 for one value) and its variance by
//     less than 1% at J >= 0.5. An index created by schema 10 to 12 keeps
//     16 bits (signature_bits 16, Settings.sig16), which is the same but
//     for the width;
//   - each value of a short set is the low 16 bits of its hash in an
//     index created by schema 14 or later (the low 32 in one created by
//     schema 10 to 13, Settings.shortV1), and the set is sorted and
//     without repeats after that. A value that only one of two sets holds
//     agrees with one only the other holds by chance with probability
//     2^-16 a pair of them: two near duplicates of 20 words that differ
//     in 5 pairs each agree so with probability 25*2^-16 = 0.0004, and
//     two of 60 words that differ in 15 with 0.0034, which then adds
//     1/|union| to their similarity; two values of one set agree with
//     probability about 61*60/2*2^-16 = 0.028 for the default ShortUnits,
//     which takes one value from the set;
//   - a text whose short set has at most sigFloor = (ShortUnits+1)/2
//     values (30 by default) has no signature bands in an index created
//     by schema 14 or later, only the bands of its short set. A text
//     without a short set has more than ShortUnits+1 distinct pairs of
//     units, so, as texts go, more than ShortUnits+1-k distinct
//     k-shingles, and the text with the short set at most sigFloor-k:
//     their shingles' Jaccard similarity is below 1/2, where 14 bands of
//     6 rows find a pair with probability 0.2 and less (the pairs of two
//     texts that both have a short set are judged by their short sets,
//     which have their own bands). That holds unless the longer text
//     repeats its phrases in new orders; a text that repeats a few words
//     over and over has a short set itself. It needs overlapping shingles
//     of 2 units or more, all of them kept: with shingles of one unit a
//     long text of a few words repeated in any order has more than
//     ShortUnits+1 pairs and may hold every word of a short one, and
//     disjoint or sampled shingles do not count as the argument counts.
//     With those settings every text keeps its signature bands;
//   - the band hashes are computed from these values (bandHasher), and
//     keep their leading b = g+24 bits (bandHashBits: at least 38, at
//     most 48), g the width of the band groups at the expected size
//     (bandGroupBits: 14, so 38 bits, at the default ExpectedDocs; an
//     index created by schema 13 or 14 has groups of 16 and at least 40
//     bits), of which an entry of a band group holds those after the
//     group's (ceil((b-g)/8) bytes: 3 at the default). Two unrelated
//     documents share a band by chance with probability 2^-b a band, a
//     false candidate that the similarity rejects: about 64/(N*2^24) a
//     band at an expected size N of 2^20 or more, so that Pairs over N
//     documents meets about 32*bands*2^-24*N of them (68 at a million
//     documents with the default 34 bands; a quarter of that with the
//     groups of schema 13 and 14), and a query bands*M*2^-b in an index
//     of M documents. A band of r rows of 8-bit values has 8r bits: with fewer
//     than 4 rows (MinHashK/Bands; 6 by default) unrelated documents
//     share a band with probability about 2^-8r, many more false
//     candidates. An index created by schema 10 to 12 (Settings.sig16)
//     keeps 48 bits (bandMask). So the records need not store the band
//     hashes (flagCompact): they are computed from the signature and the
//     short set when they are read.
//
// An index created before keeps 64-bit values in its analysis (32 bits of
// each signature value in its records, flagSig32), and 64-bit band hashes
// of the 64-bit values, stored in its records: Settings.wide.
const (
	shortMask = 1<<32 - 1
	bandMask  = 0xffff_ffff_ffff_0000
)

// keepSig replaces each value of sig by bits (8 or 16) bits of a hash of
// the value and its position, in place. The hash makes the positions
// independent: a one-permutation signature of a text with few shingles
// repeats a few values in every position (a text of at most 5 words has
// one shingle, and its signature one value 84 times), so b bits of the
// value itself would make two such texts agree everywhere with
// probability 2^-b, a similarity of 1 between unrelated short texts of a
// large corpus. With the hash, two different values agree in a position
// with probability 2^-b, independently of the other positions. The 8 bits
// are the low 8 of the 16, so the hash is the same for both widths.
func keepSig(sig []uint64, bits int) {
	mask := uint64(1)<<bits - 1
	for i, v := range sig {
		sig[i] = shingle.Mix64(v+uint64(i)*sigPositionSeed) & mask
	}
}

// sigPositionSeed spreads the positions of a signature in keepSig. It is
// part of the persisted format.
const sigPositionSeed = 0x9e3779b97f4a7c15

// bandHasher computes the band hashes of a document from its signature
// and its short set, as an index of given settings does: the Bands bands
// of the signature, then, with the short-text layer, the ShortBands bands
// of the MinHash signature of the short set (zero for a document without
// one). It is safe for concurrent use.
type bandHasher struct {
	keep                  uint64 // the bits of a band hash kept (see bandHashKeep)
	bands, rows           int
	shortBands, shortRows int // 0 without the short-text layer
	sigFloor              int // a text whose short set has at most this many values has no signature bands (0: every text has them)
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
	h := &bandHasher{keep: bandHashKeep(s), bands: s.Bands, rows: s.MinHashK / s.Bands, scheme: scheme}
	if s.hasShort() {
		h.shortBands, h.shortRows = s.ShortBands, s.ShortRows
		if sh := s.Text.Shingle; !s.shortV1 && sh.Size >= 2 && !sh.Disjoint && sh.Sample <= 1 {
			h.sigFloor = (s.ShortUnits + 1) / 2
		}
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
	return h.appendShortBandsMasked(h.appendSigBands(dst, sig, len(short)), short)
}

// noSigBands reports whether a text whose short set has n values (0 for
// none) has no signature bands: zeros in their place.
func (h *bandHasher) noSigBands(n int) bool { return n > 0 && n <= h.sigFloor }

// appendSigBands appends to dst the Bands band hashes of signature sig of
// a text whose short set has nShort values, the first of appendBands's:
// zeros if it has none (noSigBands). Cost: O(len(sig)).
func (h *bandHasher) appendSigBands(dst, sig []uint64, nShort int) []uint64 {
	if h.noSigBands(nShort) {
		return append(dst, make([]uint64, h.bands)...)
	}
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
		// chance that one is is 2^-64 a band (2^-b kept to b bits, 40 or
		// more), and it would only lose that band.
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

// mask keeps the bits of each band hash of bands that the index keeps
// (h.keep: all of them in a wide index), in place.
func (h *bandHasher) mask(bands []uint64) {
	for i := range bands {
		bands[i] &= h.keep
	}
}

// bandHashMask returns the mask of the leading bits of a band hash that an
// index created by schema 13 or later keeps, for band groups of width g
// and the given form: bandHashBits(g, form) bits.
func bandHashMask(g int, form byte) uint64 { return ^uint64(0) << (64 - bandHashBits(g, form)) }

// bandHashBits returns the bits of a band hash that an index created by
// schema 13 or later keeps, for band groups of width g and the given form:
// g+24, at least 40 (38 in the groups of schema 15, groupsLarge, two bits
// narrower at the same size), so that an index grown far beyond a small
// ExpectedDocs does not meet many false candidates, and at most 48.
func bandHashBits(g int, form byte) int {
	lo := 40
	if form == groupsLarge {
		lo = 38
	}
	return min(max(g+24, lo), 48)
}

// bandHashKeep returns the mask of the bits of a band hash that an index
// of normalized settings s with MinHash keeps: all of them in a wide
// index, 48 in one created by schema 10 to 12, from schema 13 on those of
// bandHashMask for the width and form of its band groups.
func bandHashKeep(s *Settings) uint64 {
	switch {
	case s.wide:
		return ^uint64(0)
	case s.sig16:
		return bandMask
	}
	return bandHashMask(s.bandGroups())
}

// band returns band b of the document of signature sig and short set
// short: appendBands's b-th hash (a band of the signature needs short for
// its length alone: see noSigBands). A band of the signature costs
// O(rows), one of the short set a MinHash signature of it.
func (h *bandHasher) band(sig, short []uint64, b int) uint64 {
	var v uint64
	switch {
	case b < h.bands && h.noSigBands(len(short)):
	case b < h.bands:
		v = shingle.Band(sig, b, h.rows)
	default:
		var buf [maxShortBandsStack]uint64
		v = h.appendShortBands(buf[:0], short)[b-h.bands]
	}
	return v & h.keep
}

// maxShortBandsStack is the capacity of the stack buffer of band's short
// bands (more spill to the heap).
const maxShortBandsStack = 32
