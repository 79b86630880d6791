package index

import (
	"fmt"
	"math"
)

// Design is a permuted-table design for 64-bit fingerprints (Manku, Jain
// and Das Sarma, "Detecting Near-Duplicates for Web Crawling", 2007).
//
// The 64 bits are split into m = len(Blocks) blocks. For an index built for
// distance k there is one table per choice of the m-k blocks that must
// agree, C(m, k) tables in all; a table stores each fingerprint permuted so
// that its chosen blocks come first, in block order, followed by the other
// blocks. Two fingerprints within k bits differ in at most k blocks, so
// they agree on all chosen blocks of at least one table: they share the
// leading p bits of its permuted form, where p is the total width of the
// chosen blocks. A query therefore looks at one prefix per table and finds
// every fingerprint within k exactly.
//
// Each table groups its entries by the leading KeyBits bits of the permuted
// fingerprint (KeyBits <= p): one bbolt value per group holds the sorted
// entries, each the remaining 64-KeyBits bits and a document number.
type Design struct {
	// Blocks are the widths of the blocks, most significant first. They
	// sum to 64.
	Blocks []int `json:"blocks"`

	// KeyBits is the width of the bbolt key of a table: the permuted
	// prefix that groups entries into one value, 1 to 32 and at most the
	// smallest p.
	KeyBits int `json:"key_bits"`
}

// Limits on designs.
const (
	maxTables  = 4096
	maxKeyBits = 32

	// seekCost is the cost of looking at one more table, in units of
	// candidates checked; DesignFor trades tables against candidates with
	// it. A table costs a B+tree descent per query (mostly cache misses at
	// 10^6 documents), a group rewrite per online add and an entry per
	// document on disk; a candidate costs a popcount over a packed entry.
	seekCost = 256

	// groupTarget is the mean number of entries per bbolt value DesignFor
	// aims for.
	groupTarget = 16
)

// DesignFor returns the design an index for distance k and about n
// documents uses by default: the number of blocks m that minimizes
// tables*(seekCost + candidates per table), with blocks as equal as
// possible, and KeyBits such that a value holds about 16 entries (at most
// the prefix of a table). The cost
// is about C(m,k) table lookups per query, C(m,k) entries per document on
// disk, and the candidates returned by Candidates.
func DesignFor(k, n int) Design {
	if k < 0 {
		k = 0
	}
	if n < 1 {
		n = 1
	}
	var best Design
	bestCost := math.Inf(1)
	for m := k + 1; m <= 64; m++ {
		if binomial(m, k) > maxTables {
			break
		}
		cost := float64(binomial(m, k))*seekCost + evenCandidates(m, k, n)
		if cost < bestCost {
			best, bestCost = Design{Blocks: evenBlocks(m)}, cost
		}
	}
	pmin, _ := best.PrefixBits(k)
	q := int(math.Ceil(math.Log2(float64(n) / groupTarget)))
	best.KeyBits = max(1, min(q, pmin, maxKeyBits))
	return best
}

// evenBlocks splits 64 bits into m blocks, the wider ones first.
func evenBlocks(m int) []int {
	b := make([]int, m)
	for i := range b {
		b[i] = 64 / m
		if i < 64%m {
			b[i]++
		}
	}
	return b
}

// evenCandidates is Design{Blocks: evenBlocks(m)}.Candidates(k, n) without
// enumerating the tables: r blocks are w+1 bits wide, m-r are w bits; a
// table leading with j wide blocks has p = j(w+1) + (m-k-j)w.
func evenCandidates(m, k, n int) float64 {
	w, r := 64/m, 64%m
	var c float64
	for j := 0; j <= min(r, m-k); j++ {
		t := float64(binomial(r, j)) * float64(binomial(m-r, m-k-j))
		c += t * float64(n) / math.Exp2(float64(j*(w+1)+(m-k-j)*w))
	}
	return c
}

// Tables returns the number of tables of the design for distance k:
// C(len(Blocks), k).
func (d Design) Tables(k int) int { return binomial(len(d.Blocks), k) }

// PrefixBits returns the smallest and largest number of leading bits p two
// fingerprints within distance k share in the table that finds them.
func (d Design) PrefixBits(k int) (lo, hi int) {
	lo = 64
	for _, t := range d.tables(k) {
		lo, hi = min(lo, t.prefix), max(hi, t.prefix)
	}
	return lo, hi
}

// Candidates returns the expected number of stored entries a query for a
// random fingerprint compares against in all tables together, with n
// random fingerprints stored: the sum over tables of n/2^p. (The scan of
// a table also passes over the rest of its KeyBits group: n/2^KeyBits
// entries.)
func (d Design) Candidates(k, n int) float64 {
	var c float64
	for _, t := range d.tables(k) {
		c += float64(n) / math.Exp2(float64(t.prefix))
	}
	return c
}

func (d Design) isZero() bool { return len(d.Blocks) == 0 && d.KeyBits == 0 }

