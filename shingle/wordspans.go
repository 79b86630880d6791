package shingle

import (
	"bytes"
	"iter"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/text/unicode/norm"
)

// Span is a range of bytes [Start, End) of a text.
type Span struct {
	Start, End int
}

// Word is a canonical word of a text: the hash of its canonical bytes and
// the bytes of the original text it was read from.
type Word struct {
	// Hash is the XXH64 hash of the canonical word: its unit hash with the
	// Words unit (see [Tokenizer.AppendUnits]).
	Hash uint64
	// Span is where the word is in the original text.
	Span
}

// AppendWords appends to dst the canonical words of text, in order, with
// their hashes and spans (see [Tokenizer.WordSpans]). Cost: that of
// WordSpans.
func (t *Tokenizer) AppendWords(dst []Word, text []byte) []Word {
	for tok, s := range t.WordSpans(text) {
		dst = append(dst, Word{Hash: xxhash.Sum64(tok), Span: s})
	}
	return dst
}

// WordSpans returns an iterator over the canonical words of text (the
// tokens Next returns after Reset(text), stop words dropped and plurals
// folded as Next does) and the span of text each was read from: the bytes
// from the first to the last byte of the original text that made the
// word. The word is valid until the next iteration and must not be
// modified; the Tokenizer must not be used for anything else until the
// iteration ends.
//
// Spans are exact for plain text. Where markup removal or NFKC
// normalization rewrote the text, a word's span runs from the start of the
// piece of text its first byte came from to the end of the piece its last
// byte came from: a character reference (&eacute;) or a compatibility
// character (ﬁ, ½) is one piece, so a word spans the whole reference, and
// the two words of ½ (1 and 2) span the same byte. A piece of a word cut
// because it was over MaxTokenLen bytes after case folding spans the whole
// word, and a gram of a script written without spaces spans its
// characters; where phrase folding changed the number of characters of a
// run, the folded characters span the run's characters that differ. Spans
// never go back: a word starts and ends no earlier than the word before.
//
// Cost: O(len(text)) for the words, as Next; when markup removal or
// normalization rewrote the text, a second pass over it to map the bytes
// back, with O(len(text)) memory, and O(log len(text)) per word to look
// the map up.
func (t *Tokenizer) WordSpans(text []byte) iter.Seq2[[]byte, Span] {
	return func(yield func([]byte, Span) bool) {
		m := t.resetMapped(text)
		w := runSpans{t: t}
		var last Span // of the last token before filtering
		for {
			p0, pend := t.pos, len(t.pend) > 0
			active, more := t.runNext >= 0, t.runMore
			tok, ok := t.next()
			if !ok {
				return
			}
			switch {
			case pend:
				// A piece of an over-long folded token: its span.
			case t.solo:
				last = w.gram(p0, active && more)
			default:
				last = Span{t.tokenStart(p0, t.pos), t.pos}
			}
			tok, ok = t.filter(tok)
			if !ok {
				continue
			}
			if !yield(tok, m.span(last)) {
				return
			}
		}
	}
}

// filter applies the stop words and plural folding of Next to a token of
// next, and reports whether it is kept.
func (t *Tokenizer) filter(tok []byte) ([]byte, bool) {
	if t.stop == nil && !t.opts.FoldPlurals {
		return tok, true
	}
	if t.stop[string(tok)] {
		return nil, false
	}
	if t.opts.FoldPlurals {
		folded := foldPlural(tok, t.plural)
		if &folded[0] != &tok[0] {
			t.plural = folded // keep the grown buffer
		}
		tok = folded
		if t.stop[string(tok)] {
			return nil, false
		}
	}
	return tok, true
}

