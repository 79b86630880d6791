package shingle

import (
	"bytes"
	"html"
	"unicode/utf8"
)

// looksLikeMarkup reports whether b contains something shaped like an HTML
// or XML tag: '<' followed by a letter (or '/', '!' then a letter or '-'),
// a name of letters, digits or ':', '-', and then '>', '/' or white space.
// Mail addresses and URLs in angle brackets (<a@b.org>, <http://x>) do not
// count. Cost: one pass over b.
func looksLikeMarkup(b []byte) bool {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return false
		}
		i += j + 1
		k := i
		if k < len(b) && (b[k] == '/' || b[k] == '!') {
			if b[k] == '!' && k+1 < len(b) && b[k+1] == '-' {
				return true // <!-- comment
			}
			k++
		}
		if k >= len(b) || !isASCIILetter(b[k]) {
			continue
		}
		for k < len(b) && isNameByte(b[k]) {
			k++
		}
		if k < len(b) {
			switch b[k] {
			case '>', '/', ' ', '\t', '\n', '\r':
				return true
			}
		}
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isNameByte(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9' || c == ':' || c == '-' || c == '_' || c == '.'
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// isInline reports whether the element does not separate words:
// <b>w</b>ord is one word.
func isInline(name []byte) bool {
	switch string(name) {
	case "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "dfn", "em", "font", "i",
		"kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time",
		"tt", "u", "var", "wbr":
		return true
	}
	return false
}

// isRawText reports whether the element's content is not text for a
// reader and is dropped: everything up to the matching end tag.
func isRawText(name []byte) bool {
	switch string(name) {
	case "script", "style", "template", "noscript", "xmp", "iframe", "noembed", "noframes":
		return true
	}
	return false
}

// markupStripper removes HTML and XML markup following the HTML tokenizer's
// rules for tags, attributes (quoted values may contain '>'), comments,
// doctypes, processing instructions, CDATA sections and raw-text elements,
// and decodes character references. It keeps one reusable buffer for tag
// names and allocates nothing for numeric references and the common named
// ones.
type markupStripper struct {
	onTag func(name []byte, closing, selfClosing bool) // called for every tag, if set
	name  []byte
	refs  map[string]string // decoded named references beyond commonRefs
}

// strip appends the text of the HTML or XML document src to dst: tags,
// comments, doctypes and processing instructions are dropped, the content of
// script, style and other raw-text elements is dropped, CDATA content is
// kept, character references are decoded, and every tag except inline ones
// (b, i, span, ...) becomes a space. Cost: one pass over src.
func (m *markupStripper) strip(dst, src []byte) []byte {
	i := 0
	for i < len(src) {
		j := i
		for j < len(src) && src[j] != '<' && src[j] != '&' {
			j++
		}
		dst = append(dst, src[i:j]...)
		i = j
		if i >= len(src) {
			break
		}
		if src[i] == '&' {
			dst, i = m.decodeRef(dst, src, i)
			continue
		}
		i = m.tag(&dst, src, i)
	}
	return dst
}

// tag handles the markup starting with '<' at src[i] and returns the index
// after it. Text that only looks like markup ("a < b") is kept.
func (m *markupStripper) tag(dst *[]byte, src []byte, i int) int {
	rest := src[i+1:]
	switch {
	case bytes.HasPrefix(rest, []byte("!--")):
		end := bytes.Index(rest[3:], []byte("-->"))
		if end < 0 {
			return len(src)
		}
		*dst = append(*dst, ' ')
		return i + 1 + 3 + end + 3
	case bytes.HasPrefix(rest, []byte("![CDATA[")):
		body := rest[8:]
		end := bytes.Index(body, []byte("]]>"))
		if end < 0 {
			end = len(body)
		}
		*dst = append(*dst, ' ')
		*dst = append(*dst, body[:end]...)
		*dst = append(*dst, ' ')
		return min(len(src), i+1+8+end+3)
	case len(rest) > 0 && (rest[0] == '!' || rest[0] == '?'):
		end := bytes.IndexByte(rest, '>')
		if end < 0 {
			return len(src)
		}
		*dst = append(*dst, ' ')
		return i + 1 + end + 1
	}
	closing := len(rest) > 0 && rest[0] == '/'
	k := i + 1
	if closing {
		k++
	}
	if k >= len(src) || !isASCIILetter(src[k]) {
		if closing && k < len(src) && src[k] == '>' {
			return k + 1 // "</>" is ignored
		}
		*dst = append(*dst, '<')
		return i + 1
	}
	m.name = m.name[:0]
	for k < len(src) && !isHTMLSpace(src[k]) && src[k] != '/' && src[k] != '>' {
		c := src[k]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		m.name = append(m.name, c)
		k++
	}
	// Attributes: skip to the '>' that is not inside a quoted value.
	for k < len(src) && src[k] != '>' {
		if c := src[k]; (c == '"' || c == '\'') && k > 0 && (src[k-1] == '=' || isHTMLSpace(src[k-1])) {
			end := bytes.IndexByte(src[k+1:], c)
			if end < 0 {
				return len(src)
			}
			k += end + 2
			continue
		}
		k++
	}
	k = min(k+1, len(src))
	if m.onTag != nil {
		m.onTag(m.name, closing, k >= 2 && src[k-1] == '>' && src[k-2] == '/')
	}
	if !isInline(m.name) {
		*dst = append(*dst, ' ')
	}
	if !closing && isRawText(m.name) && src[k-1] == '>' && !(k >= 2 && src[k-2] == '/') {
		return m.skipRawText(src, k)
	}
	return k
}

// skipRawText returns the index just after the end tag that closes the
// raw-text element whose name is in m.name and whose content starts at k, or
// len(src) if it is never closed.
func (m *markupStripper) skipRawText(src []byte, k int) int {
	for {
		j := bytes.Index(src[k:], []byte("</"))
		if j < 0 {
			return len(src)
		}
		k += j + 2
		if len(src)-k >= len(m.name) && bytes.EqualFold(src[k:k+len(m.name)], m.name) {
			e := k + len(m.name)
			if e == len(src) || isHTMLSpace(src[e]) || src[e] == '>' || src[e] == '/' {
				end := bytes.IndexByte(src[e:], '>')
				if end < 0 {
					return len(src)
				}
				return e + end + 1
			}
		}
	}
}

// commonRefs are the named character references decoded without a lookup
// in the full table.
var commonRefs = map[string]rune{
	"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\'', "nbsp": 0xA0,
	"copy": 0xA9, "reg": 0xAE, "mdash": 0x2014, "ndash": 0x2013, "hellip": 0x2026,
	"laquo": 0xAB, "raquo": 0xBB, "rsquo": 0x2019, "lsquo": 0x2018, "rdquo": 0x201D,
	"ldquo": 0x201C, "bull": 0x2022, "middot": 0xB7, "trade": 0x2122, "euro": 0x20AC,
}

// decodeRef decodes the character reference at src[i] ('&') and appends it
// to dst, returning the index after it. What is not a reference is kept as
// it is. Named references beyond the common ones are decoded with the
// standard library's full table once and then remembered.
func (m *markupStripper) decodeRef(dst, src []byte, i int) ([]byte, int) {
	j := i + 1
	if j < len(src) && src[j] == '#' {
		j++
		hex := j < len(src) && src[j]|0x20 == 'x'
		if hex {
			j++
		}
		var r rune
		start := j
		for j < len(src) && j-start < 8 {
			c := src[j]
			switch {
			case c >= '0' && c <= '9':
				r = r*base(hex) + rune(c-'0')
			case hex && c|0x20 >= 'a' && c|0x20 <= 'f':
				r = r*16 + rune(c|0x20-'a'+10)
			default:
				goto out
			}
			j++
		}
	out:
		if j == start {
			return append(dst, '&'), i + 1
		}
		if j < len(src) && src[j] == ';' {
			j++
		}
		if r == 0 || r > utf8.MaxRune || r >= 0xD800 && r <= 0xDFFF {
			r = utf8.RuneError
		}
		return utf8.AppendRune(dst, r), j
	}
	for j < len(src) && j-i <= 32 && (isASCIILetter(src[j]) || src[j] >= '0' && src[j] <= '9') {
		j++
	}
	if j == i+1 || j >= len(src) || src[j] != ';' {
		return append(dst, '&'), i + 1
	}
	if r, ok := commonRefs[string(src[i+1:j])]; ok {
		return utf8.AppendRune(dst, r), j + 1
	}
	s, ok := m.refs[string(src[i:j+1])]
	if !ok {
		ref := string(src[i : j+1])
		if s = html.UnescapeString(ref); s == ref {
			s = ""
		}
		if m.refs == nil {
			m.refs = make(map[string]string)
		}
		if len(m.refs) < 4096 {
			m.refs[ref] = s
		}
	}
	if s == "" {
		return append(dst, '&'), i + 1
	}
	return append(dst, s...), j + 1
}

func base(hex bool) rune {
	if hex {
		return 16
	}
	return 10
}

// WalkTags calls fn for every start and end tag of the HTML or XML document
// src, in order, with the lower-cased tag name (valid during the call),
// whether it is an end tag, and whether it closes itself (<br/>). Comments,
// doctypes and the content of raw-text elements (script, style, ...) are
// skipped as by markup removal. Cost: one pass over src.
func WalkTags(src []byte, fn func(name []byte, closing, selfClosing bool)) {
	m := markupStripper{onTag: fn}
	m.strip(nil, src)
}
