package index

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/simidx/simidx/shingle"
	"github.com/simidx/simidx/simhash"
)

// TextSettings are the text-pipeline settings of an index: how text is
// canonicalized and cut into units (package shingle), which features make
// the simhash fingerprint (package simhash) and how MinHash signatures are
// made. The zero value means the defaults. They are persisted as JSON in the
// index with every default made explicit, so a later change of defaults
// never changes what an existing index means.
type TextSettings struct {
	// Method is how the index matches documents: MethodSimhash (the
	// default), MethodDOM or MethodMfonda choose the 64-bit fingerprint in
	// the permuted tables; MethodNshash and MethodShort keep the simhash
	// fingerprint and add postings of a set of hashes per document, with
	// their own match rule (see QueryOptions).
	Method Method `json:"method"`
	// DOMDecay is the weight factor per level of nesting with MethodDOM; 0
	// means simhash.DefaultDOMDecay (0.45).
	DOMDecay float64 `json:"dom_decay,omitempty"`
	// Sentences is the number of longest sentences hashed per document with
	// MethodNshash, 1 to MaxSetSize; 0 means DefaultSentences (5).
	Sentences int `json:"sentences,omitempty"`
	// SentenceEnds are the characters that end a sentence with
	// MethodNshash; empty means shingle.DefaultSentenceEnds.
	SentenceEnds string `json:"sentence_ends,omitempty"`
	// Words is the number of longest distinct words hashed per document
	// with MethodShort, 1 to MaxSetSize; 0 means DefaultWords (15).
	Words int `json:"words,omitempty"`
	// MinLetters is the fewest letters of a word MethodShort hashes; 0
	// means DefaultMinLetters (4).
	MinLetters int `json:"min_letters,omitempty"`
	// MinShared is the fewest word hashes two documents share to be
	// candidates with MethodShort, 1 to Words; 0 means DefaultMinShared (2).
	MinShared int `json:"min_shared,omitempty"`
	// Threshold is the least similarity (common words over the word count
	// of the shorter document) of a match with MethodShort, in (0, 1]; 0
	// means DefaultThreshold (0.8).
	Threshold float64 `json:"threshold,omitempty"`
	// Shingle is the canonicalization, the unit (words or characters), and
	// the shingle size and step of the MinHash layer. Default: markup
	// removed, NFKC, case folded, punctuation dropped, overlapping 5-word
	// shingles.
	Shingle shingle.Options `json:"shingle"`
	// Features are the simhash features. Default simhash.UnitsAndPairs
	// (every word and every pair of adjacent words, with term-frequency
	// weights).
	Features simhash.Features `json:"features"`
	// FeatureSize is the number of units per simhash feature with
	// simhash.Shingles. 0 means simhash.DefaultShingleSize.
	FeatureSize int `json:"feature_size"`
	// Scheme is how MinHash signatures are made. Default
	// shingle.OnePermutation.
	Scheme shingle.Scheme `json:"minhash_scheme"`
}

// Method selects how an index fingerprints text.
type Method string

const (
	// MethodSimhash is the simhash of the canonical text's features
	// (TextSettings.Features).
	MethodSimhash Method = "simhash"
	// MethodDOM is the simhash of an HTML page's tag structure, whatever its
	// text (simhash.DOM): pages of one template match.
	MethodDOM Method = "dom"
	// MethodMfonda reproduces github.com/mfonda/simhash's word fingerprints
	// bit for bit (simhash.Mfonda), so fingerprints stored by that library
	// can be loaded with AddFingerprint and compared with new documents.
	MethodMfonda Method = "mfonda"
	// MethodNshash is nshash's rule: the hashes of a document's Sentences
	// longest sentences are its set, and two documents that share one
	// hash are duplicates. Similarity is shared hashes over the size of
	// the smaller set.
	MethodNshash Method = "nshash"
	// MethodShort is the short-document rule: the set is the hashes of the
	// Words longest distinct words of at least MinLetters letters (numbers
	// dropped); two documents sharing at least MinShared of them match when
	// the common words over the word count of the shorter document
	// (shingle.Overlap) reach Threshold.
	MethodShort Method = "short"
)

