package shingle

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Tokenizer canonicalizes text and splits it into tokens. Its buffers are
// reused from one text to the next, so a Tokenizer that has warmed up
// allocates nothing for plain text (markup removal allocates inside the HTML
// tokenizer). A Tokenizer is not safe for concurrent use; use one per
// goroutine.
type Tokenizer struct {
	opts   Options
	slow   bool       // take the general paths only, for tests of the fast ones
	skip   *[256]bool // the ASCII bytes next skips before a token
	caser  cases.Caser
	stop   map[string]bool // stop words, nil for none
	plural []byte          // folded plural
	sub    *Tokenizer      // tokenizes sentences of normalized text
	units  []uint64        // unit hashes of a sentence
	html   markupStripper
	nfkc   norm.Iter

	src  []byte // text being tokenized (after markup removal and NFKC)
	pos  int    // next byte of src to read
	pend []byte // folded token bytes still to be emitted (over-long tokens)
	solo bool   // the last token returned was from a script written without spaces

	// A run of characters of a script written without spaces, cut into
	// overlapping grams of opts.Gram characters.
	run     []byte // the characters (folded), each with its combining marks
	runEnds []int  // runEnds[i] is the end in run of character i
	runNext int    // the character the next gram starts at; -1: no run
	runMore bool   // the run was cut at maxRun characters and goes on in src
	pbuf    []byte // run after phrase folding (swapped with run)
	pends   []int  // runEnds of pbuf

	mbuf []byte // markup-free text
	nbuf []byte // normalized text
	vbuf []byte // text with invalid UTF-8 replaced
	tok  []byte // token being built
	fbuf []byte // folded token
	out  []byte // token returned to the caller
}

// NewTokenizer returns a Tokenizer for opts (nil means the defaults), or an
// error if opts is invalid.
func NewTokenizer(opts *Options) (*Tokenizer, error) {
	o, err := opts.Normalized()
	if err != nil {
		return nil, err
	}
	stop, err := stopSet(o.StopWords)
	if err != nil {
		return nil, err
	}
	return newTokenizer(o, stop), nil
}

// newTokenizer returns a Tokenizer for the normalized options o and the
// stop words stop.
func newTokenizer(o Options, stop map[string]bool) *Tokenizer {
	twoByteOnce.Do(buildTwoByte)
	skip := &asciiSep
	if o.KeepPunct {
		skip = &asciiSpace
	}
	return &Tokenizer{opts: o, skip: skip, caser: cases.Fold(), stop: stop}
}

// Options returns the tokenizer's options with every default made explicit.
func (t *Tokenizer) Options() Options { return t.opts }

// Reset starts tokenizing text: markup is removed and the text normalized
// here, in O(len(text)). Text may be any bytes, valid UTF-8 or not. The
// Tokenizer keeps no reference to text after the last call to Next.
func (t *Tokenizer) Reset(text []byte) {
	src := text
	if t.opts.Markup == MarkupStrip || t.opts.Markup == MarkupAuto && looksLikeMarkup(src) {
		t.mbuf = t.html.strip(t.mbuf[:0], src)
		src = t.mbuf
	}
	if !t.opts.NoNormalize && !isNFKC(src) {
		if !utf8.Valid(src) {
			// Invalid bytes separate tokens anyway; as spaces they cannot
			// hide the segments around them from the normalizer.
			t.vbuf = appendValid(t.vbuf[:0], src)
			src = t.vbuf
		}
		t.nbuf = t.normalize(t.nbuf[:0], src)
		src = t.nbuf
	}
	t.src, t.pos, t.pend, t.solo, t.runNext = src, 0, nil, false, -1
}

// appendValid appends src to dst with every byte that is not part of valid
// UTF-8 replaced by a space.
func appendValid(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, ' ')
		} else {
			dst = append(dst, src[i:i+n]...)
		}
		i += n
	}
	return dst
}

// maxRun is the number of characters of a no-space run gathered at once; a
// longer run is gathered in pieces that overlap by Gram-1 characters, so it
// gives the same grams.
const maxRun = 64

