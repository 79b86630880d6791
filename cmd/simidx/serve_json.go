package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The query endpoint's common request and answer are parsed and written by
// hand: encoding/json's reflection took a fifth of the handler's CPU (see
// BenchmarkServeQuery). Anything out of the common form goes through
// encoding/json, and the tests hold the two to the same results.

// skipSpace returns the index of the first byte of b at or after i that is
// not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// fastQueryText returns the text of a query body of the common form
// {"text": "..."}, with a string free of escapes and control characters
// and in valid UTF-8: the string encoding/json decodes it to. ok is false
// for any other body, to be decoded in full. It costs one pass over b.
func fastQueryText(b []byte) (text string, ok bool) {
	const key = `"text"`
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	i = skipSpace(b, i+1)
	if len(b)-i < len(key) || string(b[i:i+len(key)]) != key {
		return "", false
	}
	i = skipSpace(b, i+len(key))
	if i >= len(b) || b[i] != ':' {
		return "", false
	}
	i = skipSpace(b, i+1)
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
	i = skipSpace(b, end+1)
	if i >= len(b) || b[i] != '}' || skipSpace(b, i+1) != len(b) {
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

// jsonFields calls f with the name, decoded, and the value, as written,
// of each field of the JSON object raw, in order, until f returns an
// error. raw must be valid JSON (as a json.Decoder returns it) and an
// object: check with jsonKind. Names are compared by the caller exactly
// (encoding/json matches struct fields without regard to case, so that
// "ID" would pass for "id"). It costs one pass over raw.
func jsonFields(raw []byte, f func(name string, v []byte) error) error {
	i := skipSpace(raw, skipSpace(raw, 0)+1) // after the '{'
	if raw[i] == '}' {
		return nil
	}
	for {
		end := jsonStringEnd(raw, i)
		name, err := jsonBytes(raw[i:end])
		if err != nil {
			return err
		}
		i = skipSpace(raw, skipSpace(raw, end)+1) // after the ':'
		vend := jsonValueEnd(raw, i)
		if err := f(string(name), raw[i:vend]); err != nil {
			return err
		}
		i = skipSpace(raw, vend)
		if raw[i] == '}' {
			return nil
		}
		i = skipSpace(raw, i+1) // after the ','
	}
}

// jsonBytes decodes the JSON string raw as encoding/json does (a byte
// that is not UTF-8, or a lone UTF-16 surrogate, becomes U+FFFD). Without
// escapes, the result is raw's own bytes between the quotes, not a copy.
func jsonBytes(raw []byte) ([]byte, error) {
	if plainJSONString(raw) && utf8.Valid(raw) {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// plainJSONString reports whether b is a JSON string without escapes
// (nor control characters): its bytes between the quotes are its value.
func plainJSONString(b []byte) bool {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return false
	}
	for _, c := range b[1 : len(b)-1] {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return true
}

// jsonStringEnd returns the index just after the JSON string of the valid
// JSON b that starts at b[i].
func jsonStringEnd(b []byte, i int) int {
	for j := i + 1; ; j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
}

// jsonValueEnd returns the index just after the JSON value of the valid
// JSON b that starts at b[i].
func jsonValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return jsonStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch b[j] {
			case '"':
				j = jsonStringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	j := i // a number, true, false or null
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
		j++
	}
	return j
}

// jsonKind names the JSON type of the valid JSON value raw: object, array,
// string, number, boolean or null.
func jsonKind(raw []byte) string {
	i := skipSpace(raw, 0)
	if i == len(raw) {
		return "nothing"
	}
	switch raw[i] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// jsonString decodes the JSON string raw strictly: it must be valid
// UTF-8, and an escaped UTF-16 surrogate must be one of a pair
// (encoding/json turns an invalid byte or a lone surrogate into U+FFFD,
// so that different IDs would become the same). It costs a pass over raw
// and its decoding.
func jsonString(raw []byte) (string, error) {
	if !utf8.Valid(raw) {
		return "", errors.New("is not valid UTF-8")
	}
	if plainJSONString(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	// The decoding succeeded: every escape is complete.
	hex4 := func(i int) rune {
		r, _ := strconv.ParseUint(string(raw[i:i+4]), 16, 16)
		return rune(r)
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if raw[i] != 'u' {
			continue
		}
		r := hex4(i + 1)
		i += 4
		if !utf16.IsSurrogate(r) {
			continue
		}
		if r < 0xdc00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
			if lo := hex4(i + 3); lo >= 0xdc00 && lo <= 0xdfff {
				i += 6
				continue
			}
		}
		return "", fmt.Errorf("holds the lone UTF-16 surrogate \\u%04x", r)
	}
	return s, nil
}
