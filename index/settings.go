package index

import (
	"fmt"
	"hash/fnv"
	"reflect"
)

// Settings decide what an index stores. They are fixed when the index is
// created and persisted in it with the schema version.
//
// Zero fields select defaults, so a Settings literal names only what it
// changes. Because zero selects the default, MaxDistance 0 is written as
// ZeroDistance.
type Settings struct {
	// MaxDistance is k, the largest Hamming distance between 64-bit
	// fingerprints the permuted tables answer exactly, 0 to MaxMaxDistance.
	// Zero means DefaultMaxDistance (3); ZeroDistance means 0. Queries may
	// ask for less, never more. Each step up multiplies the number of
	// tables (see Design) and so the index size and load time.
	MaxDistance int `json:"max_distance"`

	// ExpectedDocs is the corpus size the table design is chosen for. Zero
	// means DefaultExpectedDocs (1,000,000). An index works at any size, but
	// queries slow down and online adds write more as the corpus grows far
	// beyond this (about 10x).
	ExpectedDocs int `json:"expected_docs"`

	// MinHash says the index has the MinHash layer: a signature per
	// document, stored with it, and a band index for candidates by
	// estimated Jaccard similarity (QueryOptions.MinSimilarity). The layer
	// is on by default with MethodSimhash (the default method), off by
	// default with MethodDOM (whose similarity is the page's structure, not
	// its words) and MethodMfonda (kept bit-for-bit compatible with that
	// library's answers), and never there with the set methods
	// (MethodNshash, MethodShort), which have their own postings. After
	// normalization (DefaultSettings, Index.Settings) MinHash reports
	// whether the index has the layer. It costs MinHashK bytes per
	// document in its record (8 bits of each value) and about 6
	// bytes per band and document in the band postings, and the
	// short-text layer 2 bytes per word of a short text and ShortBands
	// bands more (a short text of at most ShortUnits/2 or so words has
	// no signature bands): 2.9 to 5.0x the disk of an index without it
	// in corpora of a few thousand documents, 3.6x on a million short
	// texts (392 against 108 bytes a document), and more indexing time
	// (see docs/benchmarks.md, which also gives the accuracy figures that
	// made it the default).
	MinHash bool `json:"minhash"`

	// NoMinHash leaves out the MinHash layer: queries then find documents
	// by fingerprint distance alone. It cannot be combined with MinHash.
	NoMinHash bool `json:"-"`

	// MinHashK is the number of MinHash values per signature; zero means
	// DefaultMinHashK (84). Used only with MinHash.
	MinHashK int `json:"minhash_k"`

	// Bands is the number of LSH bands the signature is split into; it must
	// divide MinHashK. Zero means DefaultBands (14). Used only with MinHash.
	// Keep at least 4 rows a band (MinHashK/Bands; 6 by default): a band
	// of r rows of the 8-bit values of an index created by schema 13 has
	// 8r bits, so with fewer unrelated documents share a band with
	// probability about 2^-8r, and queries and Pairs meet many false
	// candidates, which the similarity rejects.
	Bands int `json:"bands"`

	// MinBands is the fewest bands a document found through the band
	// postings must share with the query to be a candidate: 1 (the
	// default) takes any shared band, 2 with the default 14 bands is
	// Broder's "share at least 2 of 14 supershingles" rule. 1 to Bands;
	// used only with MinHash.
	MinBands int `json:"min_bands,omitempty"`

	// ShortUnits turns on the short-text layer of an index with MinHash:
	// every text of at most ShortUnits units (words, or characters with
	// the Chars unit) also gets its short set, the hashes of its pairs of
	// adjacent units with a start and an end mark (a text of n units has
	// n+1), stored in its record, and ShortBands band hashes of it in the
	// band postings; so does a longer text whose set has at most
	// ShortUnits+1 values (one that repeats a few words over and over).
	// Two texts that both have a short set are compared by the exact
	// Jaccard similarity of their short sets, not by the estimate of the
	// signatures over longer shingles: one changed word of an 8-word text
	// leaves 7 of 11 pairs (0.64), where it leaves none of the 5-word
	// shingles. A short text and a longer one are compared by their
	// signatures, as all texts are without the layer; a text whose short
	// set has at most (ShortUnits+1)/2 values has no signature bands,
	// since its shingles' Jaccard similarity with a text without a short
	// set is below 1/2 (see docs/methods.md; with overlapping shingles of
	// 2 units or more, all kept, as by default). Zero means
	// DefaultShortUnits (60) with MinHash; NoShortLayer leaves the layer
	// out, as it is without MinHash; at most MaxShortUnits. It costs a
	// short text 2*(n+1) bytes for its set and the postings of its
	// ShortBands bands (and saves those of the signature's Bands for most
	// short texts). An index created by schema 7 to 13 keeps its layer:
	// sets of texts of at most ShortUnits units, of 32-bit values, and
	// every text with its signature bands. Schema 7: an index created
	// before has no short-text layer.
	ShortUnits int `json:"short_units"`

	// ShortBands is the number of band hashes of a short set, each over
	// ShortRows MinHash values of it. Zero means DefaultShortBands (20)
	// with the short-text layer; 1 to 254-Bands.
	ShortBands int `json:"short_bands,omitempty"`

	// ShortRows is the number of MinHash values of a short set per band.
	// Zero means DefaultShortRows (3) with the short-text layer; 1 to 16.
	// Two short sets of Jaccard similarity J share a band with
	// probability 1-(1-J^ShortRows)^ShortBands: 0.992 at J = 0.6 with
	// the defaults.
	ShortRows int `json:"short_rows,omitempty"`

	// StoreShingles keeps the shingle set of every text document (the set
	// whose Jaccard similarity MinHash estimates), so that
	// QueryOptions.Verify can replace the estimate by the exact
	// similarity. It costs 7 to 9 bytes per distinct shingle of each
	// document (about the size of the text) and a sort of each text's
	// shingles when it is added (see docs/benchmarks.md). Schema 5.
	StoreShingles bool `json:"store_shingles,omitempty"`

	// Text are the text-pipeline settings: how text is canonicalized,
	// shingled and fingerprinted.
	Text TextSettings `json:"text"`

	// Design is the permuted-table design. Zero means
	// DesignFor(MaxDistance, ExpectedDocs), which is what it should be
	// unless you have measured otherwise.
	Design Design `json:"design"`

	// wide marks the analysis of an index created before schema 10, which
	// keeps 64-bit signature values, short sets and band hashes (see
	// bands.go); Open sets it from the stored settings, which then have no
	// signature_bits. An index created with it (from the Settings of such
	// an index) is wide too.
	wide bool

	// sig16 marks the analysis of an index created by schema 10 to 12,
	// which keeps 16 bits of each signature value where schema 13 keeps 8,
	// and 48 bits of each band hash, in band groups of that schema (see
	// bands.go and bandgroups.go); Open sets it from the stored settings'
	// signature_bits. An index created with it is so too.
	sig16 bool

	// shortV1 marks the short-text layer of an index created by schema 7
	// to 13: a text has a short set when it has at most ShortUnits
	// units, of 32-bit values (64 in a wide index), and every text has
	// the bands of its signature. From schema 14 on (short_layer 2 in the
	// stored settings), a text has a short set when the set has at most
	// ShortUnits+1 values (so a long text that repeats a few words has one
	// too), of 16-bit values, and a text whose short set has at most half
	// that has no signature bands (see bands.go). Open sets it from stored
	// settings without short_layer; an index created with it is so too,
	// and so is a wide or sig16 one.
	shortV1 bool

	// groups16 marks the band groups of an index created by schema 13 or
	// 14 with MinHash: about 16 hashes a group at the expected size, and
	// band hashes of at least 40 bits, where schema 15 makes groups of
	// about 64 and hashes of at least 38 bits (see bandgroups.go). Open
	// sets it from the form of the stored band groups; an index created
	// with it is so too.
	groups16 bool
}