// gatherRun appends to t.run the characters of scripts written without
// spaces that start at t.pos, each with its combining marks, Han characters
// folded to one variant, up to maxRun characters in all.
func (t *Tokenizer) gatherRun() {
	src, i := t.src, t.pos
	t.runMore = false
	fold := !t.opts.NoHanFold
	for i < len(src) && src[i] >= utf8.RuneSelf {
		r, ok := decodeThreeByte(src, i)
		size := 3
		if !ok || !isCommonSolo(r) {
			r, size = decodeRune(src[i:])
			if classify(r) != cSolo {
				break
			}
		}
		if len(t.runEnds) == maxRun {
			t.runMore = true
			break
		}
		if fold {
			r = foldHan(r)
		}
		t.run = utf8.AppendRune(t.run, r)
		i += size
		for n := 0; i < len(src) && src[i] >= utf8.RuneSelf && n < 8; n++ {
			if r, ok := decodeThreeByte(src, i); ok && isCommonSolo(r) {
				break
			}
			r, size := decodeRune(src[i:])
			if classify(r) != cMark {
				break
			}
			t.run = append(t.run, src[i:i+size]...)
			i += size
		}
		t.runEnds = append(t.runEnds, len(t.run))
	}
	t.pos = i
	if fold {
		t.foldPhrases()
	}
}

// isCommonSolo reports whether r is one of the common letters of scripts
// written without spaces that classify classifies first: a CJK ideograph
// of the main block, a hiragana or a katakana letter.
func isCommonSolo(r rune) bool {
	return uint32(r-0x4E00) <= 0x9FFF-0x4E00 || uint32(r-0x3041) <= 0x3096-0x3041 ||
		uint32(r-0x30A1) <= 0x30FA-0x30A1
}

// nextGram returns the next gram of the current run, or ok == false when
// the run is exhausted. A run shorter than a gram is one token.
func (t *Tokenizer) nextGram() ([]byte, bool) {
	n := t.opts.Gram
	for {
		chars := len(t.runEnds)
		if t.runNext == 0 && chars < n && chars > 0 {
			t.runNext = -1
			t.solo = true
			return t.run, true
		}
		if t.runNext+n <= chars {
			start := 0
			if t.runNext > 0 {
				start = t.runEnds[t.runNext-1]
			}
			end := t.runEnds[t.runNext+n-1]
			t.runNext++
			t.solo = true
			return t.run[start:end], true
		}
		if !t.runMore {
			t.runNext = -1
			return nil, false
		}
		// Keep the last n-1 characters and gather the rest of the run.
		keep := chars - (n - 1)
		from := 0
		if keep > 0 {
			from = t.runEnds[keep-1]
		}
		t.run = append(t.run[:0], t.run[from:]...)
		k := 0
		for _, e := range t.runEnds[keep:] {
			t.runEnds[k] = e - from
			k++
		}
		t.runEnds = t.runEnds[:k]
		t.runNext = 0
		t.gatherRun()
	}
}

// Solo reports whether the token last returned by Next is a single character
// of a script written without spaces (Han, Kana, Thai, ...).
func (t *Tokenizer) Solo() bool { return t.solo }

// Next returns the next canonical token of the text given to Reset, or
// ok == false at the end. The token is valid until the next call to Next or
// Reset and must not be modified: it may share memory with the text. Tokens
// are never empty and never longer than MaxTokenLen bytes. Cost: O(length of
// the token and the separators before it).
func (t *Tokenizer) Next() (tok []byte, ok bool) {
	if t.stop == nil && !t.opts.FoldPlurals {
		return t.next()
	}
	for {
		tok, ok := t.next()
		if !ok {
			return nil, false
		}
		if t.stop[string(tok)] {
			continue
		}
		if t.opts.FoldPlurals {
			folded := foldPlural(tok, t.plural)
			if &folded[0] != &tok[0] {
				t.plural = folded // keep the grown buffer
			}
			tok = folded
			if t.stop[string(tok)] {
				continue
			}
		}
		return tok, true
	}
}