func (d Design) validate(k int) error {
	m := len(d.Blocks)
	if m <= k || m > 64 {
		return fmt.Errorf("%w: design has %d blocks, needs %d to 64 for distance %d", ErrSettings, m, k+1, k)
	}
	sum := 0
	for _, w := range d.Blocks {
		if w < 1 {
			return fmt.Errorf("%w: design block width %d < 1", ErrSettings, w)
		}
		sum += w
	}
	if sum != 64 {
		return fmt.Errorf("%w: design block widths sum to %d, not 64", ErrSettings, sum)
	}
	if t := binomial(m, k); t > maxTables || t < 1 {
		return fmt.Errorf("%w: design has more than %d tables", ErrSettings, maxTables)
	}
	pmin, _ := d.PrefixBits(k)
	if d.KeyBits < 1 || d.KeyBits > maxKeyBits || d.KeyBits > pmin {
		return fmt.Errorf("%w: design key bits %d not in 1..%d", ErrSettings, d.KeyBits, min(maxKeyBits, pmin))
	}
	return nil
}

// binomial returns C(n, k), saturating at math.MaxInt32.
func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
		if c > math.MaxInt32 {
			return math.MaxInt32
		}
	}
	return c
}

// move copies one block: bits [src, src+width) counted from the least
// significant bit of the fingerprint to [dst, dst+width).
type move struct {
	src, dst, width uint
}

// table is one permuted table: the blocks chosen to lead and the moves
// that permute a fingerprint.
type table struct {
	lead   []int // indexes of the leading blocks, ascending
	prefix int   // total width of the leading blocks, p
	moves  []move
	inv    []move // the inverse permutation
}

// tables returns the tables of the design for distance k, in a fixed
// order: leading-block sets in lexicographic order.
func (d Design) tables(k int) []table {
	m := len(d.Blocks)
	if m <= k {
		return nil
	}
	start := make([]uint, m) // lowest bit of each block (block 0 is most significant)
	pos := uint(64)
	for i, w := range d.Blocks {
		pos -= uint(w)
		start[i] = pos
	}
	var out []table
	lead := make([]int, m-k)
	for i := range lead {
		lead[i] = i
	}
	for {
		t := table{lead: append([]int(nil), lead...)}
		inLead := make([]bool, m)
		for _, b := range lead {
			inLead[b] = true
		}
		dst := uint(64)
		place := func(b int) {
			w := uint(d.Blocks[b])
			dst -= w
			t.moves = append(t.moves, move{src: start[b], dst: dst, width: w})
			t.inv = append(t.inv, move{src: dst, dst: start[b], width: w})
		}
		for _, b := range lead {
			t.prefix += d.Blocks[b]
			place(b)
		}
		for b := range m {
			if !inLead[b] {
				place(b)
			}
		}
		out = append(out, t)
		// Next combination of m-k out of m, lexicographic.
		i := len(lead) - 1
		for i >= 0 && lead[i] == m-len(lead)+i {
			i--
		}
		if i < 0 {
			return out
		}
		lead[i]++
		for j := i + 1; j < len(lead); j++ {
			lead[j] = lead[j-1] + 1
		}
	}
}

func apply(moves []move, fp uint64) uint64 {
	var r uint64
	for _, mv := range moves {
		r |= (fp >> mv.src & (1<<mv.width - 1)) << mv.dst
	}
	return r
}

// permute returns fp in the table's order.
func (t *table) permute(fp uint64) uint64 { return apply(t.moves, fp) }

// unpermute is the inverse of permute.
func (t *table) unpermute(p uint64) uint64 { return apply(t.inv, p) }

// TableKeys are the permuted tables of a design for one distance k, for
// finding the pairs of fingerprints within k bits outside an index (a
// distributed join groups fingerprints by their keys). Two fingerprints
// within k bits have the same key in at least one table: a key of table i
// is the leading p_i bits of the fingerprint permuted for that table, the
// prefix the index's table i groups by before it compares entries. A
// TableKeys is safe for concurrent use.
type TableKeys struct {
	tables []table
	lead   []uint64 // lead[i] masks the leading blocks of table i, in fingerprint order
}

// NewTableKeys returns the tables of design d for distance k, or an error
// wrapping ErrSettings if d is no valid design for k. Cost: C(m, k)
// tables of m moves each, for a design of m blocks.
func NewTableKeys(d Design, k int) (*TableKeys, error) {
	if err := d.validate(k); err != nil {
		return nil, err
	}
	ts := d.tables(k)
	t := &TableKeys{tables: ts, lead: make([]uint64, len(ts))}
	for i := range ts {
		t.lead[i] = ts[i].unpermute(^uint64(0) << (64 - ts[i].prefix))
	}
	return t, nil
}

// Len returns the number of tables, C(m, k).
func (t *TableKeys) Len() int { return len(t.tables) }

// Permuted returns fp permuted for table i, the value table i of an index
// sorts its entries by; its leading p_i bits are the key. Cost: m block
// moves.
func (t *TableKeys) Permuted(i int, fp uint64) uint64 { return t.tables[i].permute(fp) }

// Append appends the key of fp in every table to dst, in table order: the
// leading p bits of fp permuted for the table, as the low p bits of the
// value. Cost: a permutation (m block moves) per table.
func (t *TableKeys) Append(dst []uint64, fp uint64) []uint64 {
	for i := range t.tables {
		tb := &t.tables[i]
		dst = append(dst, tb.permute(fp)>>(64-tb.prefix))
	}
	return dst
}

// First returns the first table in which a and b have the same key, or -1
// if none: the table from which Pairs reports a pair within k bits, so that
// a join over all tables reports each pair once by keeping it only in the
// group of that table. Cost: one AND per table up to the first shared.
func (t *TableKeys) First(a, b uint64) int {
	diff := a ^ b
	for i, m := range t.lead {
		if diff&m == 0 {
			return i
		}
	}
	return -1
}