// tagged reports whether an index of normalized settings s keeps the band
// groups of schema 13: tagged entries and band hashes of bandHashMask's
// bits (see bandgroups.go). An index created before, or made with the
// settings of one (wide or sig16), keeps those of its schema.
func (s *Settings) tagged() bool { return !s.wide && !s.sig16 }

// ShortLayer returns the version of the short-text layer of an index of
// settings s with the layer (Index.Settings): 1 in an index created by
// schema 7 to 13 (texts of at most ShortUnits units have a short set of
// 32-bit values, and every text its signature bands), 2 in one created by
// schema 14 or later (see ShortUnits). Settings not yet made an index's
// describe version 2.
func (s Settings) ShortLayer() int {
	if s.shortV1 {
		return 1
	}
	return 2
}

// groupForm returns the form of the band groups of an index created with
// normalized settings s: large (schema 15) where it is tagged, listed
// (schema 14) where it has the groups of schema 13 or 14, untagged
// otherwise. Listed entries are those of tagged groups with postings of a
// few documents as lists; large groups hold listed entries, about four
// times as many a group, of band hashes of fewer bits (bandHashBits).
func (s *Settings) groupForm() byte {
	switch {
	case !s.tagged():
		return groupsUntagged
	case s.groups16:
		return groupsListed
	}
	return groupsLarge
}