// Defaults of the set methods' settings.
const (
	DefaultSentences  = 5
	DefaultWords      = shingle.DefaultLongestWords
	DefaultMinLetters = shingle.DefaultMinLetters
	DefaultMinShared  = 2
	DefaultThreshold  = 0.8

	// MaxSetSize is the largest set of hashes a set method stores per
	// document (TextSettings.Sentences, TextSettings.Words).
	MaxSetSize = 255
)

// IsSet reports whether m is a set method (MethodNshash, MethodShort):
// documents have a set of hashes in the sets postings, matched by the
// method's own rule.
func (m Method) IsSet() bool { return m == MethodNshash || m == MethodShort }

// defaultMinHash reports whether an index of method m has the MinHash
// layer unless Settings.NoMinHash is set: only MethodSimhash (or the empty
// Method, which selects it) does.
func (m Method) defaultMinHash() bool { return m == "" || m == MethodSimhash }

// normalize returns t with every default made explicit, or an error
// wrapping ErrSettings.
func (t TextSettings) normalize() (TextSettings, error) {
	switch t.Method {
	case "":
		t.Method = MethodSimhash
	case MethodSimhash, MethodMfonda:
	case MethodNshash:
		if t.Sentences == 0 {
			t.Sentences = DefaultSentences
		}
		if t.Sentences < 1 || t.Sentences > MaxSetSize {
			return t, fmt.Errorf("%w: sentences %d not in 1..%d", ErrSettings, t.Sentences, MaxSetSize)
		}
		if t.SentenceEnds == "" {
			t.SentenceEnds = shingle.DefaultSentenceEnds
		}
		if !utf8.ValidString(t.SentenceEnds) {
			return t, fmt.Errorf("%w: sentence ends %q are not UTF-8", ErrSettings, t.SentenceEnds)
		}
	case MethodShort:
		if t.Words == 0 {
			t.Words = DefaultWords
		}
		if t.MinLetters == 0 {
			t.MinLetters = DefaultMinLetters
		}
		if t.MinShared == 0 {
			t.MinShared = min(DefaultMinShared, t.Words)
		}
		if t.Threshold == 0 {
			t.Threshold = DefaultThreshold
		}
		switch {
		case t.Words < 1 || t.Words > MaxSetSize:
			return t, fmt.Errorf("%w: words %d not in 1..%d", ErrSettings, t.Words, MaxSetSize)
		case t.MinLetters < 1 || t.MinLetters > shingle.MaxTokenLen:
			return t, fmt.Errorf("%w: min letters %d not in 1..%d", ErrSettings, t.MinLetters, shingle.MaxTokenLen)
		case t.MinShared < 1 || t.MinShared > t.Words:
			return t, fmt.Errorf("%w: min shared %d not in 1..%d (words)", ErrSettings, t.MinShared, t.Words)
		case !(t.Threshold > 0 && t.Threshold <= 1):
			return t, fmt.Errorf("%w: threshold %v not in (0, 1]", ErrSettings, t.Threshold)
		}
	case MethodDOM:
		if t.DOMDecay == 0 {
			t.DOMDecay = simhash.DefaultDOMDecay
		}
		if !(t.DOMDecay > 0 && t.DOMDecay <= 1) {
			return t, fmt.Errorf("%w: DOM decay %v not in (0, 1]", ErrSettings, t.DOMDecay)
		}
	default:
		return t, fmt.Errorf("%w: unknown method %q (want simhash, dom, mfonda, nshash or short)", ErrSettings, t.Method)
	}
	if t.Method != MethodDOM && t.DOMDecay != 0 {
		return t, fmt.Errorf("%w: DOM decay is for the dom method only", ErrSettings)
	}
	if t.Method != MethodNshash && (t.Sentences != 0 || t.SentenceEnds != "") {
		return t, fmt.Errorf("%w: sentences and sentence ends are for the nshash method only", ErrSettings)
	}
	if t.Method != MethodShort && (t.Words != 0 || t.MinLetters != 0 || t.MinShared != 0 || t.Threshold != 0) {
		return t, fmt.Errorf("%w: words, min letters, min shared and threshold are for the short method only", ErrSettings)
	}
	o := t.simhashOptions()
	h, err := o.Normalized()
	if err != nil {
		return t, fmt.Errorf("%w: %v", ErrSettings, err)
	}
	t.Shingle, t.FeatureSize = h.Text, h.ShingleSize
	if t.Scheme > shingle.Mixes {
		return t, fmt.Errorf("%w: unknown MinHash scheme %d", ErrSettings, t.Scheme)
	}
	return t, nil
}

