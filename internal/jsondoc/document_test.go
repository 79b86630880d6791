package jsondoc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// valid reports whether b is valid JSON, by skipValue.
func valid(b []byte) bool {
	i := SkipSpace(b, 0)
	if i == len(b) {
		return false
	}
	end, ok := skipValue(b, i, 0)
	return ok && SkipSpace(b, end) == len(b)
}

// validSeeds are JSON texts, valid and not, for the tests of the checks.
var validSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1e5`, `1.5E-3`, `-12.25e+10`, `01`, `1.`, `.5`, `+1`, `-`, `1e`, `1e+`, `0x1`,
	`true`, `false`, `null`, `tru`, `nul`, `fals`, `truex`, `[true,false,null]`, `[1,]`, `[,1]`, `{"a":1,}`,
	`{"a"}`, `{1:2}`, `{"a":1 "b":2}`, ` { "a" : [ 1 , { } ] } `, "\t\r\n[\t1\r\n]\n", `"\" \\ \/ \b \f \n \r \t"`,
	`"\u0041\ud83d\ude00\ud800"`, `"\x"`, `"\u12"`, `"\u12g4"`, `"\'"`, `"\`, `"`, "\"\xff\xc3\x28\"", "\"\x01\"",
	"\"\x7f\"", `"a" "b"`, `[1] x`, "[1]\x00", "\v1", "\ufeff1", `["]"]`, `{"a":"}"}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// TestValid checks the checks of JSON against json.Valid.
func TestValid(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("valid(%.40q) = %v, json.Valid %v", s, got, want)
		}
	}
}

