package shingle

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
)

// Scheme selects how a [MinHasher] derives its K values.
type Scheme uint8

const (
	// OnePermutation is one-permutation hashing with optimal densification
	// (Li, Owen, Zhang 2012; Shrivastava 2017): each shingle hash is mixed
	// once and goes to one of K bins, which keeps its minimum; an empty bin
	// copies the value of a bin chosen by a fixed pseudo-random probe
	// sequence. The estimator has the same expectation as K independent
	// permutations and nearly the same variance, at the cost of one mix per
	// shingle instead of K. It is the default.
	OnePermutation Scheme = iota
	// Mixes takes, for each of the K values, the minimum over the shingles
	// of an independent mix of the shingle hash: the textbook MinHash, K
	// mixes per shingle.
	Mixes
)

// DefaultK is the default number of MinHash values: 84, as in Broder's
// shingling (14 supershingles of 6).
const DefaultK = 84

// MaxK is the largest signature accepted.
const MaxK = 1024

// Empty is the value of every entry of the signature of an empty set.
const Empty = math.MaxUint64

const (
	ophSeed   = 0x2545F4914F6CDD1D
	densSeed  = 0x6A09E667F3BCC909
	mixesSeed = 0xBB67AE8584CAA73B
	bandSeed  = 0x3C6EF372FE94F82B
)

// MinHasher computes MinHash signatures of shingle-hash sets. It reuses a
// few small buffers and is not safe for concurrent use.
type MinHasher struct {
	k      int
	scheme Scheme
	seeds  []uint64 // Mixes: one per value
	filled binSet   // OnePermutation: scratch
	probes []uint16 // OnePermutation: probeTable(k)
	from   []uint16 // OnePermutation: scratch, the bin an empty bin copies
	hits   []uint64 // OnePermutation with k <= maxHitK: hitTable(k)
	met    []uint64 // with hits: scratch, the depths at which a bin meets a filled bin
}

// binSet is a set of the bins of a signature, one bit a bin.
type binSet [MaxK / 64]uint64

// has reports whether bin j is in the set.
func (s *binSet) has(j int) bool { return s[uint(j)/64%(MaxK/64)]&(1<<(uint(j)%64)) != 0 }

// add puts bin j in the set.
func (s *binSet) add(j int) { s[uint(j)/64%(MaxK/64)] |= 1 << (uint(j) % 64) }

// probeDepth is the length of the start of each bin's probe sequence that
// probeTable holds.
const probeDepth = 64

// probeTables holds probeTable(k) by k.
var probeTables sync.Map

// probeTable returns the first probeDepth bins of the probe sequence of
// each bin i of a signature of k values (bin i's at [i*probeDepth:]): the
// bins probe tries in turn, computed once per k and shared.
func probeTable(k int) []uint16 {
	if t, ok := probeTables.Load(k); ok {
		return t.([]uint16)
	}
	t := make([]uint16, k*probeDepth)
	for i := range k {
		for a := range probeDepth {
			t[i*probeDepth+a] = uint16(probeAt(k, i, a))
		}
	}
	actual, _ := probeTables.LoadOrStore(k, t)
	return actual.([]uint16)
}

// probeAt returns the bin at depth a of the probe sequence of bin i of a
// signature of k values. Cost: a mix.
func probeAt(k, i, a int) int {
	j, _ := bits.Mul64(Mix64(uint64(i)<<32^uint64(a+1)^densSeed), uint64(k))
	return int(j)
}

// maxHitK is the largest signature that has a hitTable: 256 KiB.
const maxHitK = 128

// hitTables holds hitTable(k) by k.
var hitTables sync.Map