// bandGroups returns the width and form of the band groups of an index
// created with normalized settings s.
func (s *Settings) bandGroups() (g int, form byte) {
	form = s.groupForm()
	return bandGroupBits(s.ExpectedDocs, form), form
}

// signatureBits returns the bits of each signature value that the records
// of an index of normalized settings s with MinHash hold: 32 in a wide
// index, 16 in one created by schema 10 to 12, 8 from schema 13 on.
func (s *Settings) signatureBits() int {
	switch {
	case s.wide:
		return 32
	case s.sig16:
		return 16
	}
	return 8
}

// DefaultSettings returns the settings an index is created with when
// Options.Settings is nil, with every default filled in.
func DefaultSettings() Settings {
	s, _ := (&Settings{}).normalize()
	return s
}

// normalize returns s with defaults filled in and MaxDistance as a real
// distance (never ZeroDistance), or an error wrapping ErrSettings.
func (s *Settings) normalize() (Settings, error) {
	n := *s
	if n.wide || n.sig16 {
		n.shortV1 = true // the analysis of schema 13 and before
	}
	switch {
	case n.MaxDistance == 0:
		n.MaxDistance = DefaultMaxDistance
	case n.MaxDistance == ZeroDistance:
		n.MaxDistance = 0
	case n.MaxDistance < 0 || n.MaxDistance > MaxMaxDistance:
		return n, fmt.Errorf("%w: max distance %d not in 0..%d", ErrSettings, n.MaxDistance, MaxMaxDistance)
	}
	if n.ExpectedDocs == 0 {
		n.ExpectedDocs = DefaultExpectedDocs
	}
	if n.ExpectedDocs < 0 {
		return n, fmt.Errorf("%w: expected docs %d < 0", ErrSettings, n.ExpectedDocs)
	}
	switch {
	case n.MinHash && n.NoMinHash:
		return n, fmt.Errorf("%w: both MinHash and NoMinHash are set", ErrSettings)
	case n.MinHash && n.Text.Method.IsSet():
		return n, fmt.Errorf("%w: the %s method has its own postings and similarity; the MinHash layer is for simhash, dom and mfonda", ErrSettings, n.Text.Method)
	case (n.MinHashK != 0 || n.Bands != 0 || n.MinBands != 0) && (n.NoMinHash || n.Text.Method.IsSet()):
		return n, fmt.Errorf("%w: minhash k, bands and min bands need the MinHash layer", ErrSettings)
	}
	n.MinHash = n.MinHash || (!n.NoMinHash && n.Text.Method.defaultMinHash())
	n.NoMinHash = !n.MinHash
	if n.MinHash {
		if n.MinHashK == 0 {
			n.MinHashK = DefaultMinHashK
		}
		if n.Bands == 0 {
			n.Bands = DefaultBands
		}
		if n.MinHashK < 1 || n.MinHashK > 1024 {
			return n, fmt.Errorf("%w: minhash k %d not in 1..1024", ErrSettings, n.MinHashK)
		}
		if n.Bands < 1 || n.Bands > 255 || n.MinHashK%n.Bands != 0 {
			return n, fmt.Errorf("%w: bands %d must be in 1..255 and divide minhash k %d", ErrSettings, n.Bands, n.MinHashK)
		}
		if n.MinBands == 0 {
			n.MinBands = 1
		}
		if n.MinBands < 1 || n.MinBands > n.Bands {
			return n, fmt.Errorf("%w: min bands %d not in 1..%d (bands)", ErrSettings, n.MinBands, n.Bands)
		}
	} else {
		n.MinHashK, n.Bands, n.MinBands = 0, 0, 0
	}
	switch {
	case n.ShortUnits == NoShortLayer || (n.ShortUnits == 0 && !n.MinHash):
		if n.ShortBands != 0 || n.ShortRows != 0 {
			return n, fmt.Errorf("%w: short bands and short rows need the short-text layer", ErrSettings)
		}
		n.ShortUnits = NoShortLayer
		n.shortV1 = n.wide || n.sig16 // no layer: the flag means nothing
	case !n.MinHash:
		return n, fmt.Errorf("%w: the short-text layer needs the MinHash layer", ErrSettings)
	default:
		if n.ShortUnits == 0 {
			n.ShortUnits = DefaultShortUnits
		}
		if n.ShortBands == 0 {
			n.ShortBands = DefaultShortBands
		}
		if n.ShortRows == 0 {
			n.ShortRows = DefaultShortRows
		}
		switch {
		case n.ShortUnits < 1 || n.ShortUnits > MaxShortUnits:
			return n, fmt.Errorf("%w: short units %d not in 1..%d", ErrSettings, n.ShortUnits, MaxShortUnits)
		case n.ShortBands < 1 || n.Bands+n.ShortBands > 254:
			return n, fmt.Errorf("%w: short bands %d not in 1..%d (254 - bands)", ErrSettings, n.ShortBands, 254-n.Bands)
		case n.ShortRows < 1 || n.ShortRows > 16:
			return n, fmt.Errorf("%w: short rows %d not in 1..16", ErrSettings, n.ShortRows)
		}
	}
	text, err := n.Text.normalize()
	if err != nil {
		return n, err
	}
	n.Text = text
	if n.Design.isZero() {
		n.Design = DesignFor(n.MaxDistance, n.ExpectedDocs)
	} else {
		n.Design.Blocks = append([]int(nil), n.Design.Blocks...)
	}
	if err := n.Design.validate(n.MaxDistance); err != nil {
		return n, err
	}
	return n, nil
}

