package simhash

import (
	"fmt"
	"math/bits"

	"github.com/simidx/simidx/shingle"
)

// Features selects the features of a text fingerprint.
type Features uint8

const (
	// UnitsAndPairs uses every unit (word, or character with the Chars
	// unit) and every pair of consecutive units, each occurrence with weight
	// 1 (term-frequency weights). It is the default: against the exact
	// ground truth at k = 3 it has the highest F1 for pairs with shingle
	// Jaccard >= 0.8 of the choices tried on mail and licences (0.807
	// against 0.781 for units alone on spamassassin-body, 0.889 against
	// 0.816 on spdx-licenses), and it triples F1 on Japanese, where a unit
	// is a character (0.331 against 0.110 on manpages-ja; shingles of 2 do
	// better there, 0.557). Figures: docs/benchmarks.md, "Simhash feature
	// choices" (cd bench && go run . features).
	UnitsAndPairs Features = iota
	// Units uses every unit with term-frequency weights: word order does
	// not count at all.
	Units
	// Shingles uses every shingle of Options.ShingleSize units with
	// term-frequency weights: fewer false matches, fewer true ones at the
	// same distance.
	Shingles
)

// String returns the name of f as the simidx command spells it:
// units+pairs, units or shingles.
func (f Features) String() string {
	switch f {
	case UnitsAndPairs:
		return "units+pairs"
	case Units:
		return "units"
	case Shingles:
		return "shingles"
	}
	return fmt.Sprintf("Features(%d)", uint8(f))
}

// pairHash is the feature hash of two consecutive units: order-sensitive,
// and as well mixed as a unit hash.
func pairHash(a, b uint64) uint64 { return shingle.Mix64(a ^ bits.RotateLeft64(b, 29)) }

// DefaultShingleSize is the default number of units per simhash feature.
const DefaultShingleSize = 2

// Options configures a text [Hasher]. The zero value means the defaults.
// Options are persisted by simidx indexes as JSON with these field names.
type Options struct {
	// Text is how text is canonicalized and cut into units. Its Size and
	// Disjoint fields do not apply to simhash features.
	Text shingle.Options `json:"text"`
	// Features selects the features. Default UnitsAndPairs.
	Features Features `json:"features"`
	// ShingleSize is the number of units per feature with Shingles.
	// 0 means DefaultShingleSize.
	ShingleSize int `json:"shingle_size"`
}

// Normalized returns a copy of o (nil meaning the defaults) with every
// default made explicit, or an error if a field is out of range.
func (o *Options) Normalized() (Options, error) {
	var n Options
	if o != nil {
		n = *o
	}
	t, err := n.Text.Normalized()
	if err != nil {
		return n, err
	}
	n.Text = t
	if n.ShingleSize == 0 {
		n.ShingleSize = DefaultShingleSize
	}
	if n.ShingleSize < 1 || n.ShingleSize > shingle.MaxSize {
		return n, fmt.Errorf("simhash: shingle size %d out of range 1..%d", n.ShingleSize, shingle.MaxSize)
	}
	if n.Features > Shingles {
		return n, fmt.Errorf("simhash: unknown features %d", n.Features)
	}
	return n, nil
}

// Hasher fingerprints text. It reuses its buffers, allocates nothing per
// document once warm (for plain text), and is not safe for concurrent use.
type Hasher struct {
	opts  Options
	tok   *shingle.Tokenizer
	acc   Accumulator
	units []uint64
	feats []uint64
}

// NewHasher returns a Hasher for opts (nil means the defaults), or an error
// if opts is invalid.
func NewHasher(opts *Options) (*Hasher, error) {
	o, err := opts.Normalized()
	if err != nil {
		return nil, err
	}
	t, err := shingle.NewTokenizer(&o.Text)
	if err != nil {
		return nil, err
	}
	return &Hasher{opts: o, tok: t}, nil
}

// Options returns the hasher's options with every default made explicit.
func (h *Hasher) Options() Options { return h.opts }

// Sum64 returns the fingerprint of text. Cost: O(len(text)).
func (h *Hasher) Sum64(text []byte) uint64 {
	h.units = h.tok.AppendUnits(h.units[:0], text)
	return h.SumUnits(h.units)
}

// SumUnits returns the fingerprint of a text given as its unit hashes (see
// [shingle.Tokenizer.AppendUnits]), for callers that tokenize once for
// several purposes. Cost: O(len(units)).
func (h *Hasher) SumUnits(units []uint64) uint64 {
	h.acc.Reset()
	switch h.opts.Features {
	case UnitsAndPairs:
		for i, u := range units {
			h.acc.Add(u)
			if i > 0 {
				h.acc.Add(pairHash(units[i-1], u))
			}
		}
	case Units:
		h.acc.AddAll(units)
	default:
		h.feats = shingle.AppendShingles(h.feats[:0], units, h.opts.ShingleSize, 1)
		h.acc.AddAll(h.feats)
	}
	return h.acc.Sum64()
}