// hitTable returns the depths at which the probe sequences meet each bin
// of a signature of k values: bit a of t[j*k+i] is set if the bin at depth
// a of bin i's sequence (a < 64) is j, and bit a of t[k*k+j*k+i] if the
// bin at depth 64+a is. The depths at which bin i meets any of a set of
// bins are the OR of their words of i. It costs 16*k*k bytes (110 KiB for
// 84 values), computed once per k and shared.
func hitTable(k int) []uint64 {
	if t, ok := hitTables.Load(k); ok {
		return t.([]uint64)
	}
	t := make([]uint64, 2*k*k)
	for i := range k {
		for a := range 128 {
			t[a/64*k*k+probeAt(k, i, a)*k+i] |= 1 << (a % 64)
		}
	}
	actual, _ := hitTables.LoadOrStore(k, t)
	return actual.([]uint64)
}

// NewMinHasher returns a MinHasher of k values (0 means DefaultK) using
// scheme.
func NewMinHasher(k int, scheme Scheme) (*MinHasher, error) {
	if k == 0 {
		k = DefaultK
	}
	if k < 1 || k > MaxK {
		return nil, fmt.Errorf("shingle: MinHash size %d out of range 1..%d", k, MaxK)
	}
	m := &MinHasher{k: k, scheme: scheme}
	switch scheme {
	case OnePermutation:
		m.probes = probeTable(k)
		m.from = make([]uint16, k)
		if k <= maxHitK {
			m.hits = hitTable(k)
			m.met = make([]uint64, k)
		}
	case Mixes:
		m.seeds = make([]uint64, k)
		for i := range m.seeds {
			m.seeds[i] = Mix64(mixesSeed + uint64(i)*prime1)
		}
	default:
		return nil, fmt.Errorf("shingle: unknown MinHash scheme %d", scheme)
	}
	return m, nil
}

// K returns the number of values in a signature.
func (m *MinHasher) K() int { return m.k }

// Append appends the K-value signature of the set of shingles to dst.
// Repeated hashes count once. The signature of an empty set is K values of
// [Empty]. Cost: O(len(shingles) + K) for OnePermutation, O(len(shingles) * K)
// for Mixes; no allocation when dst has room.
func (m *MinHasher) Append(dst, shingles []uint64) []uint64 {
	n := len(dst)
	for range m.k {
		dst = append(dst, Empty)
	}
	sig := dst[n:]
	if len(shingles) == 0 {
		return dst
	}
	if m.scheme == Mixes {
		for _, h := range shingles {
			for i, s := range m.seeds {
				if v := Mix64(h ^ s); v < sig[i] {
					sig[i] = v
				}
			}
		}
		return dst
	}
	m.fill(sig, shingles)
	m.densify(sig)
	return dst
}

// fill puts each shingle of shingles in its bin of sig, which keeps the
// least value, and notes the bins filled in m.filled.
func (m *MinHasher) fill(sig, shingles []uint64) {
	k := uint64(m.k)
	filled := &m.filled
	clear(filled[:(m.k+63)/64])
	for _, h := range shingles {
		v := Mix64(h ^ ophSeed)
		bin, _ := bits.Mul64(v, k)
		if v < sig[bin] || !filled.has(int(bin)) {
			sig[bin] = v
			filled.add(int(bin))
		}
	}
}

// densify gives each empty bin of sig the value of the bin probe picks,
// by the cheapest of four ways for the number of filled bins (none with
// every bin filled):
//   - one filled bin: every bin copies it (every probe sequence ends
//     there);
//   - up to hitsMax filled bins, with a hit table (k <= maxHitK):
//     densifyByHits;
//   - fewer than a seventh of the bins filled: densifyByProbe;
//   - a seventh of the bins or more: densifyByDepth.
//
// All four give the same signature.
func (m *MinHasher) densify(sig []uint64) {
	filled := &m.filled
	words := (m.k + 63) / 64
	n := 0
	for _, f := range filled[:words] {
		n += bits.OnesCount64(f)
	}
	switch {
	case n == m.k: // nothing to densify
	case n == 1:
		for w, f := range filled[:words] {
			if f != 0 {
				v := sig[w*64+bits.TrailingZeros64(f)]
				for i := range sig[:m.k] {
					sig[i] = v
				}
				return
			}
		}
	case m.hits != nil && n <= hitsMax:
		m.densifyByHits(sig)
	case n*byDepthShare < m.k:
		m.densifyByProbe(sig)
	default:
		m.densifyByDepth(sig)
	}
}