// next returns the next token before stop words and plurals.
func (t *Tokenizer) next() (tok []byte, ok bool) {
	if len(t.pend) > 0 {
		return t.emitPending(), true
	}
	if t.runNext >= 0 {
		if tok, ok := t.nextGram(); ok {
			return tok, true
		}
	}
	src, i := t.src, t.pos
	if t.slow {
		return t.nextSlow(i)
	}
	// Fast path: skip ASCII separators (white space, and punctuation unless
	// it is kept), then take an ASCII word that ends at a plain separator
	// without copying it.
	skip := t.skip
	for i < len(src) && skip[src[i]] {
		i++
	}
	start, end := i, min(len(src), i+MaxTokenLen)
	var seen uint8 // the asciiWord values of the word's bytes, or'ed
	for i < end {
		w := asciiWord[src[i]]
		if w == 0 {
			break
		}
		seen |= w
		i++
	}
	if i > start && (i == len(src) || i-start == MaxTokenLen || plainEnd(src, i)) {
		t.pos, t.solo = i, false
		if seen&wordUpper == 0 || t.opts.KeepCase {
			return src[start:i], true
		}
		b := t.tok[:0]
		for _, c := range src[start:i] {
			b = append(b, asciiLower[c])
		}
		t.tok = b
		return b, true
	}
	return t.nextSlow(start)
}

// plainEnd reports whether the ASCII word before src[i] ends at src[i]
// without any joining rule: src[i] is white space or punctuation, a '.' or
// ',' not between digits, or an apostrophe not followed by a letter.
func plainEnd(src []byte, i int) bool {
	switch byteKind[src[i]] {
	case kSpace, kPunct:
		return true
	case kNumSep:
		return !isDigit(src[i-1]) || i+1 >= len(src) || !isDigit(src[i+1])
	case kApos:
		if i+1 >= len(src) {
			return true
		}
		k := byteKind[src[i+1]]
		return k != kWord && k != kUpper && k != kHigh
	}
	return false
}

// nextSlow is Next for a token that is not a plain ASCII word: it starts
// reading at src[i].
func (t *Tokenizer) nextSlow(i int) ([]byte, bool) {
	src := t.src
	b := t.tok[:0]
	wide := false  // b holds non-ASCII runes
	simple := true // every non-ASCII rune of b has a form in twoByte
	lower := &asciiLower
	if t.opts.KeepCase {
		lower = &asciiSame
	}
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			k := asciiKind[c]
			if k == kWord {
				if len(b) >= MaxTokenLen {
					break
				}
				b = append(b, lower[c])
				i++
				continue
			}
			if len(b) > 0 {
				if k == kApos && i+1 < len(src) && startsWord(src[i+1:]) {
					i++ // don't -> dont
					continue
				}
				if k == kNumSep && isDigit(b[len(b)-1]) && i+1 < len(src) && isDigit(src[i+1]) &&
					len(b) < MaxTokenLen {
					b = append(b, c) // 3.14, 1,000
					i++
					continue
				}
				break // the separator is read by the next call
			}
			i++
			if k != kSpace && t.opts.KeepPunct {
				t.pos = i
				return t.emit(append(b, c), false, false), true
			}
			continue
		}
		var r rune
		var size, class int
		if r2, ok := decodeTwoByte(src[i:]); ok {
			r, size, class = r2, 2, int(twoByte[r2].class)
		} else {
			r, size = utf8.DecodeRune(src[i:])
			class = classify(r)
		}
		switch class {
		case cWord:
			if len(b)+size > MaxTokenLen {
				goto done
			}
			if size != 2 || twoByte[r].fold == 0 {
				simple = false
			}
			b = append(b, src[i:i+size]...)
			wide = true
			i += size
		case cMark:
			simple = false
			if len(b) == 0 || len(b)+size > MaxTokenLen {
				// A mark with nothing to attach to stands for itself.
				if len(b) > 0 {
					goto done
				}
			}
			b = append(b, src[i:i+size]...)
			wide = true
			i += size
		case cSolo:
			if len(b) > 0 {
				goto done
			}
			t.pos = i
			t.tok = b
			t.runNext, t.run, t.runEnds = 0, t.run[:0], t.runEnds[:0]
			t.gatherRun()
			return t.nextGram()
		case cApos:
			if len(b) > 0 && i+size < len(src) && startsWord(src[i+size:]) {
				i += size
				continue
			}
			fallthrough
		default: // punctuation, symbols, space, invalid UTF-8
			if len(b) > 0 {
				goto done
			}
			i += size
			if t.opts.KeepPunct && r != utf8.RuneError && !unicode.IsSpace(r) && !unicode.IsControl(r) {
				t.pos = i
				return t.emit(append(b, src[i-size:i]...), true, false), true
			}
		}
	}
