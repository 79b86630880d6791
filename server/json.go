package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
)

// writeJSON answers v, as encoding/json writes it without escaping HTML,
// with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeJSONBytes(w, status, b.Bytes())
}

// writeJSONBytes answers the JSON b with status.
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) error {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}

// jsonContentType is the Content-Type header of every answer but the
// metrics; net/http only reads it.
var jsonContentType = []string{"application/json"}

// matchRecord is a match as answered: the JSON of simidx query.
type matchRecord struct {
	ID         string   `json:"id"`
	Distance   int      `json:"distance"`
	Similarity *float64 `json:"similarity,omitempty"`
	Exact      *bool    `json:"exact,omitempty"`
}

// matchRecords returns the answers of ms: with their similarity if sim,
// and whether each is an exact copy of the query if text (a query with
// text; a match stored as a fingerprint is then no exact copy).
func matchRecords(ms []index.Match, sim, text bool) []matchRecord {
	out := make([]matchRecord, len(ms))
	for i := range ms {
		m := &ms[i]
		out[i] = matchRecord{ID: m.ID, Distance: m.Distance}
		if sim {
			out[i].Similarity = similarity(m.Similarity)
		}
		if text {
			out[i].Exact = &m.Exact
		}
	}
	return out
}

// similarity cuts a similarity to four decimals for JSON, truncating, so
// that it never shows a value across a threshold it does not reach
// (0.59996 is 0.5999). An estimate is a multiple of 1/K: four decimals
// keep what it says. simidx query writes the same.
func similarity(s float64) *float64 {
	r := math.Floor(s*1e4+1e-7) / 1e4
	return &r
}

// hex16 formats a fingerprint as 16 hexadecimal digits.
func hex16(fp uint64) string { return fmt.Sprintf("%016x", fp) }

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
