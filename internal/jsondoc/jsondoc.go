// Package jsondoc reads JSON objects field by field without reflection:
// the name and the value as written of each field of an object (Fields),
// the kind of a value (Kind), and strings decoded as encoding/json decodes
// them (Bytes) or strictly (String). It serves the readers of JSON
// documents, a line of JSON lines or an add request, where encoding/json's
// reflection into maps or structs costs more than the reading.
//
// The input of Fields, Bytes, String and Kind must be valid JSON, as
// json.Valid or a json.Decoder checks it: they do not validate it again.
// Each costs one pass over its input, plus encoding/json's decoding of a
// string that holds escapes. Document reads a line of JSON lines that was
// not checked: it validates the line as it finds and decodes the ID and
// text fields, in one pass and without encoding/json.
package jsondoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte of b at or after i that is
// not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// Fields calls f with the name, decoded, and the value, as written, of
// each field of the JSON object raw, in order, until f returns an error.
// raw must be valid JSON and an object: check with Kind. Names are
// compared by the caller exactly (encoding/json matches struct fields
// without regard to case, so that "ID" would pass for "id"). It costs one
// pass over raw.
func Fields(raw []byte, f func(name string, v []byte) error) error {
	i := SkipSpace(raw, SkipSpace(raw, 0)+1) // after the '{'
	if raw[i] == '}' {
		return nil
	}
	for {
		end := stringEnd(raw, i)
		name, err := Bytes(raw[i:end])
		if err != nil {
			return err
		}
		i = SkipSpace(raw, SkipSpace(raw, end)+1) // after the ':'
		vend := valueEnd(raw, i)
		if err := f(string(name), raw[i:vend]); err != nil {
			return err
		}
		i = SkipSpace(raw, vend)
		if raw[i] == '}' {
			return nil
		}
		i = SkipSpace(raw, i+1) // after the ','
	}
}

// Bytes decodes the JSON string raw as encoding/json does (a byte that is
// not UTF-8, or a lone UTF-16 surrogate, becomes U+FFFD). Without escapes,
// the result is raw's own bytes between the quotes, not a copy.
func Bytes(raw []byte) ([]byte, error) {
	if plainString(raw) && utf8.Valid(raw) {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// plainString reports whether b is a JSON string without escapes (nor
// control characters): its bytes between the quotes are its value.
func plainString(b []byte) bool {
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

// stringEnd returns the index just after the JSON string of the valid
// JSON b that starts at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
}

// valueEnd returns the index just after the JSON value of the valid JSON
// b that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
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

// Kind names the JSON type of the valid JSON value raw: object, array,
// string, number, boolean or null ("nothing" for white space alone).
func Kind(raw []byte) string {
	i := SkipSpace(raw, 0)
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

// String decodes the JSON string raw strictly: it must be valid UTF-8,
// and an escaped UTF-16 surrogate must be one of a pair (encoding/json
// turns an invalid byte or a lone surrogate into U+FFFD, so that different
// IDs would become the same). It costs a pass over raw and its decoding.
func String(raw []byte) (string, error) {
	if !utf8.Valid(raw) {
		return "", errors.New("is not valid UTF-8")
	}
	if plainString(raw) {
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