func (t TextSettings) simhashOptions() simhash.Options {
	return simhash.Options{Text: t.Shingle, Features: t.Features, ShingleSize: t.FeatureSize}
}

// analysis is what the index stores about one document.
type analysis struct {
	fp    uint64   // 64-bit simhash fingerprint
	exact uint64   // hash of the canonical text (exact-duplicate key)
	sig   []uint64 // MinHash signature, nil when MinHash is off; owned by the analyzer
	// bands are the band hashes, nil when MinHash is off: Bands of the
	// signature, then ShortBands of the short set with the short-text
	// layer (zero for a text without one); owned by the analyzer.
	bands []uint64
	set   []uint64 // the set method's hashes, sorted, nil for other methods; owned by the analyzer
	// short is the short set (see shortSet) of a text of at most
	// ShortUnits units, nil otherwise; owned by the analyzer.
	short []uint64
	// shingles is the shingle set, sorted and without repeats, when the
	// analyzer keeps it (Settings.StoreShingles); owned by the analyzer.
	shingles []uint64
}

// analyzer computes analyses: the text is tokenized once, and its unit
// hashes feed the fingerprint, the exact-duplicate key and the MinHash
// signature. An analyzer is not safe for concurrent use: use one per
// goroutine. It allocates nothing per document in steady state.
type analyzer struct {
	ts       TextSettings
	tok      *shingle.Tokenizer
	hasher   *simhash.Hasher
	mh       *shingle.MinHasher // nil when MinHash is off
	units    []uint64
	shingles []uint64
	sig      []uint64
	bandBuf  []uint64
	setBuf   []uint64
	// bh computes the band hashes, nil without MinHash; wide is the
	// analysis of an index created before schema 10, sigBits the bits of
	// each signature value kept by one created since (see bands.go).
	bh      *bandHasher
	wide    bool
	sigBits int
	// The short-text layer: shortUnits is 0 without it; shortV1 marks the
	// layer of an index created by schema 7 to 13 (see Settings.shortV1),
	// and seen is the scratch of boundedShortSet.
	shortUnits int
	shortV1    bool
	shortBuf   []uint64
	seen       *[1 << 16 / 64]uint64
	// keepShingles makes analyze return the shingle set (sorted, in
	// shingleSet).
	keepShingles bool
	shingleSet   []uint64
}

// analyzerFor returns an analyzer for the normalized settings s. It panics
// if the settings are invalid, which normalization rules out.
func analyzerFor(s *Settings) *analyzer {
	a, err := makeAnalyzer(s)
	if err != nil {
		panic(err)
	}
	a.keepShingles = s.StoreShingles
	return a
}

func makeAnalyzer(s *Settings) (*analyzer, error) {
	ts, err := s.Text.normalize()
	if err != nil {
		return nil, err
	}
	tok, err := shingle.NewTokenizer(&ts.Shingle)
	if err != nil {
		return nil, err
	}
	opts := ts.simhashOptions()
	h, err := simhash.NewHasher(&opts)
	if err != nil {
		return nil, err
	}
	a := &analyzer{ts: ts, tok: tok, hasher: h, wide: s.wide, sigBits: s.signatureBits()}
	if s.MinHash {
		if a.mh, err = shingle.NewMinHasher(s.MinHashK, ts.Scheme); err != nil {
			return nil, err
		}
		if a.bh, err = newBandHasher(s, ts.Scheme); err != nil {
			return nil, err
		}
	}
	if s.hasShort() {
		a.shortUnits, a.shortV1 = s.ShortUnits, s.shortV1
	}
	return a, nil
}