// densifyByProbe gives each empty bin the value of the bin probe picks:
// with few filled bins the probes mostly miss, a branch the processor
// predicts.
func (m *MinHasher) densifyByProbe(sig []uint64) {
	filled := &m.filled
	for w := range (m.k + 63) / 64 {
		for e := ^filled[w]; e != 0; e &= e - 1 {
			i := w*64 + bits.TrailingZeros64(e)
			if i >= m.k {
				break
			}
			sig[i] = sig[m.probe(i, filled)]
		}
	}
}

// orRows ORs into each word of dst the words of a, b, c and d at its
// index. They are at least as long as dst.
func orRows(dst, a, b, c, d []uint64) {
	a, b, c, d = a[:len(dst)], b[:len(dst)], c[:len(dst)], d[:len(dst)]
	for i := range dst {
		dst[i] |= a[i] | b[i] | c[i] | d[i]
	}
}

// densifyByDepth goes through the probe table by depth: at depth a, every
// empty bin that has not found a filled bin yet notes the a-th bin of its
// sequence in m.from and leaves the search if that bin is filled, with
// masks instead of a branch, whose outcome would be as hard to predict as
// a coin toss when a seventh of the bins or more are filled; the bins
// still searching after the table's depth take probe.
func (m *MinHasher) densifyByDepth(sig []uint64) {
	filled := &m.filled
	probes, from := m.probes, m.from
	for w := range (m.k + 63) / 64 {
		empty := ^filled[w]
		if r := m.k - w*64; r < 64 {
			empty &= 1<<r - 1
		}
		open := empty // the empty bins still searching
		t := probes[w*64*probeDepth:]
		for a := 0; a < probeDepth && open != 0; a++ {
			for e := open; e != 0; e &= e - 1 {
				b := bits.TrailingZeros64(e)
				j := t[b*probeDepth+a]
				from[w*64+b] = j
				open &^= (filled[j/64%(MaxK/64)] >> (j % 64) & 1) << b
			}
		}
		for ; open != 0; open &= open - 1 {
			i := w*64 + bits.TrailingZeros64(open)
			from[i] = uint16(m.probe(i, filled))
		}
		for ; empty != 0; empty &= empty - 1 {
			i := w*64 + bits.TrailingZeros64(empty)
			sig[i] = sig[from[i]]
		}
	}
}

// densifyByHits is densify through the hit table, for a few filled bins:
// the depths at which each bin meets a filled bin are the OR of the filled
// bins' rows, and an empty bin copies the bin it meets first. It costs
// k word ORs a filled bin, and a branch an empty bin that is rarely taken
// with several filled bins.
func (m *MinHasher) densifyByHits(sig []uint64) {
	k := m.k
	met := m.met[:k]
	clear(met)
	filled := &m.filled
	words := (k + 63) / 64
	// The rows of the filled bins, four at a time: a load a row and a
	// store for four.
	var rows [4][]uint64
	n := 0
	for w := range words {
		for f := filled[w]; f != 0; f &= f - 1 {
			j := w*64 + bits.TrailingZeros64(f)
			rows[n] = m.hits[j*k : (j+1)*k]
			if n++; n == len(rows) {
				orRows(met, rows[0], rows[1], rows[2], rows[3])
				n = 0
			}
		}
	}
	for _, row := range rows[:n] {
		orRows(met, row, row, row, row)
	}
	for w := range words {
		empty := ^filled[w]
		if r := k - w*64; r < 64 {
			empty &= 1<<r - 1
		}
		for ; empty != 0; empty &= empty - 1 {
			i := w*64 + bits.TrailingZeros64(empty)
			if met[i] != 0 {
				sig[i] = sig[m.probes[i*probeDepth+bits.TrailingZeros64(met[i])]]
				continue
			}
			// Deeper: depths 64 to 127, the table's second half
			// (hits[k*k:]), ORed over the filled bins; about
			// (1-n/k)^64 of the empty bins get here.
			var deep uint64
			for v := range words {
				for f := filled[v]; f != 0; f &= f - 1 {
					deep |= m.hits[k*k+(v*64+bits.TrailingZeros64(f))*k+i]
				}
			}
			if deep != 0 {
				sig[i] = sig[probeAt(k, i, 64+bits.TrailingZeros64(deep))]
				continue
			}
			sig[i] = sig[m.probeFrom(i, 128, filled)]
		}
	}
}

