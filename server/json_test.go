package server

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// slowQueryText decodes a query body as the handler does when the fast
// path declines it (parseQuery).
func slowQueryText(b []byte) (string, bool) {
	q, err := parseQuery(b)
	if err != nil || q.Text == nil || q.Fingerprint != nil {
		return "", false
	}
	return *q.Text, true
}

var queryBodies = []string{
	`{"text": "a cat sat on the mat"}`,
	`{"text":"x"}`,
	" \n{ \"text\" :\t\"spaced out\" }\r\n",
	`{"text": ""}`,
	`{"text": "Привет, мир: 日本語のテキスト"}`,
	`{"text": "with \"escapes\"\n"}`,
	`{"text": "a\u0041"}`,
	"{\"text\": \"tab\there\"}",
	"{\"text\": \"bad \xff utf8\"}",
	`{"text": "two"} {"text": "objects"}`,
	`{"text": "trailing"} x`,
	`{"Text": "refused: field names are exact"}`,
	`{"text": "a", "text": "b"}`,
	`{"text": "a", "fingerprint": "ff"}`,
	`{"fingerprint": "ff"}`,
	`{"text": 5}`,
	`{"text": "unterminated}`,
	`{"text": null}`,
	`["text"]`,
	``,
	`{`,
}

// TestFastQueryText checks the fast path against encoding/json: whatever it
// accepts, encoding/json decodes to the same text.
func TestFastQueryText(t *testing.T) {
	accepted := 0
	for _, b := range queryBodies {
		got, ok := fastQueryText([]byte(b))
		if !ok {
			continue
		}
		accepted++
		want, wok := slowQueryText([]byte(b))
		if !wok || got != want {
			t.Errorf("fastQueryText(%q) = %q; encoding/json: %q, %v", b, got, want, wok)
		}
	}
	if accepted != 5 {
		t.Errorf("the fast path took %d of the bodies, want the 5 plain ones", accepted)
	}
}

func FuzzFastQueryText(f *testing.F) {
	for _, b := range queryBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := fastQueryText(b)
		if !ok {
			return
		}
		if want, wok := slowQueryText(b); !wok || got != want {
			t.Fatalf("fastQueryText(%q) = %q; encoding/json: %q, %v", b, got, want, wok)
		}
	})
}

// encodeMatches is the answer as encoding/json writes it.
func encodeMatches(t testing.TB, ms []matchRecord) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"matches": ms}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func float(f float64) *float64 { return &f }

func TestAppendMatchesJSON(t *testing.T) {
	cases := [][]matchRecord{
		{},
		{{ID: "a", Distance: 0}},
		{{ID: "ad-17", Distance: 3, Similarity: float(0.8571)}, {ID: "x", Distance: 1, Similarity: float(1)}},
		{{ID: "quote\" back\\slash <html> & \u2028\u2029 \x00\x01\b\f\n\r\t\x1f\x7f", Distance: 2, Similarity: float(0)}},
		{{ID: "bad\xffutf8\xc3", Distance: 64, Similarity: float(1e-7)}},
		{{ID: "Привет 日本", Distance: 1, Similarity: float(0.5e-6)}, {ID: "big", Distance: 2, Similarity: float(1e21)}},
		{{ID: "small", Distance: 1, Similarity: float(0.000001)}, {ID: "neg", Distance: 1, Similarity: float(-0.25)}},
	}
	for _, ms := range cases {
		got := string(appendMatchesJSON(nil, ms))
		if want := encodeMatches(t, ms); got != want {
			t.Errorf("appendMatchesJSON(%+v):\n got %s\nwant %s", ms, got, want)
		}
	}
}

func FuzzAppendMatchesJSON(f *testing.F) {
	f.Add("ad-1", 3, 0.75, true)
	f.Add("\u2028\xff\"\\\x00", 0, 1e-9, true)
	f.Add("", 1, 0.0, false)
	f.Fuzz(func(t *testing.T, id string, d int, sim float64, hasSim bool) {
		m := matchRecord{ID: id, Distance: d}
		if hasSim {
			if math.IsNaN(sim) || math.IsInf(sim, 0) {
				return // encoding/json refuses them; similarities are finite
			}
			m.Similarity = &sim
		}
		ms := []matchRecord{m, {ID: "next", Distance: 1}}
		if got, want := string(appendMatchesJSON(nil, ms)), encodeMatches(t, ms); got != want {
			t.Fatalf("appendMatchesJSON(%+v):\n got %s\nwant %s", ms, got, want)
		}
	})
}