// analyze returns the analysis of text. The returned slices are valid until
// the next call. Cost: O(len(text)).
func (a *analyzer) analyze(text []byte) analysis {
	a.units = a.tok.AppendUnits(a.units[:0], text)
	r := analysis{exact: shingle.Combine(a.units)}
	switch a.ts.Method {
	case MethodDOM:
		r.fp = simhash.DOM(text, a.ts.DOMDecay)
	case MethodMfonda:
		r.fp = simhash.Mfonda(text)
	default:
		r.fp = a.hasher.SumUnits(a.units)
	}
	switch a.ts.Method {
	case MethodNshash:
		a.setBuf = shingle.Set(a.tok.AppendLongestSentences(a.setBuf[:0], text, a.ts.Sentences, a.ts.SentenceEnds))
		r.set = a.setBuf
	case MethodShort:
		a.setBuf = shingle.Set(a.tok.AppendLongestWords(a.setBuf[:0], text, a.ts.Words, a.ts.MinLetters))
		r.set = a.setBuf
	}
	if a.mh != nil || a.keepShingles {
		o := a.tok.Options()
		// Not made a set for the signature: it counts a repeated shingle
		// once, and sorting them cost a query's analysis a fifth of its
		// time.
		a.shingles = o.SampleHashes(shingle.AppendShingles(a.shingles[:0], a.units, o.Size, o.Step()))
		if a.mh != nil {
			a.sig = a.mh.Append(a.sig[:0], a.shingles)
			if !a.wide {
				keepSig(a.sig, a.sigBits)
			}
			r.sig = a.sig
		}
		if a.keepShingles {
			a.shingleSet = shingle.Set(append(a.shingleSet[:0], a.shingles...))
			r.shingles = a.shingleSet
		}
	}
	switch {
	case a.shortUnits == 0 || len(a.units) == 0:
	case !a.shortV1:
		var ok bool
		if a.shortBuf, ok = a.boundedShortSet(a.shortBuf[:0], a.units); ok {
			r.short = a.shortBuf
		}
	case len(a.units) <= a.shortUnits:
		mask := uint64(shortMask)
		if a.wide {
			mask = ^uint64(0)
		}
		a.shortBuf = shortSet(a.shortBuf[:0], a.units, mask)
		r.short = a.shortBuf
	}
	if a.bh != nil {
		a.bandBuf = a.bh.appendBands(a.bandBuf[:0], r.sig, r.short)
		r.bands = a.bandBuf
	}
	return r
}

// The units that mark the start and the end of a text in its short set.
// They are part of the persisted format.
const (
	shortStart = 0x9e3779b97f4a7c15
	shortEnd   = 0xc2b2ae3d27d4eb4f
)

// shortSet appends to dst the short set of a text of units, sorted and
// without repeats: the hash (shingle.Combine) of each pair of adjacent
// units, with a start mark before the first unit and an end mark after the
// last, so that a text of n units has n+1 pairs (fewer if some repeat) and
// a unit changed anywhere changes 2 of them. Each hash is and'ed with mask
// (shortMask in an index that is not wide, all ones in a wide one) before
// the set is made. Cost: O(n log n) for n units.
func shortSet(dst, units []uint64, mask uint64) []uint64 {
	n := len(dst)
	var p [2]uint64
	p[1] = shortStart
	for _, u := range units {
		p[0], p[1] = p[1], u
		dst = append(dst, shingle.Combine(p[:])&mask)
	}
	p[0], p[1] = p[1], shortEnd
	dst = append(dst, shingle.Combine(p[:])&mask)
	return dst[:n+len(shingle.Set(dst[n:]))]
}

// shortMask16 keeps the bits of a short-set value of an index created by
// schema 14 or later (see bands.go).
const shortMask16 = 1<<16 - 1

// boundedShortSet appends to dst the short set of a text of units, of
// 16-bit values (shortSet with shortMask16), if it has at most
// a.shortUnits+1 values, and reports whether it did: a text of at most
// ShortUnits units always has one, a longer one if it repeats its pairs of
// units. Cost: that of shortSet for a short text; for a longer one a hash
// and a bit test a unit, until the set outgrows the bound (after about
// ShortUnits units of a text that does not repeat itself).
func (a *analyzer) boundedShortSet(dst, units []uint64) ([]uint64, bool) {
	if len(units) <= a.shortUnits {
		return shortSet(dst, units, shortMask16), true
	}
	if a.seen == nil {
		a.seen = new([1 << 16 / 64]uint64)
	}
	n, limit := len(dst), a.shortUnits+1
	add := func(p [2]uint64) bool {
		v := shingle.Combine(p[:]) & shortMask16
		if a.seen[v/64]&(1<<(v%64)) == 0 {
			a.seen[v/64] |= 1 << (v % 64)
			dst = append(dst, v)
		}
		return len(dst)-n <= limit
	}
	ok := true
	p := [2]uint64{0, shortStart}
	for _, u := range units {
		p[0], p[1] = p[1], u
		if ok = add(p); !ok {
			break
		}
	}
	if ok {
		ok = add([2]uint64{p[1], shortEnd})
	}
	for _, v := range dst[n:] {
		a.seen[v/64] = 0
	}
	if !ok {
		return dst[:n], false
	}
	slices.Sort(dst[n:])
	return dst, true
}

