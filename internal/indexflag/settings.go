// Package indexflag defines the flags that set an index's settings when it
// is created (Settings) and those that select the matches of a query
// (Query), and checks them: a value out of range, or flags that do not go
// together, is a usage error (internal/usage) that names the flag.
package indexflag

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/usage"
	"github.com/simidx/simidx/shingle"
	"github.com/simidx/simidx/simhash"
	"github.com/spf13/pflag"
)

// Settings are the flags that set index.Settings when an index is
// created. Only the flags given on the command line are set, so that the
// same flags can be passed when adding to an existing index: a flag that
// differs from the stored settings is an error.
type Settings struct {
	fs   *pflag.FlagSet
	hasK bool

	maxDistance  int
	expectedDocs int
	minHash      bool
	noMinHash    bool
	minHashK     int
	bands        int
	minBands     int
	shortUnits   int
	shingles     bool

	markup      string
	noNormalize bool
	keepCase    bool
	keepPunct   bool
	unit        string
	gram        int
	noHanFold   bool
	stopWords   string
	foldPlurals bool
	sample      uint64
	method      string
	domDecay    float64
	shingleSize int
	features    string
	featureSize int

	sentences    int
	sentenceEnds string
	words        int
	minLetters   int
	minShared    int
	threshold    float64
}

// AddIndex defines the flags of the index structure: -k (unless
// withK is false, for a command whose -k is the query's), the expected size
// and the MinHash layer.
func (s *Settings) AddIndex(fs *pflag.FlagSet, withK bool) {
	s.fs = fs
	s.hasK = withK
	if withK {
		fs.IntVarP(&s.maxDistance, "max-distance", "k", index.DefaultMaxDistance,
			fmt.Sprintf("largest Hamming `distance` the index answers exactly, 0 to %d", index.MaxMaxDistance))
	}
	fs.IntVar(&s.expectedDocs, "expected-docs", index.DefaultExpectedDocs,
		"corpus `size` the table design is chosen for")
	fs.BoolVar(&s.minHash, "minhash", false,
		"add the MinHash layer (estimated Jaccard similarity, --min-similarity) with --method dom or mfonda; --method simhash has it unless --no-minhash")
	fs.BoolVar(&s.noMinHash, "no-minhash", false,
		"leave out the MinHash layer: documents match by fingerprint distance alone, in about an eighth of the disk")
	fs.IntVar(&s.minHashK, "minhash-k", index.DefaultMinHashK,
		"MinHash `values` per document (with the MinHash layer)")
	fs.IntVar(&s.bands, "bands", index.DefaultBands,
		"LSH `bands` of the MinHash signature; must divide --minhash-k")
	fs.IntVar(&s.minBands, "min-bands", 1,
		"`bands` a MinHash band candidate must share (2 of 14 is Broder's supershingle rule)")
	fs.IntVar(&s.shortUnits, "short-units", index.DefaultShortUnits,
		"compare texts of at most `N` words (units), or of at most N+1 distinct pairs of adjacent words, by the exact similarity of those pairs, so that one changed word of a short text is found (the short-text layer, with MinHash); 0 leaves it out")
	fs.BoolVar(&s.shingles, "store-shingles", false,
		"keep each document's shingle set, for --verify (exact similarities); costs about the size of the text on disk")
}

// AddText defines the flags of the text pipeline.
func (s *Settings) AddText(fs *pflag.FlagSet) {
	s.fs = fs
	fs.StringVar(&s.markup, "markup", "auto",
		"markup removal `mode`: auto (when the text has tags), strip or keep")
	fs.BoolVar(&s.noNormalize, "no-normalize", false, "skip Unicode NFKC normalization")
	fs.BoolVar(&s.keepCase, "keep-case", false, "do not fold case")
	fs.BoolVar(&s.keepPunct, "keep-punct", false, "keep punctuation and symbols as tokens")
	fs.StringVar(&s.unit, "unit", "words", "text `unit`: words or chars")
	fs.IntVar(&s.gram, "gram", shingle.DefaultGram,
		"`characters` per token in scripts written without spaces (Chinese, Japanese, Thai)")
	fs.BoolVar(&s.noHanFold, "no-han-fold", false,
		"keep traditional, simplified and variant Han characters apart")
	fs.StringVar(&s.stopWords, "stop-words", "", "drop the stop words of these `languages` (en, ru, en,ru)")
	fs.BoolVar(&s.foldPlurals, "fold-plurals", false, "fold English plurals to singulars (-ies to -y, trailing -s)")
	fs.Uint64Var(&s.sample, "sample-mod", 0, "keep only shingle hashes divisible by `P` (mod-p sampling; 0 keeps all)")
	fs.StringVar(&s.method, "method", "simhash",
		"matching `method`: simhash (of the text), dom (of an HTML page's tag structure), mfonda (mfonda/simhash-compatible), nshash (documents sharing one of their longest sentences) or short (short documents sharing most of their longest words)")
	fs.Float64Var(&s.domDecay, "dom-decay", 0.45, "weight `factor` per level of nesting with --method dom")
	fs.IntVar(&s.shingleSize, "shingle-size", shingle.DefaultSize,
		"`units` per shingle of the MinHash layer")
	fs.StringVar(&s.features, "features", "units+pairs",
		"simhash `features`: units+pairs (every word and every pair of consecutive words, weighted by frequency), units (words alone) or shingles")
	fs.IntVar(&s.featureSize, "feature-size", simhash.DefaultShingleSize,
		"`units` per simhash feature with --features shingles")
	fs.IntVar(&s.sentences, "sentences", index.DefaultSentences,
		"with --method nshash: longest `sentences` hashed per document")
	fs.StringVar(&s.sentenceEnds, "sentence-ends", shingle.DefaultSentenceEnds,
		"with --method nshash: the `characters` that end a sentence")
	fs.IntVar(&s.words, "words", index.DefaultWords,
		"with --method short: longest distinct `words` hashed per document")
	fs.IntVar(&s.minLetters, "min-letters", index.DefaultMinLetters,
		"with --method short: fewest `letters` of a word hashed")
	fs.IntVar(&s.minShared, "min-shared", index.DefaultMinShared,
		"with --method short: fewest `words` two documents share to be compared")
	fs.Float64Var(&s.threshold, "threshold", index.DefaultThreshold,
		"with --method short: least `share` of the shorter document's words in common")
}