done:
	t.pos = i
	t.tok = b
	if len(b) == 0 {
		return nil, false
	}
	if wide && simple && !t.opts.KeepCase && !t.slow {
		foldTwoByte(b)
		t.solo = false
		return b, true
	}
	return t.emit(b, wide, false), true
}

// emit finishes the token b: non-ASCII tokens are case folded (and
// renormalized if folding denormalized them); a folded token longer than
// MaxTokenLen is returned in pieces.
func (t *Tokenizer) emit(b []byte, wide, solo bool) []byte {
	t.tok = b
	t.solo = solo
	if !wide || t.opts.KeepCase {
		return b
	}
	t.fbuf = foldInto(t.fbuf[:0], &t.caser, b)
	fixCherokee(t.fbuf)
	if !t.opts.NoNormalize && !isNFKC(t.fbuf) && norm.NFKC.QuickSpan(t.fbuf) < len(t.fbuf) {
		t.nbufTok()
	}
	t.fbuf = foldYo(t.fbuf)
	if len(t.fbuf) <= MaxTokenLen {
		return t.fbuf
	}
	t.pend = t.fbuf
	return t.emitPending()
}

// nbufTok normalizes the folded token in place (through out).
func (t *Tokenizer) nbufTok() {
	t.out = t.normalize(t.out[:0], t.fbuf)
	t.fbuf, t.out = t.out, t.fbuf
}

// normalize appends the NFKC form of src to dst. It copies the spans that
// are already normalized and runs the normalizer only on the segments that
// are not, with the tokenizer's iterator, allocating nothing.
func (t *Tokenizer) normalize(dst, src []byte) []byte {
	for len(src) > 0 {
		q := norm.NFKC.QuickSpan(src)
		dst = append(dst, src[:q]...)
		src = src[q:]
		if len(src) == 0 {
			break
		}
		n := norm.NFKC.NextBoundary(src, true)
		if n <= 0 {
			n = len(src)
		}
		t.nfkc.Init(norm.NFKC, src[:n])
		for !t.nfkc.Done() {
			dst = append(dst, t.nfkc.Next()...)
		}
		src = src[n:]
	}
	return dst
}

// emitPending returns the next piece, at most MaxTokenLen bytes cut at a
// rune boundary, of an over-long folded token.
func (t *Tokenizer) emitPending() []byte {
	p := t.pend
	n := len(p)
	if n > MaxTokenLen {
		n = MaxTokenLen
		for n > 0 && !utf8.RuneStart(p[n]) {
			n--
		}
		if n == 0 {
			n = MaxTokenLen
		}
	}
	t.pend = p[n:]
	return p[:n]
}

// foldInto appends the full Unicode case folding of src to dst.
func foldInto(dst []byte, c *cases.Caser, src []byte) []byte {
	c.Reset()
	for {
		if cap(dst)-len(dst) < len(src)+8 {
			dst = append(dst[:cap(dst)], make([]byte, len(src)*2+16)...)[:len(dst)]
		}
		nDst, nSrc, err := c.Transform(dst[len(dst):cap(dst)], src, true)
		dst = dst[:len(dst)+nDst]
		src = src[nSrc:]
		if err != transform.ErrShortDst {
			return dst
		}
	}
}