// FuzzValid checks the checks of JSON against json.Valid.
func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := valid(b), json.Valid(b); got != want {
			t.Fatalf("valid(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}

// document is Document by encoding/json.
func document(line []byte, idName, textName string) (rawID, text []byte, ok bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil || obj == nil {
		return nil, nil, false
	}
	rawID, okID := obj[idName]
	rawText, okText := obj[textName]
	var s string
	if !okID || !okText || Kind(rawText) != "string" || json.Unmarshal(rawText, &s) != nil {
		return nil, nil, false
	}
	return rawID, []byte(s), true
}

func TestDocument(t *testing.T) {
	for _, tc := range []struct {
		line, id, text string
		ok             bool
	}{
		{`{"id":"a","text":"b"}`, `"a"`, "b", true},
		{`{"id":"a","text":"\u041f\u0440\u0438\u0432\u0435\u0442"}`, `"a"`, "Привет", true},
		{` {"text" : "b" , "id" : -1.5e3 } `, `-1.5e3`, "b", true},
		{`{"id":{"x":[1,"]"]},"text":"b"}`, `{"x":[1,"]"]}`, "b", true},
		{`{"id":"a","text":"\u041f\u0440\u0438 \ud83d\ude00 \ud83d\t"}`, `"a"`, "При \U0001F600 \ufffd\t", true},
		{"{\"id\":\"a\",\"text\":\"\xff\xe4\xb8\\u00e9\"}", `"a"`, "\ufffd\ufffd\ufffdé", true},
		{`{"\u0069d":"a","t\u0065xt":"b","text":"c"}`, `"a"`, "c", true},
		{`{"id":"a","text":"1234567\n12345678\"\\abcdefgh\u00e9\u20ac\ud83d\ude00xyzxyzxy\t"}`, `"a"`, "1234567\n12345678\"\\abcdefghé€\U0001F600xyzxyzxy\t", true},
		{"{\"id\":\"a\",\"text\":\"12345678\x01\"}", "", "", false},
		{"{\"id\":\"a\",\"text\":\"1234\x0156789abc\"}", "", "", false},
		{`{"id":"a","text":"12345678\ud83d\u0041 \udc00 12345678\ud83d"}`, `"a"`, "12345678\ufffdA \ufffd 12345678\ufffd", true},
		{`{"id":"a","text":"12345678\ud83d\uzzzz"}`, "", "", false},
		{"{\"id\":\"a\",\"text\":\"1234567\\u00zz\"}", "", "", false},
		{`{"id":"a","text":5}`, "", "", false},
		{`{"id":"a"}`, "", "", false},
		{`{"id":"a","text":"b"`, "", "", false},
		{`{"id":"a","text":"b"}}`, "", "", false},
		{`["id","text"]`, "", "", false},
		// Escaped as written, not UTF-8 as decoded: the text is copied
		// to its size.
		{`{"id":"a","text":"` + strings.Repeat(`\u0041`, 1000) + "\xff\"}", `"a"`, strings.Repeat("A", 1000) + "\ufffd", true},
	} {
		id, text, ok := Document([]byte(tc.line), "id", "text")
		if string(id) != tc.id || string(text) != tc.text || ok != tc.ok {
			t.Errorf("Document(%s) = %s, %q, %v; want %s, %q, %v", tc.line, id, text, ok, tc.id, tc.text, tc.ok)
		}
		if cap(text) > 2*len(text) {
			t.Errorf("Document(%s): a text of %d bytes in %d", tc.line, len(text), cap(text))
		}
	}
	for _, s := range validSeeds {
		checkDocument(t, []byte(`{"id":"a","text":"b","x":`+s+`}`), "id", "text")
		checkDocument(t, []byte(`{"id":`+s+`,"text":"b"}`), "id", "text")
		checkDocument(t, []byte(`{"id":"a","text":`+s+`}`), "id", "text")
	}
}

// TestDocumentLongRest checks texts followed by more than maxScratch bytes
// of the line, and texts longer than that, which Document decodes without
// its scratch buffer: the same values as encoding/json, in slices at most
// twice as long as the text.
func TestDocumentLongRest(t *testing.T) {
	big := `"` + strings.Repeat("x", maxScratch) + `"`
	long := strings.Repeat(`\u00e9 \"12345678`, maxScratch/8)
	for _, text := range []string{
		`"b"`, `""`, `"1234567\n12345678\"\\abcdefgh\u00e9\u20ac\ud83d\ude00xyz\t"`,
		"\"Привет \xff\xe4\xb8 x\"", `"` + long + `"`, "\"" + long + "\xff\"",
		`"unterminated`, "\"12345678\x01\"",
	} {
		for _, line := range []string{
			`{"id":"a","text":` + text + `,"blob":` + big + `}`,
			`{"text":` + text + `,"id":` + big + `}`,
		} {
			checkDocument(t, []byte(line), "id", "text")
			if _, got, ok := Document([]byte(line), "id", "text"); ok && cap(got) > 2*len(got)+8 {
				t.Errorf("text of %d bytes in %d", len(got), cap(got))
			}
		}
	}
}

// checkDocument fails t if Document accepts line and encoding/json does
// not, or decodes it differently.
func checkDocument(t *testing.T, line []byte, idName, textName string) {
	t.Helper()
	id, text, ok := Document(line, idName, textName)
	wid, wtext, wok := document(line, idName, textName)
	if ok && (!wok || !bytes.Equal(id, wid) || !bytes.Equal(text, wtext)) {
		t.Fatalf("Document(%q, %q, %q) = %q, %q, %v; encoding/json: %q, %q, %v",
			line, idName, textName, id, text, ok, wid, wtext, wok)
	}
	if wok && !ok {
		t.Fatalf("Document(%q, %q, %q) refused what encoding/json decodes: %q, %q", line, idName, textName, wid, wtext)
	}
}

// FuzzDocument checks Document against encoding/json's decoding into a
// map: it accepts the same lines, with the same values.
func FuzzDocument(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","text":"b"}`, `{"id":1,"text":"\u041f\u0440\ud83d\ude00\ud83d"}`, "{\"id\":\"a\",\"text\":\"\xff\\n\"}",
		`{"t\u0065xt":"b","id":[1,{"a":null}],"text":"c"}`, `{"id":"a","text":"b","x":{"y":[true,false,-0.5e3]}}`,
		`{"id":"a","text":"1234567\n12345678\"\\abcdefgh\u00e9\u20ac\ud83d\ude00xyzxyzxy\t"}`,
	} {
		f.Add([]byte(s), "id", "text")
	}
	f.Fuzz(func(t *testing.T, line []byte, idName, textName string) {
		checkDocument(t, line, idName, textName)
	})
}