// tokenStart returns where in t.src the token that next read from i on,
// ending at end, starts: the first byte next does not skip as a
// separator.
func (t *Tokenizer) tokenStart(i, end int) int {
	src := t.src
	for i < end {
		c := src[i]
		if c < utf8.RuneSelf {
			k := asciiKind[c]
			if k == kWord || t.opts.KeepPunct && k != kSpace {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		switch classify(r) {
		case cWord, cMark, cSolo:
			return i
		}
		if t.opts.KeepPunct && r != utf8.RuneError && !unicode.IsSpace(r) && !unicode.IsControl(r) {
			return i
		}
		i += size
	}
	return end
}

// runSpans follows the runs of characters of scripts written without
// spaces that the tokenizer gathers, keeping the span in t.src of each
// character of t.run.
type runSpans struct {
	t     *Tokenizer
	chars []Span    // span of each character of t.run
	raw   []rawChar // the characters read from t.src, before phrase folding
	buf   []byte    // their folded bytes
}

// rawChar is a character of a run as read from the text, and its bytes
// after Han folding in runSpans.buf (kept: carried over from the last
// piece of a long run, bytes unknown).
type rawChar struct {
	span   Span
	lo, hi int
	kept   bool
}

// gram returns the span in t.src of the gram next just returned. p0 is
// where next started reading; more says that next started in a run cut at
// maxRun characters, so that a new gather continues it.
func (w *runSpans) gram(p0 int, more bool) Span {
	t := w.t
	if t.pos != p0 { // next gathered characters
		w.raw, w.buf = w.raw[:0], w.buf[:0]
		start := p0
		if more {
			n := t.opts.Gram - 1
			for _, s := range w.chars[max(0, len(w.chars)-n):] {
				w.raw = append(w.raw, rawChar{span: s, kept: true})
			}
		} else {
			start = t.tokenStart(p0, t.pos)
		}
		w.read(start, t.pos)
		w.align()
	}
	g, n := t.runNext-1, t.opts.Gram
	if t.runNext < 0 { // a run shorter than a gram: all of it
		g, n = 0, len(w.chars)
	}
	if len(w.chars) == 0 {
		return Span{t.pos, t.pos}
	}
	g = min(max(g, 0), len(w.chars)-1)
	e := min(g+n, len(w.chars)) - 1
	return Span{w.chars[g].Start, w.chars[e].End}
}

// read appends to w.raw the characters of t.src[i:end] as gatherRun reads
// them: a letter with the combining marks after it.
func (w *runSpans) read(i, end int) {
	src := w.t.src
	for i < end {
		r, size := utf8.DecodeRune(src[i:end])
		if classify(r) == cMark && len(w.raw) > 0 && !w.raw[len(w.raw)-1].kept {
			c := &w.raw[len(w.raw)-1]
			w.buf = append(w.buf, src[i:i+size]...)
			c.span.End, c.hi = i+size, len(w.buf)
			i += size
			continue
		}
		if !w.t.opts.NoHanFold {
			r = foldHan(r)
		}
		lo := len(w.buf)
		w.buf = utf8.AppendRune(w.buf, r)
		w.raw = append(w.raw, rawChar{span: Span{i, i + size}, lo: lo, hi: len(w.buf)})
		i += size
	}
}

// align sets w.chars from w.raw and the run the tokenizer holds: one to
// one when phrase folding kept the number of characters; otherwise the
// characters equal at the start and at the end are matched one to one, and
// each character between spans all the read characters between.
func (w *runSpans) align() {
	t := w.t
	out, raw := len(t.runEnds), w.raw
	w.chars = w.chars[:0]
	if len(raw) == 0 {
		for range out {
			w.chars = append(w.chars, Span{t.pos, t.pos})
		}
		return
	}
	if out == len(raw) {
		for _, c := range raw {
			w.chars = append(w.chars, c.span)
		}
		return
	}
	same := func(k, j int) bool {
		c := raw[j]
		if c.kept {
			return true
		}
		lo := 0
		if k > 0 {
			lo = t.runEnds[k-1]
		}
		return bytes.Equal(t.run[lo:t.runEnds[k]], w.buf[c.lo:c.hi])
	}
	short := min(out, len(raw))
	p := 0
	for p < short && same(p, p) {
		p++
	}
	s := 0
	for s < short-p && same(out-1-s, len(raw)-1-s) {
		s++
	}
	mid := Span{raw[min(p, len(raw)-1)].span.Start, raw[max(len(raw)-1-s, 0)].span.End}
	if mid.End < mid.Start {
		mid.End = mid.Start
	}
	for k := range out {
		switch {
		case k < p:
			w.chars = append(w.chars, raw[k].span)
		case k >= out-s:
			w.chars = append(w.chars, raw[len(raw)-(out-k)].span)
		default:
			w.chars = append(w.chars, mid)
		}
	}
}

// resetMapped resets t to tokenize text, as Reset does, and returns the map
// from the bytes of t.src back to those of text.
func (t *Tokenizer) resetMapped(text []byte) *spanMap {
	t.Reset(text)
	if len(t.src) == 0 || len(t.src) == len(text) && &t.src[0] == &text[0] {
		return nil // t.src is text
	}
	src, m, ok := t.mapSource(text)
	if ok && bytes.Equal(src, t.src) {
		return m
	}
	// Not reached: mapSource makes what Reset makes. Should they ever
	// differ, spread t.src evenly over text rather than fail.
	m = &spanMap{}
	m.add(0, len(t.src), 0, len(text), false)
	m.even = true
	return m
}

// mapSource makes t.src from text as Reset does (markup removal, invalid
// UTF-8 replaced, NFKC normalization), with the map of its bytes back to
// text's. ok is false when neither step changed the text.
func (t *Tokenizer) mapSource(text []byte) (src []byte, m *spanMap, ok bool) {
	src = text
	if t.opts.Markup == MarkupStrip || t.opts.Markup == MarkupAuto && looksLikeMarkup(src) {
		m = &spanMap{}
		src = t.stripMapped(nil, src, m)
	}
	if !t.opts.NoNormalize && !isNFKC(src) {
		if !utf8.Valid(src) {
			src = appendValid(nil, src) // byte for byte
		}
		n := &spanMap{}
		src = t.normalizeMapped(nil, src, n)
		n.next = m
		m = n
	}
	return src, m, m != nil
}

// stripMapped is markupStripper.strip recording in m where each piece of
// dst comes from in src.
func (t *Tokenizer) stripMapped(dst, src []byte, m *spanMap) []byte {
	h := &t.html
	i := 0
	for i < len(src) {
		j := i
		for j < len(src) && src[j] != '<' && src[j] != '&' {
			j++
		}
		m.add(len(dst), len(dst)+j-i, i, j, true)
		dst = append(dst, src[i:j]...)
		i = j
		if i >= len(src) {
			break
		}
		n := len(dst)
		var k int
		if src[i] == '&' {
			dst, k = h.decodeRef(dst, src, i)
		} else {
			k = h.tag(&dst, src, i)
		}
		const cdata = "<![CDATA["
		if src[i] == '<' && bytes.HasPrefix(src[i:], []byte(cdata)) && len(dst)-n >= 2 {
			// " content ": the content is copied.
			body := len(dst) - n - 2
			b := i + len(cdata)
			m.add(n, n+1, i, b, false)
			m.add(n+1, n+1+body, b, b+body, true)
			m.add(n+1+body, len(dst), b+body, k, false)
		} else {
			m.add(n, len(dst), i, k, false)
		}
		i = k
	}
	return dst
}

// normalizeMapped is Tokenizer.normalize recording in m where each piece of
// dst comes from in src.
func (t *Tokenizer) normalizeMapped(dst, src []byte, m *spanMap) []byte {
	off := 0
	for len(src) > 0 {
		q := norm.NFKC.QuickSpan(src)
		m.add(len(dst), len(dst)+q, off, off+q, true)
		dst = append(dst, src[:q]...)
		src, off = src[q:], off+q
		if len(src) == 0 {
			break
		}
		n := norm.NFKC.NextBoundary(src, true)
		if n <= 0 {
			n = len(src)
		}
		d := len(dst)
		t.nfkc.Init(norm.NFKC, src[:n])
		for !t.nfkc.Done() {
			dst = append(dst, t.nfkc.Next()...)
		}
		m.add(d, len(dst), off, off+n, false)
		src, off = src[n:], off+n
	}
	return dst
}

// spanMap maps the bytes of a rewritten text back to the bytes of the text
// it was made from, and on through next, the map of that text, if any.
type spanMap struct {
	segs []spanSeg // in order, covering the rewritten text
	next *spanMap
	even bool // one segment, mapped proportionally
}

// spanSeg says that bytes [dst, dstEnd) of the rewritten text were made
// from bytes [src, srcEnd): copied byte for byte, or rewritten as a whole.
type spanSeg struct {
	dst, dstEnd int
	src, srcEnd int
	copied      bool
}

func (m *spanMap) add(dst, dstEnd, src, srcEnd int, copied bool) {
	if dstEnd <= dst {
		return
	}
	if srcEnd <= src && src > 0 {
		src = srcEnd - 1 // made from nothing (the end of an unclosed CDATA section): the byte before
	}
	if n := len(m.segs); copied && n > 0 {
		if l := &m.segs[n-1]; l.copied && l.dstEnd == dst && l.srcEnd == src {
			l.dstEnd, l.srcEnd = dstEnd, srcEnd
			return
		}
	}
	m.segs = append(m.segs, spanSeg{dst, dstEnd, src, srcEnd, copied})
}

// seg returns the segment holding byte d.
func (m *spanMap) seg(d int) *spanSeg {
	k := sort.Search(len(m.segs), func(k int) bool { return m.segs[k].dstEnd > d })
	return &m.segs[min(k, len(m.segs)-1)]
}

// span maps s, a non-empty span of the rewritten text, back to the
// original text (nil m: the identity).
func (m *spanMap) span(s Span) Span {
	for ; m != nil; m = m.next {
		if s.End <= s.Start {
			s.End = s.Start + 1
		}
		a, b := m.seg(s.Start), m.seg(s.End-1)
		var r Span
		switch {
		case m.even:
			n := max(a.dstEnd, 1)
			r = Span{s.Start * a.srcEnd / n, (s.End*a.srcEnd + n - 1) / n}
		default:
			r.Start, r.End = a.src, b.srcEnd
			if a.copied {
				r.Start = min(a.src+max(s.Start-a.dst, 0), a.srcEnd)
			}
			if b.copied {
				r.End = min(b.src+max(s.End-b.dst, 0), b.srcEnd)
			}
		}
		s = Span{r.Start, max(r.End, r.Start)}
	}
	return s
}