func (s *Settings) changed(name string) bool {
	f := s.fs.Lookup(name)
	return f != nil && f.Changed
}

// Build returns the settings named on the command line, or nil if none
// was given.
func (s *Settings) Build() (*index.Settings, error) {
	var st index.Settings
	any := false
	set := func(name string) bool {
		if s.changed(name) {
			any = true
			return true
		}
		return false
	}
	if s.hasK && set("max-distance") {
		switch {
		case s.maxDistance < 0 || s.maxDistance > index.MaxMaxDistance:
			return nil, usage.Errorf("--max-distance must be 0 to %d, not %d", index.MaxMaxDistance, s.maxDistance)
		case s.maxDistance == 0:
			st.MaxDistance = index.ZeroDistance
		default:
			st.MaxDistance = s.maxDistance
		}
	}
	if set("expected-docs") {
		if s.expectedDocs <= 0 {
			return nil, usage.Errorf("--expected-docs must be positive, not %d", s.expectedDocs)
		}
		st.ExpectedDocs = s.expectedDocs
	}
	if set("minhash") {
		st.MinHash = s.minHash
	}
	if set("no-minhash") {
		st.NoMinHash = s.noMinHash
	}
	if st.MinHash && st.NoMinHash {
		return nil, usage.Errorf("--minhash and --no-minhash cannot be used together")
	}
	if set("minhash-k") {
		if s.minHashK <= 0 {
			return nil, usage.Errorf("--minhash-k must be positive, not %d", s.minHashK)
		}
		st.MinHashK = s.minHashK
	}
	if set("bands") {
		if s.bands <= 0 {
			return nil, usage.Errorf("--bands must be positive, not %d", s.bands)
		}
		st.Bands = s.bands
	}
	if set("min-bands") {
		if s.minBands <= 0 {
			return nil, usage.Errorf("--min-bands must be positive, not %d", s.minBands)
		}
		st.MinBands = s.minBands
	}
	if set("short-units") {
		switch {
		case s.shortUnits < 0 || s.shortUnits > index.MaxShortUnits:
			return nil, usage.Errorf("--short-units must be in 0..%d, not %d", index.MaxShortUnits, s.shortUnits)
		case s.shortUnits == 0:
			st.ShortUnits = index.NoShortLayer
		default:
			st.ShortUnits = s.shortUnits
		}
	}
	if set("store-shingles") {
		st.StoreShingles = s.shingles
	}
	if set("markup") {
		switch strings.ToLower(s.markup) {
		case "auto":
			st.Text.Shingle.Markup = shingle.MarkupAuto
		case "strip":
			st.Text.Shingle.Markup = shingle.MarkupStrip
		case "keep":
			st.Text.Shingle.Markup = shingle.MarkupKeep
		default:
			return nil, usage.Errorf("--markup must be auto, strip or keep, not %q", s.markup)
		}
	}
	if set("no-normalize") {
		st.Text.Shingle.NoNormalize = s.noNormalize
	}
	if set("keep-case") {
		st.Text.Shingle.KeepCase = s.keepCase
	}
	if set("keep-punct") {
		st.Text.Shingle.KeepPunct = s.keepPunct
	}
	if set("unit") {
		switch strings.ToLower(s.unit) {
		case "words", "word":
			st.Text.Shingle.Unit = shingle.Words
		case "chars", "char":
			st.Text.Shingle.Unit = shingle.Chars
		default:
			return nil, usage.Errorf("--unit must be words or chars, not %q", s.unit)
		}
	}
	if set("gram") {
		if s.gram <= 0 || s.gram > shingle.MaxGram {
			return nil, usage.Errorf("--gram must be 1 to %d, not %d", shingle.MaxGram, s.gram)
		}
		st.Text.Shingle.Gram = s.gram
	}
	if set("no-han-fold") {
		st.Text.Shingle.NoHanFold = s.noHanFold
	}
	if set("stop-words") {
		st.Text.Shingle.StopWords = s.stopWords
	}
	if set("fold-plurals") {
		st.Text.Shingle.FoldPlurals = s.foldPlurals
	}
	if set("sample-mod") {
		st.Text.Shingle.Sample = s.sample
	}
	if set("method") {
		switch m := index.Method(strings.ToLower(s.method)); m {
		case index.MethodSimhash, index.MethodDOM, index.MethodMfonda, index.MethodNshash, index.MethodShort:
			st.Text.Method = m
		default:
			return nil, usage.Errorf("--method must be simhash, dom, mfonda, nshash or short, not %q", s.method)
		}
	}
	if set("dom-decay") {
		if !(s.domDecay > 0 && s.domDecay <= 1) {
			return nil, usage.Errorf("--dom-decay must be in (0, 1], not %v", s.domDecay)
		}
		st.Text.DOMDecay = s.domDecay
	}
	if set("shingle-size") {
		if s.shingleSize <= 0 {
			return nil, usage.Errorf("--shingle-size must be positive, not %d", s.shingleSize)
		}
		st.Text.Shingle.Size = s.shingleSize
	}
	if set("features") {
		switch strings.ToLower(s.features) {
		case "units+pairs", "pairs":
			st.Text.Features = simhash.UnitsAndPairs
		case "units", "unit":
			st.Text.Features = simhash.Units
		case "shingles", "shingle":
			st.Text.Features = simhash.Shingles
		default:
			return nil, usage.Errorf("--features must be units+pairs, units or shingles, not %q", s.features)
		}
	}
	if set("feature-size") {
		if s.featureSize <= 0 {
			return nil, usage.Errorf("--feature-size must be positive, not %d", s.featureSize)
		}
		st.Text.FeatureSize = s.featureSize
	}
	if set("sentences") {
		if s.sentences <= 0 || s.sentences > index.MaxSetSize {
			return nil, usage.Errorf("--sentences must be 1 to %d, not %d", index.MaxSetSize, s.sentences)
		}
		st.Text.Sentences = s.sentences
	}
	if set("sentence-ends") {
		if s.sentenceEnds == "" {
			return nil, usage.Errorf("--sentence-ends must not be empty")
		}
		st.Text.SentenceEnds = s.sentenceEnds
	}
	if set("words") {
		if s.words <= 0 || s.words > index.MaxSetSize {
			return nil, usage.Errorf("--words must be 1 to %d, not %d", index.MaxSetSize, s.words)
		}
		st.Text.Words = s.words
	}
	if set("min-letters") {
		if s.minLetters <= 0 {
			return nil, usage.Errorf("--min-letters must be positive, not %d", s.minLetters)
		}
		st.Text.MinLetters = s.minLetters
	}
	if set("min-shared") {
		if s.minShared <= 0 {
			return nil, usage.Errorf("--min-shared must be positive, not %d", s.minShared)
		}
		st.Text.MinShared = s.minShared
	}
	if set("threshold") {
		if !(s.threshold > 0 && s.threshold <= 1) {
			return nil, usage.Errorf("--threshold must be in (0, 1], not %v", s.threshold)
		}
		st.Text.Threshold = s.threshold
	}
	if !any {
		return nil, nil
	}
	// The method's own flags without the method: name it, rather than
	// fail later on the default method.
	switch {
	case st.Text.Method == "" && (st.Text.Sentences != 0 || st.Text.SentenceEnds != ""):
		return nil, usage.Errorf("--sentences and --sentence-ends are for --method nshash")
	case st.Text.Method == "" && (st.Text.Words != 0 || st.Text.MinLetters != 0 || st.Text.MinShared != 0 || st.Text.Threshold != 0):
		return nil, usage.Errorf("--words, --min-letters, --min-shared and --threshold are for --method short")
	}
	return &st, nil
}

// NamedText returns the JSON object of t with its kinds (markup, unit,
// features, MinHash scheme) by name, as simidx stats and the server's
// GET /v1/stats write it.
func NamedText(t index.TextSettings) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(t) // plain values: cannot fail
	json.Unmarshal(b, &m)
	m["features"] = t.Features.String()
	scheme := "one-permutation"
	if t.Scheme == shingle.Mixes {
		scheme = "mixes"
	}
	m["minhash_scheme"] = scheme
	if sh, ok := m["shingle"].(map[string]any); ok {
		sh["markup"] = t.Shingle.Markup.String()
		sh["unit"] = t.Shingle.Unit.String()
	}
	return m
}