// estimateJaccard returns the Jaccard similarity estimated from two MinHash
// signatures of equal length.
func estimateJaccard(a, b []uint64) float64 { return shingle.Estimate(a, b) }

// Fingerprinter computes what an index with given settings would store
// about a document, without an index: its fingerprint, and its MinHash
// signature and band hashes when the settings have the MinHash layer. For
// printing and comparing fingerprints and for measuring recall. It is not
// safe for concurrent use.
type Fingerprinter struct {
	a        *analyzer
	set      []uint64
	settings Settings
}

// NewFingerprinter returns a Fingerprinter for settings s (nil means the
// defaults), or an error wrapping ErrSettings.
func NewFingerprinter(s *Settings) (*Fingerprinter, error) {
	var n Settings
	if s != nil {
		n = *s
	}
	n, err := n.normalize()
	if err != nil {
		return nil, err
	}
	a, err := makeAnalyzer(&n)
	if err != nil {
		return nil, err
	}
	return &Fingerprinter{a: a, settings: n.public()}, nil
}

// Settings returns the settings of f with every default filled in, as
// Index.Settings returns them.
func (f *Fingerprinter) Settings() Settings {
	s := f.settings
	s.Design.Blocks = slices.Clone(s.Design.Blocks)
	return s
}

// Sum64 returns the 64-bit simhash fingerprint of text. Cost: O(len(text)).
func (f *Fingerprinter) Sum64(text []byte) uint64 { return f.a.analyze(text).fp }

// Analyze returns the fingerprint of text and, with the MinHash layer, its
// signature and band hashes (nil otherwise), valid until the next call:
// 8 bits of a hash of each MinHash value and its position (16 for the
// settings of an index created by schema 10 to 12), and band hashes of
// them with their leading g+24 bits, g the width of the band groups, 38 to
// 48 (38 at the default ExpectedDocs; at least 40 for the settings of an
// index created by schema 13 or 14, 48 for those of one created by schema
// 10 to 12; see docs/index.md, schemas 10, 13 and 15), as an index created
// with f's settings stores them. Cost:
// O(len(text)).
func (f *Fingerprinter) Analyze(text []byte) (fp uint64, sig, bands []uint64) {
	r := f.a.analyze(text)
	return r.fp, r.sig, r.bands
}

// Set returns the set of hashes of text under a set method (MethodNshash:
// the hashes of the longest sentences; MethodShort: of the longest words),
// sorted and without repeats, valid until the next call; nil for the other
// methods. Cost: O(len(text)) plus a sort.
func (f *Fingerprinter) Set(text []byte) []uint64 { return f.a.analyze(text).set }

// Short returns the short set of text (see Settings.ShortUnits), sorted
// and without repeats, valid until the next call: nil without the
// short-text layer or for a text of more than ShortUnits units. Two texts
// that both have one are compared by the Jaccard similarity of their short
// sets (shingle.Jaccard). Cost: O(len(text)).
func (f *Fingerprinter) Short(text []byte) []uint64 { return f.a.analyze(text).short }

// Shingles returns the set of shingle hashes of text under the settings'
// shingle options (sorted, without repeats; see shingle.Jaccard), valid
// until the next call. Cost: O(len(text) log len(text)).
func (f *Fingerprinter) Shingles(text []byte) []uint64 {
	o := f.a.tok.Options()
	f.a.units = f.a.tok.AppendUnits(f.a.units[:0], text)
	f.set = shingle.Set(o.SampleHashes(shingle.AppendShingles(f.set[:0], f.a.units, o.Size, o.Step())))
	return f.set
}