// fixCherokee rewrites in place every Cherokee letter of b to its capital,
// which Unicode's case folding maps both cases to. x/text's folding maps
// capitals to small letters and small letters to capitals, which is not
// idempotent. Both cases take three bytes in UTF-8.
func fixCherokee(b []byte) {
	for i := 0; i+3 <= len(b); i++ {
		if b[i] != 0xE1 && b[i] != 0xEA {
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x13A0 && r <= 0x13FD || r >= 0xAB70 && r <= 0xABBF {
			if u := unicode.ToUpper(r); u != r && utf8.RuneLen(u) == n {
				utf8.EncodeRune(b[i:], u)
			}
		}
		i += n - 1
	}
}

// foldYo rewrites every Cyrillic ё of b to е, and drops combining
// diaereses after е, in place: Russian text writes ё and е
// interchangeably. It returns the shortened slice.
func foldYo(b []byte) []byte {
	if bytes.IndexByte(b, 0xD1) < 0 && bytes.IndexByte(b, 0xD0) < 0 {
		return b
	}
	n := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == 0xD1 && i+1 < len(b) && b[i+1] == 0x91 { // ё
			b[n], b[n+1] = 0xD0, 0xB5 // е
			n, i = n+2, i+1
		} else if c == 0xCC && i+1 < len(b) && b[i+1] == 0x88 && n >= 2 && b[n-2] == 0xD0 && b[n-1] == 0xB5 {
			i++ // U+0308 after е
		} else {
			b[n] = c
			n++
		}
	}
	return b[:n]
}

// AppendCanonical appends the canonical form of text to dst: its tokens
// separated by single spaces. Canonicalization is idempotent: the canonical
// form of a canonical form is itself.
func (t *Tokenizer) AppendCanonical(dst, text []byte) []byte {
	t.Reset(text)
	first := true
	for tok, ok := t.Next(); ok; tok, ok = t.Next() {
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		dst = append(dst, tok...)
	}
	return dst
}

// AppendUnits appends to dst the hash of each unit of text, in order: one
// XXH64 hash per token with the Words unit; with the Chars unit one XXH64
// hash per character of the canonical text, where words are separated by one
// space but characters of scripts written without spaces are not. Cost:
// O(len(text)); no allocation once dst and the tokenizer have grown.
func (t *Tokenizer) AppendUnits(dst []uint64, text []byte) []uint64 {
	t.Reset(text)
	if t.opts.Unit == Words {
		for tok, ok := t.Next(); ok; tok, ok = t.Next() {
			dst = append(dst, xxhash.Sum64(tok))
		}
		return dst
	}
	first, prevSolo := true, false
	for tok, ok := t.Next(); ok; tok, ok = t.Next() {
		solo := t.solo
		if !first && !solo && !prevSolo {
			dst = append(dst, spaceHash)
		}
		first, prevSolo = false, solo
		for len(tok) > 0 {
			_, n := utf8.DecodeRune(tok)
			dst = append(dst, xxhash.Sum64(tok[:n]))
			tok = tok[n:]
		}
	}
	return dst
}

var spaceHash = xxhash.Sum64String(" ")

const (
	kSpace uint8 = iota
	kPunct
	kWord
	kApos
	kNumSep
	kUpper // byteKind only: an ASCII capital
	kHigh  // byteKind only: a byte of a non-ASCII rune
)

var asciiKind, asciiLower, asciiSame [utf8.RuneSelf]uint8

// byteKind classifies every byte for the fast path: asciiKind for ASCII,
// with capitals as kUpper, and kHigh for the bytes of non-ASCII runes.
var byteKind [256]uint8

// asciiWord marks the ASCII letters and digits for the fast path:
// wordLower for small letters and digits, wordUpper for capitals, 0 for
// every other byte.
var asciiWord [256]uint8

const (
	wordLower = 1 << iota
	wordUpper
)