// byDepthShare is the inverse of the least share of filled bins with
// which densify goes through the probe table by depth.
const byDepthShare = 7

// hitsMax is the most filled bins with which densify goes through the hit
// table, where each filled bin costs k ORs: past about 24 of 84, going by
// depth costs less (`go test ./shingle -run - -bench SignatureStream`,
// with this constant changed).
const hitsMax = 24

// probe returns the bin whose value the empty bin i copies: the first
// filled bin of a probe sequence fixed by i alone, so that two signatures
// densify consistently.
//
// The first probeDepth bins of the sequence come from a table; they find a
// filled bin unless nearly all bins are empty.
func (m *MinHasher) probe(i int, filled *binSet) int {
	for _, j := range m.probes[i*probeDepth : (i+1)*probeDepth] {
		if filled.has(int(j)) {
			return int(j)
		}
	}
	return m.probeFrom(i, probeDepth, filled)
}

// probeFrom returns what probe returns for bin i when the first a0 bins of
// its sequence are not filled. The sequence has 64*k bins: densifyByHits
// starts at 128, which a signature with an empty bin (k >= 2) reaches.
func (m *MinHasher) probeFrom(i, a0 int, filled *binSet) int {
	for a := a0; a < 64*m.k; a++ {
		if j := probeAt(m.k, i, a); filled.has(j) {
			return j
		}
	}
	for j := 1; ; j++ { // reached with vanishing probability
		if b := (i + j) % m.k; filled.has(b) {
			return b
		}
	}
}

// Estimate returns the Jaccard similarity estimated from two signatures of
// the same MinHasher: the share of positions where they agree. Values are
// compared by their low 32 bits (b-bit minwise hashing with b = 32, as Li
// and König describe it), so that a signature stored with 32 bits a value
// compares with one computed in full: two different values agree in their
// low 32 bits with probability 2^-32, which moves an estimate by less than
// 1e-9 on average. Its standard error is about sqrt(J(1-J)/K). Signatures
// of different lengths give 0. Cost: O(K).
func Estimate(a, b []uint64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	n := 0
	for i, x := range a {
		if uint32(x) == uint32(b[i]) {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// SharedBands returns the number of bands in which the band hash lists a
// and b (of AppendBands) agree, comparing the first min(len(a), len(b)).
// A zero band hash marks a band a document does not have, and is shared
// with nothing. Two documents sharing a band are LSH candidates. Cost:
// O(len(a)).
func SharedBands(a, b []uint64) int {
	n := 0
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] && a[i] != 0 {
			n++
		}
	}
	return n
}

// AppendBands appends to dst one hash for each of bands bands of rows
// consecutive signature values (Broder's supershingles): two documents that
// share a band hash agree on all its rows. The band number is part of the
// hash, so equal rows in different bands give different hashes. bands*rows
// must not exceed len(sig). Cost: O(bands*rows).
func AppendBands(dst, sig []uint64, bands, rows int) []uint64 {
	if bands*rows > len(sig) {
		panic(fmt.Sprintf("shingle: %d bands of %d rows need %d values, signature has %d",
			bands, rows, bands*rows, len(sig)))
	}
	for b := range bands {
		dst = append(dst, Band(sig, b, rows))
	}
	return dst
}

// Band returns the hash of band b of sig, of rows values: the b-th hash of
// AppendBands(nil, sig, bands, rows) for any bands above b. Cost: O(rows).
func Band(sig []uint64, b, rows int) uint64 {
	return Mix64(Combine(sig[b*rows:(b+1)*rows]) + uint64(b)*bandSeed)
}
