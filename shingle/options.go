package shingle

import "fmt"

// Markup says whether markup is removed from text before tokenizing.
type Markup uint8

const (
	// MarkupAuto removes markup when the text contains an HTML or XML tag.
	// It is the default.
	MarkupAuto Markup = iota
	// MarkupStrip always parses the text as HTML and keeps only its text.
	MarkupStrip
	// MarkupKeep treats the text as plain text: tags are tokenized as words.
	MarkupKeep
)

// Unit is what a shingle is made of.
type Unit uint8

const (
	// Words makes shingles of consecutive tokens. It is the default.
	Words Unit = iota
	// Chars makes shingles of consecutive characters of the canonical
	// text (character n-grams), with one space between words.
	Chars
)

// DefaultGram is the default number of characters per token in scripts
// written without spaces: 1. With word features alone, bigram tokens lift
// simhash F1 on Japanese manual pages only from 0.110 to 0.208 at k = 3;
// the default simhash features pair consecutive units anyway and reach
// 0.331 with single characters (docs/benchmarks.md, "Simhash feature
// choices"). Single characters also let simplified and traditional
// Chinese meet through character folding ("Chinese in two scripts").
const DefaultGram = 1

// MaxGram is the largest Gram accepted.
const MaxGram = 8

// DefaultSize is the default shingle size: 5 units.
const DefaultSize = 5

// MaxSize is the largest shingle size accepted.
const MaxSize = 64

// MaxTokenLen is the longest token kept, in bytes of canonical text. A
// longer run of letters is cut into tokens of at most this length, which
// bounds the memory a tokenizer uses whatever its input.
const MaxTokenLen = 256

// Options selects the canonicalization and shingling steps. The zero value
// (and a nil *Options) means the defaults: markup removed when present, NFKC,
// case folded, punctuation dropped, overlapping 5-word shingles.
//
// Options are persisted by simidx indexes as JSON with these field names.
type Options struct {
	// Markup selects markup removal. Default MarkupAuto.
	Markup Markup `json:"markup"`
	// NoNormalize skips Unicode NFKC normalization.
	NoNormalize bool `json:"no_normalize,omitempty"`
	// KeepCase skips case folding.
	KeepCase bool `json:"keep_case,omitempty"`
	// KeepPunct keeps each punctuation or symbol character as a token of
	// its own instead of dropping it.
	KeepPunct bool `json:"keep_punct,omitempty"`
	// NoHanFold skips folding Han characters to one form of their
	// variants (traditional to simplified, 爲/為, 閑/閒), from Unicode's
	// Unihan data, and Taiwan words to mainland ones (檔案/文件).
	NoHanFold bool `json:"no_han_fold,omitempty"`
	// Gram is the number of characters per token in scripts written without
	// spaces (Han, Kana, Thai, ...): their text becomes overlapping
	// character n-grams, a run shorter than Gram one token. 0 means
	// DefaultGram. With the Chars unit it is always 1.
	Gram int `json:"gram"`
	// StopWords drops the stop words of these comma-separated languages
	// ("en", "ru", "en,ru"), as Broder's shingling does. Default none.
	StopWords string `json:"stop_words,omitempty"`
	// FoldPlurals folds English plurals to singulars (-ies to -y, a
	// trailing -s dropped), as Broder's shingling does.
	FoldPlurals bool `json:"fold_plurals,omitempty"`
	// Sample keeps only the shingle hashes divisible by Sample (mod-p
	// sampling, Broder's way of bounding the features of long documents).
	// 0 or 1 keeps every shingle.
	Sample uint64 `json:"sample,omitempty"`
	// Unit is what shingles are made of. Default Words.
	Unit Unit `json:"unit"`
	// Size is the number of units per shingle. 0 means DefaultSize.
	Size int `json:"size"`
	// Disjoint makes non-overlapping shingles (a step of Size units instead
	// of 1).
	Disjoint bool `json:"disjoint,omitempty"`
}

// Normalized returns a copy of o (nil meaning the defaults) with every
// default made explicit, or an error if a field is out of range.
func (o *Options) Normalized() (Options, error) {
	var n Options
	if o != nil {
		n = *o
	}
	if n.Size == 0 {
		n.Size = DefaultSize
	}
	if n.Size < 1 || n.Size > MaxSize {
		return n, fmt.Errorf("shingle: size %d out of range 1..%d", n.Size, MaxSize)
	}
	if n.Gram == 0 {
		n.Gram = DefaultGram
	}
	if n.Unit == Chars {
		n.Gram = 1
	}
	if n.Gram < 1 || n.Gram > MaxGram {
		return n, fmt.Errorf("shingle: gram %d out of range 1..%d", n.Gram, MaxGram)
	}
	if _, err := stopSet(n.StopWords); err != nil {
		return n, err
	}
	if n.Markup > MarkupKeep {
		return n, fmt.Errorf("shingle: unknown markup mode %d", n.Markup)
	}
	if n.Unit > Chars {
		return n, fmt.Errorf("shingle: unknown unit %d", n.Unit)
	}
	return n, nil
}

// Step returns the distance in units between the starts of consecutive
// shingles: 1, or Size when Disjoint.
func (o Options) Step() int {
	if o.Disjoint {
		return o.Size
	}
	return 1
}

// SampleHashes keeps, in place, the hashes that mod-p sampling keeps (all
// of them when Sample is 0 or 1) and returns them.
func (o Options) SampleHashes(hs []uint64) []uint64 {
	if o.Sample <= 1 {
		return hs
	}
	out := hs[:0]
	for _, h := range hs {
		if h%o.Sample == 0 {
			out = append(out, h)
		}
	}
	return out
}

func (m Markup) String() string {
	switch m {
	case MarkupAuto:
		return "auto"
	case MarkupStrip:
		return "strip"
	case MarkupKeep:
		return "keep"
	}
	return fmt.Sprintf("Markup(%d)", uint8(m))
}

func (u Unit) String() string {
	switch u {
	case Words:
		return "words"
	case Chars:
		return "chars"
	}
	return fmt.Sprintf("Unit(%d)", uint8(u))
}
