package main

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/simidx/simidx/internal/jsondoc"
)

// The query endpoint's common request and answer are parsed and written by
// hand: encoding/json's reflection took a fifth of the handler's CPU (see
// BenchmarkServeQuery). Anything out of the common form goes through
// encoding/json, and the tests hold the two to the same results.

// fastQueryText returns the text of a query body of the common form
// {"text": "..."}, with a string free of escapes and control characters
// and in valid UTF-8: the string encoding/json decodes it to. ok is false
// for any other body, to be decoded in full. It costs one pass over b.
func fastQueryText(b []byte) (text string, ok bool) {
	const key = `"text"`
	i := jsondoc.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	i = jsondoc.SkipSpace(b, i+1)
	if len(b)-i < len(key) || string(b[i:i+len(key)]) != key {
		return "", false
	}
	i = jsondoc.SkipSpace(b, i+len(key))
	if i >= len(b) || b[i] != ':' {
		return "", false
	}
	i = jsondoc.SkipSpace(b, i+1)
	if i >= len(b) || b[i] != '"' {
		return "", false
	}
	start := i + 1
	end := start
	for ; end < len(b) && b[end] != '"'; end++ {
		if c := b[end]; c == '\\' || c < 0x20 {
			return "", false
		}
	}
	if end >= len(b) || !utf8.Valid(b[start:end]) {
		return "", false
	}
	i = jsondoc.SkipSpace(b, end+1)
	if i >= len(b) || b[i] != '}' || jsondoc.SkipSpace(b, i+1) != len(b) {
		return "", false
	}
	return string(b[start:end]), true
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped as encoding/json
// does with SetEscapeHTML(false): quote, backslash and control characters
// escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and
// \u2029. It costs one pass over s.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64 (which must
// be finite): the shortest decimal that reads back as f, in exponent form
// below 1e-6 and from 1e21.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 is written 1e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendMatchesJSON appends {"matches": ms} and a newline: what
// encoding/json's Encoder writes for it.
func appendMatchesJSON(b []byte, ms []matchRecord) []byte {
	b = append(b, `{"matches":[`...)
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendJSONString(b, m.ID)
		b = append(b, `,"distance":`...)
		b = strconv.AppendInt(b, int64(m.Distance), 10)
		if m.Similarity != nil {
			b = append(b, `,"similarity":`...)
			b = appendJSONFloat(b, *m.Similarity)
		}
		if m.Exact != nil {
			b = strconv.AppendBool(append(b, `,"exact":`...), *m.Exact)
		}
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}