// public returns normalized settings in the form Open accepts back:
// MaxDistance 0 as ZeroDistance.
func (s Settings) public() Settings {
	if s.MaxDistance == 0 {
		s.MaxDistance = ZeroDistance
	}
	s.Design.Blocks = append([]int(nil), s.Design.Blocks...)
	return s
}

// conflicts reports the first field set in the caller's settings u that
// differs from the stored, normalized settings st.
func (u *Settings) conflicts(st Settings) error {
	bad := func(name string, want, have any) error {
		return fmt.Errorf("%w: index was created with %s %v, not %v", ErrSettingsConflict, name, have, want)
	}
	if u.MaxDistance != 0 {
		k := u.MaxDistance
		if k == ZeroDistance {
			k = 0
		}
		if k != st.MaxDistance {
			return bad("max distance", k, st.MaxDistance)
		}
	}
	if u.ExpectedDocs != 0 && u.ExpectedDocs != st.ExpectedDocs {
		return bad("expected docs", u.ExpectedDocs, st.ExpectedDocs)
	}
	if u.MinHash && !st.MinHash {
		return bad("minhash", true, false)
	}
	if u.NoMinHash && st.MinHash {
		return bad("minhash", false, true)
	}
	if u.MinHashK != 0 && u.MinHashK != st.MinHashK {
		return bad("minhash k", u.MinHashK, st.MinHashK)
	}
	if u.Bands != 0 && u.Bands != st.Bands {
		return bad("bands", u.Bands, st.Bands)
	}
	if u.MinBands != 0 && u.MinBands != st.MinBands {
		return bad("min bands", u.MinBands, st.MinBands)
	}
	if u.ShortUnits != 0 && u.ShortUnits != st.ShortUnits {
		return bad("short units", u.ShortUnits, st.ShortUnits)
	}
	if u.ShortBands != 0 && u.ShortBands != st.ShortBands {
		return bad("short bands", u.ShortBands, st.ShortBands)
	}
	if u.ShortRows != 0 && u.ShortRows != st.ShortRows {
		return bad("short rows", u.ShortRows, st.ShortRows)
	}
	if u.StoreShingles && !st.StoreShingles {
		return bad("store shingles", true, false)
	}
	if !reflect.ValueOf(u.Text).IsZero() {
		text, err := u.Text.normalize()
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(text, st.Text) {
			return bad("text settings", text, st.Text)
		}
	}
	if !u.Design.isZero() && !reflect.DeepEqual(u.Design, st.Design) {
		return bad("design", u.Design, st.Design)
	}
	return nil
}

// analysisKey returns a hash of the normalized settings s that the
// analysis of a text depends on (its text settings, MinHash shape and the
// bits of a band hash it keeps), so
// that AddProbed knows a probe made under other settings. The settings are
// plain values, printed in full by %+v. Cost: a formatting of s.Text, once
// per Open.
func analysisKey(s *Settings) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%+v", struct {
		Text     TextSettings
		MinHash  bool
		K, Bands int
		Shingles bool
		Short    [3]int
		Wide     bool
		Sig16    bool
		Keep     uint64
		ShortV1  bool
	}{s.Text, s.MinHash, s.MinHashK, s.Bands, s.StoreShingles, [3]int{s.ShortUnits, s.ShortBands, s.ShortRows}, s.wide, s.sig16, bandHashKeep(s), s.shortV1})
	return h.Sum64() | 1 // never 0, the key of a fingerprint probe
}

// hasShort reports whether normalized settings s have the short-text
// layer.
func (s *Settings) hasShort() bool { return s.ShortUnits > 0 }

// bandSlots returns the number of band slots of normalized settings s: the
// Bands of the signature, then the ShortBands of the short-text layer.
func (s *Settings) bandSlots() int {
	if s.hasShort() {
		return s.Bands + s.ShortBands
	}
	return s.Bands
}