// asciiSep holds the ASCII bytes that are never part of a token when
// punctuation is dropped (white space and punctuation), asciiSpace those
// that are never part of one when it is kept (white space).
var asciiSep, asciiSpace [256]bool

func init() {
	for c := range utf8.RuneSelf {
		b := byte(c)
		asciiSame[c] = b
		asciiLower[c] = b
		switch {
		case b >= 'A' && b <= 'Z':
			asciiKind[c] = kWord
			asciiLower[c] = b + 'a' - 'A'
		case b >= 'a' && b <= 'z', b >= '0' && b <= '9':
			asciiKind[c] = kWord
		case b == '\'':
			asciiKind[c] = kApos
		case b == '.' || b == ',':
			asciiKind[c] = kNumSep
		case b <= ' ' || b == 0x7f:
			asciiKind[c] = kSpace
		default:
			asciiKind[c] = kPunct
		}
	}
	for c := range byteKind {
		switch {
		case c >= utf8.RuneSelf:
			byteKind[c] = kHigh
		case c >= 'A' && c <= 'Z':
			byteKind[c] = kUpper
		default:
			byteKind[c] = asciiKind[c]
		}
		switch byteKind[c] {
		case kWord:
			asciiWord[c] = wordLower
		case kUpper:
			asciiWord[c] = wordUpper
		}
		asciiSep[c] = c < utf8.RuneSelf && asciiKind[c] != kWord
		asciiSpace[c] = c < utf8.RuneSelf && asciiKind[c] == kSpace
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// startsWord reports whether b starts with a letter or digit of a
// space-separated script.
func startsWord(b []byte) bool {
	if b[0] < utf8.RuneSelf {
		return asciiKind[b[0]] == kWord
	}
	r, _ := utf8.DecodeRune(b)
	return classify(r) == cWord
}

const (
	cOther = iota // punctuation, symbol, space, control, invalid
	cWord         // letter or number of a space-separated script
	cMark         // combining mark
	cSolo         // letter or number of a script written without spaces
	cApos         // right single quotation mark used as an apostrophe
)

// classify returns the class of the non-ASCII rune r.
func classify(r rune) int {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3041 && r <= 0x3096, r >= 0x30A1 && r <= 0x30FA,
		r >= 0x30FC && r <= 0x30FF:
		return cSolo // common CJK ideographs and kana, without a table lookup
	case r >= 0x0410 && r <= 0x044F, r >= 0xC0 && r <= 0x24F && r != 0xD7 && r != 0xF7:
		return cWord // Cyrillic and Latin letters, likewise
	case r == 0x2019:
		return cApos
	case r == utf8.RuneError:
		return cOther
	}
	if unicode.IsLetter(r) || unicode.IsNumber(r) {
		if noSpaceScript(r) {
			return cSolo
		}
		return cWord
	}
	if unicode.IsMark(r) {
		return cMark
	}
	return cOther
}

// noSpaceScript reports whether the letter or number r belongs to a script
// written without spaces between words.
func noSpaceScript(r rune) bool {
	switch {
	case r < 0x0E00:
		return false
	case r <= 0x0EFF, // Thai, Lao
		r >= 0x1000 && r <= 0x109F, // Myanmar
		r >= 0x1780 && r <= 0x17FF, // Khmer
		r >= 0x2E80 && r <= 0x2FDF, // CJK radicals
		r >= 0x3005 && r <= 0x3007, // 々 〆 〇
		r >= 0x3021 && r <= 0x3029, r >= 0x3031 && r <= 0x3035, r >= 0x3038 && r <= 0x303C,
		r >= 0x3040 && r <= 0x30FF,                             // Hiragana, Katakana
		r >= 0x3100 && r <= 0x312F, r >= 0x31A0 && r <= 0x31FF, // Bopomofo, Katakana ext.
		r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF, r >= 0xF900 && r <= 0xFAFF,
		r >= 0xFF66 && r <= 0xFF9F,   // half-width Katakana
		r >= 0x20000 && r <= 0x3FFFF: // CJK extensions
		return true
	}
	return false
}
