package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
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

func TestJSONString(t *testing.T) {
	for _, tc := range []struct {
		raw, want, err string
	}{
		{`"plain"`, "plain", ""},
		{`"a\u0041\n\"\\"`, "aA\n\"\\", ""},
		{`"\ud83d\ude00 pair"`, "\U0001F600 pair", ""},
		{`"\uD83D\uDE00"`, "\U0001F600", ""},
		{`"\ufffd written"`, "\ufffd written", ""},
		{"\"\ufffd as it is\"", "\ufffd as it is", ""},
		{`"\\ud800 is not an escape"`, `\ud800 is not an escape`, ""},
		{`"lone \ud800"`, "", `lone UTF-16 surrogate \ud800`},
		{`"\ud800\u0041"`, "", `lone UTF-16 surrogate \ud800`},
		{`"\ud800\ud800"`, "", `lone UTF-16 surrogate \ud800`},
		{`"\udc00 low first"`, "", `lone UTF-16 surrogate \udc00`},
		{`"\ude00\ud83d"`, "", `lone UTF-16 surrogate \ude00`},
		{`"at the end \ud83d"`, "", `lone UTF-16 surrogate \ud83d`},
		{"\"bad \xff byte\"", "", "not valid UTF-8"},
		{`"unterminated`, "", "unexpected end"},
	} {
		got, err := jsonString([]byte(tc.raw))
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("jsonString(%s) = %q, %v; want %q", tc.raw, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("jsonString(%s) = %q, %v; want an error with %q", tc.raw, got, err, tc.err)
		}
	}
}

// FuzzJSONString checks jsonString against encoding/json: what it accepts
// decodes to the same string, and it refuses nothing that encoding/json
// decodes without a replacement character.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"\\ud800"`, `"\u00e9t\u00e9"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		werr := json.Unmarshal(raw, &want)
		got, err := jsonString(raw)
		if err == nil {
			if werr != nil || got != want || !utf8.ValidString(got) {
				t.Fatalf("jsonString(%q) = %q; encoding/json: %q, %v", raw, got, want, werr)
			}
			return
		}
		if werr == nil && !strings.ContainsRune(want, utf8.RuneError) {
			t.Fatalf("jsonString(%q) refused %q: %v", raw, want, err)
		}
	})
}

// FuzzJSONFields checks jsonFields against encoding/json on valid JSON
// objects: the same names, each with the same value (the last of a name
// given twice, as encoding/json keeps).
func FuzzJSONFields(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "id" : "a" , "text" : "b" } `, `{"id":1e3,"text":null,"x":[1,{"y":"]}"}],"z":{"a":[]}}`,
		`{"\u0069d":"escaped name","a\"b":true,"id":"twice"}`, `{"t":"\\\"","u":-0.5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || jsonKind(raw) != "object" {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]json.RawMessage{}
		if err := jsonFields(raw, func(name string, v []byte) error {
			got[name] = v
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("jsonFields(%s): %d names, encoding/json %d", raw, len(got), len(want))
		}
		for name, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[name]), bytes.TrimSpace(v)) {
				t.Fatalf("jsonFields(%s): %q is %s, encoding/json %s", raw, name, got[name], v)
			}
		}
	})
}
