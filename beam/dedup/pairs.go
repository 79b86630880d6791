package dedup

import (
	"context"
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// Group is a group of exact copies (the same canonical-text hash): the
// analysis of its first document in input order, which stands for all of
// them in the join, and every member.
type Group struct {
	Rep     Info
	Members []Member
}

// Copies are the members of a group of exact copies, keyed by the Seq of
// its first.
type Copies struct {
	Members []Member
}

// collapseFn combines the documents of one canonical-text hash into a
// Group: combined before the shuffle (combiner lifting), so that a text
// read a million times crosses the network about once per worker, with
// its members' IDs. Memory: the members of a group (about 30 bytes and
// the ID each).
type collapseFn struct{}

func (collapseFn) CreateAccumulator() Group { return Group{} }

func (collapseFn) AddInput(g Group, in Info) Group {
	if len(g.Members) == 0 || in.Seq < g.Rep.Seq {
		g.Rep = in
	}
	g.Members = append(g.Members, in.Member)
	return g
}

func (collapseFn) MergeAccumulators(a, b Group) Group {
	if len(a.Members) == 0 || (len(b.Members) > 0 && b.Rep.Seq < a.Rep.Seq) {
		a.Rep = b.Rep
	}
	a.Members = append(a.Members, b.Members...)
	return a
}

func (collapseFn) ExtractOutput(g Group) Group {
	slices.SortFunc(g.Members, func(a, b Member) int { return cmpSeq(a.Seq, b.Seq) })
	return g
}

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Entry is a distinct text in the group of one table or band key: its
// Seq, its fingerprint, and for a band key the band hashes of the bands
// before it (all of them with MinBands above 1), from which the group
// tells whether the pair shares an earlier band.
type Entry struct {
	Seq     uint64
	FP      uint64
	Earlier []uint64
	Sub     int // the sub-group of a hot key's member
}

// Cand is a candidate pair of distinct texts (A < B by Seq) at distance D.
type Cand struct {
	A, B uint64
	D    int
}

// RepPair is a pair of distinct texts by the match rule.
type RepPair struct {
	A, B uint64
	D    int
	Sim  float64
}

// Key kinds.
const (
	tableKey = 't'
	bandKey  = 'b'
)

// keyer emits the keys of a distinct text: one per permuted table (its
// key in index.TableKeys) and, with the MinHash layer and a similarity
// threshold, one per band hash (not 0, the absent short bands).
type keyer struct {
	rule  *Rule
	tk    *index.TableKeys
	bands bool
	keys  []uint64
	buf   []byte
}

func newKeyer(r *Rule, n int) (*keyer, error) {
	tk, err := index.NewTableKeys(r.design(n), r.K)
	if err != nil {
		return nil, err
	}
	return &keyer{rule: r, tk: tk, bands: r.Settings.MinHash && r.MinSim > 0}, nil
}

// each calls fn with every key of in and the Entry it groups.
func (k *keyer) each(in *Info, fn func(key string, e Entry)) {
	k.keys = k.tk.Append(k.keys[:0], in.FP)
	for t, v := range k.keys {
		fn(k.key(tableKey, t, v), Entry{Seq: in.Seq, FP: in.FP})
	}
	if !k.bands {
		return
	}
	for b, h := range in.Bands {
		if h == 0 {
			continue
		}
		e := Entry{Seq: in.Seq, FP: in.FP, Earlier: in.Bands[:b]}
		if k.rule.Settings.MinBands > 1 {
			e.Earlier = in.Bands
		}
		fn(k.key(bandKey, b, h), e)
	}
}

func (k *keyer) key(kind byte, slot int, v uint64) string {
	k.buf = append(k.buf[:0], kind, byte(slot>>8), byte(slot))
	k.buf = binary.BigEndian.AppendUint64(k.buf, v)
	return string(k.buf)
}

// Hot keys: a group of more than MaxGroup distinct texts is split into
// S = ceil(size/MaxGroup) sub-groups by a hash of Seq, and compared block
// by block: block (i, j), i <= j, holds sub-groups i and j and compares
// the pairs across them (within i when i == j). Every pair of the group
// is compared in exactly one block, so nothing is lost; each member of a
// hot group is shuffled S times, and no worker holds more than
// 2*MaxGroup entries of it on average.

// countKeysFn emits 1 for every key of a distinct text, to count the
// texts per key.
type countKeysFn struct {
	Rule Rule
	k    *keyer
}

func (fn *countKeysFn) ProcessElement(in Info, n int, emit func(string, int)) error {
	if fn.k == nil {
		k, err := newKeyer(&fn.Rule, n)
		if err != nil {
			return err
		}
		fn.k = k
	}
	fn.k.each(&in, func(key string, _ Entry) { emit(key, 1) })
	return nil
}

// keysFn emits every key of a distinct text with its Entry, and for a hot
// key (side input: keys and their counts) its blocks.
type keysFn struct {
	Rule     Rule
	MaxGroup int
	k        *keyer
	hot      map[string]int
}

func (fn *keysFn) ProcessElement(ctx context.Context, in Info, n int, hot func(*string, *int) bool, emit func(string, Entry)) error {
	if fn.k == nil {
		k, err := newKeyer(&fn.Rule, n)
		if err != nil {
			return err
		}
		fn.k = k
		fn.hot = map[string]int{}
		var key string
		var c int
		for hot(&key, &c) {
			fn.hot[key] = c
			hotKeys.Inc(ctx, 1)
		}
	}
	fn.k.each(&in, func(key string, e Entry) {
		c, ok := fn.hot[key]
		if !ok {
			emit(key, e)
			return
		}
		s := subGroups(c, fn.MaxGroup)
		i := subGroup(e.Seq, s)
		e.Sub = i
		for j := range s {
			emit(blockKey(key, min(i, j), max(i, j)), e)
		}
	})
	return nil
}

func subGroups(count, maxGroup int) int { return (count + maxGroup - 1) / maxGroup }

// subGroup returns the sub-group of the text seq among s.
func subGroup(seq uint64, s int) int {
	h, _ := bits.Mul64(seq*0x9e3779b97f4a7c15^0xc2b2ae3d27d4eb4f, uint64(s))
	return int(h)
}

func blockKey(key string, i, j int) string {
	return key + string([]byte{byte(i >> 8), byte(i), byte(j >> 8), byte(j)})
}

// groupFn reports the candidate pairs of one group (or block), each only
// from the first key the two share: a table pair within K bits only from
// the first table in which they share the key (index.TableKeys.First), a
// band pair beyond K bits only from the first band they share, so that no
// pair is emitted twice. Memory: the entries of the group; time: the
// square of its size.
type groupFn struct {
	Rule Rule
	tk   *index.TableKeys
	es   []Entry
}

func (fn *groupFn) ProcessElement(ctx context.Context, key string, entries func(*Entry) bool, n int, emit func(uint64, Cand)) error {
	if fn.tk == nil {
		tk, err := index.NewTableKeys(fn.Rule.design(n), fn.Rule.K)
		if err != nil {
			return err
		}
		fn.tk = tk
	}
	fn.es = fn.es[:0]
	var e Entry
	for entries(&e) {
		fn.es = append(fn.es, Entry{Seq: e.Seq, FP: e.FP, Earlier: slices.Clone(e.Earlier), Sub: e.Sub})
	}
	if len(fn.es) < 2 {
		return nil
	}
	kind, slot := key[0], int(key[1])<<8|int(key[2])
	// A block (i, j), i != j, of a hot key compares across its two
	// sub-groups only.
	cross := len(key) == 15 && (key[11] != key[13] || key[12] != key[14])
	k := fn.Rule.K
	minBands := fn.Rule.Settings.MinBands
	for a := range fn.es {
		for b := a + 1; b < len(fn.es); b++ {
			ea, eb := &fn.es[a], &fn.es[b]
			if cross && ea.Sub == eb.Sub {
				continue
			}
			d := bits.OnesCount64(ea.FP ^ eb.FP)
			switch kind {
			case tableKey:
				if d > k || fn.tk.First(ea.FP, eb.FP) != slot {
					continue
				}
			case bandKey:
				if d <= k || sharesBefore(ea.Earlier, eb.Earlier, slot) {
					continue
				}
				if minBands > 1 && shingle.SharedBands(ea.Earlier, eb.Earlier) < minBands {
					continue
				}
			}
			candidates.Inc(ctx, 1)
			lo, hi := min(ea.Seq, eb.Seq), max(ea.Seq, eb.Seq)
			emit(lo, Cand{A: lo, B: hi, D: d})
		}
	}
	return nil
}

// sharesBefore reports whether two texts share a band before slot (band
// hashes equal and not 0, the absent band).
func sharesBefore(a, b []uint64, slot int) bool {
	for i := range min(slot, len(a), len(b)) {
		if a[i] == b[i] && a[i] != 0 {
			return true
		}
	}
	return false
}

// Sig is a distinct text's signature and short set, joined back to the
// candidate pairs by Seq.
type Sig struct {
	Sig, Short []uint64
}

// Half is a candidate pair with the signature of its first text, on its
// way to the second.
type Half struct {
	A      uint64
	D      int
	SigA   []uint64
	ShortA []uint64
}

// verifyAFn joins the candidates of text A with A's signature.
func verifyAFn(a uint64, sigs func(*Sig) bool, cands func(*Cand) bool, emit func(uint64, Half)) {
	var s Sig
	if !sigs(&s) {
		return
	}
	var c Cand
	for cands(&c) {
		emit(c.B, Half{A: c.A, D: c.D, SigA: s.Sig, ShortA: s.Short})
	}
}

// verifyBFn joins the candidates of text B with B's signature and applies
// the match rule: index.TextSimilarity, at least MinSim (when above 0).
type verifyBFn struct {
	MinSim float64
}

func (fn *verifyBFn) ProcessElement(ctx context.Context, b uint64, halves func(*Half) bool, sigs func(*Sig) bool, emit func(RepPair)) {
	var s Sig
	if !sigs(&s) {
		return
	}
	var h Half
	for halves(&h) {
		sim, _ := index.TextSimilarity(h.SigA, h.ShortA, s.Sig, s.Short)
		if fn.MinSim > 0 && sim < fn.MinSim {
			continue
		}
		repPairs.Inc(ctx, 1)
		emit(RepPair{A: h.A, B: b, D: h.D, Sim: sim})
	}
}

// candPairFn makes the candidates pairs as they are, without the MinHash
// layer (the fingerprint rule alone).
func candPairFn(ctx context.Context, _ uint64, c Cand) RepPair {
	repPairs.Inc(ctx, 1)
	return RepPair{A: c.A, B: c.B, D: c.D}
}
