package simhash

// Accumulator sums weighted features into a simhash. The zero value is
// ready to use. Unit weights (Add), the common case of term-frequency
// weighting where each occurrence of a feature is added once, take a
// branch-free path of eight table lookups and additions per feature; other
// weights (AddWeighted) take 64 additions. An Accumulator allocates nothing
// and is not safe for concurrent use.
type Accumulator struct {
	lanes   [8]uint64 // byte-sliced counters: byte j of lanes[b] counts bit 8b+j
	pending uint64    // Adds since the last flush of lanes, < 255
	ones    [64]int64 // flushed per-bit counts of set bits
	n       int64     // number of unit-weight Adds, flushed
	sums    [64]int64 // per-bit signed sums of weighted features
}

// spread maps a byte to a word with byte j equal to bit j of the byte.
var spread [256]uint64

func init() {
	for x := range spread {
		var w uint64
		for j := range 8 {
			w |= uint64(x>>j&1) << (8 * j)
		}
		spread[x] = w
	}
}

// Add adds the feature hash h with weight 1. Cost: eight table lookups
// and additions, and a flush of the counters every 255 calls.
func (a *Accumulator) Add(h uint64) {
	a.lanes[0] += spread[byte(h)]
	a.lanes[1] += spread[byte(h>>8)]
	a.lanes[2] += spread[byte(h>>16)]
	a.lanes[3] += spread[byte(h>>24)]
	a.lanes[4] += spread[byte(h>>32)]
	a.lanes[5] += spread[byte(h>>40)]
	a.lanes[6] += spread[byte(h>>48)]
	a.lanes[7] += spread[byte(h>>56)]
	a.pending++
	if a.pending == 255 {
		a.flush()
	}
}

// AddAll adds every hash in hs with weight 1.
func (a *Accumulator) AddAll(hs []uint64) {
	for _, h := range hs {
		a.Add(h)
	}
}

// AddWeighted adds the feature hash h with weight w (which may be negative
// to remove a feature). Cost: 64 additions.
func (a *Accumulator) AddWeighted(h uint64, w int64) {
	for i := range a.sums {
		if h>>i&1 == 1 {
			a.sums[i] += w
		} else {
			a.sums[i] -= w
		}
	}
}

func (a *Accumulator) flush() {
	for b, l := range a.lanes {
		for j := range 8 {
			a.ones[8*b+j] += int64(l >> (8 * j) & 0xff)
		}
		a.lanes[b] = 0
	}
	a.n += int64(a.pending)
	a.pending = 0
}

// Sum64 returns the fingerprint of the features added since the last Reset:
// bit i is set when the weighted sum for bit i is positive. An empty
// accumulator gives 0. Sum64 does not change the accumulator.
func (a *Accumulator) Sum64() uint64 { return a.sum64(false) }

// sum64 returns the fingerprint, with bits whose sum is zero set when
// ties is true.
func (a *Accumulator) sum64(ties bool) uint64 {
	if a.pending > 0 {
		a.flush()
	}
	var min int64 = 1
	if ties {
		min = 0
	}
	var fp uint64
	for i := range 64 {
		fp |= atLeast(2*a.ones[i]-a.n+a.sums[i], min) << i
	}
	return fp
}

// atLeast returns 1 if x >= y and 0 otherwise, without a branch: the bits
// of a fingerprint are as hard to predict as coin tosses.
func atLeast(x, y int64) uint64 {
	if x >= y {
		return 1
	}
	return 0
}

// Reset empties the accumulator.
func (a *Accumulator) Reset() { *a = Accumulator{} }
