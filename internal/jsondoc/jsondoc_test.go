package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
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
		got, err := String([]byte(tc.raw))
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("String(%s) = %q, %v; want %q", tc.raw, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("String(%s) = %q, %v; want an error with %q", tc.raw, got, err, tc.err)
		}
	}
}

// FuzzString checks String against encoding/json: what it accepts decodes
// to the same string, and it refuses nothing that encoding/json decodes
// without a replacement character.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"\\ud800"`, `"\u00e9t\u00e9"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		werr := json.Unmarshal(raw, &want)
		got, err := String(raw)
		if err == nil {
			if werr != nil || got != want || !utf8.ValidString(got) {
				t.Fatalf("String(%q) = %q; encoding/json: %q, %v", raw, got, want, werr)
			}
			return
		}
		if werr == nil && !strings.ContainsRune(want, utf8.RuneError) {
			t.Fatalf("String(%q) refused %q: %v", raw, want, err)
		}
	})
}

// TestBytes checks Bytes against encoding/json, and that a string without
// escapes is not copied.
func TestBytes(t *testing.T) {
	for _, raw := range []string{`"plain"`, `""`, `"a\u0041\n"`, `"\ud800 lone"`, "\"bad \xff byte\"", `"Привет"`} {
		got, err := Bytes([]byte(raw))
		var want string
		if werr := json.Unmarshal([]byte(raw), &want); err != nil || werr != nil || string(got) != want {
			t.Errorf("Bytes(%s) = %q, %v; encoding/json: %q, %v", raw, got, err, want, werr)
		}
	}
	raw := []byte(`"shared"`)
	if got, _ := Bytes(raw); &got[0] != &raw[1] {
		t.Error("Bytes copied a string without escapes")
	}
}

func TestKind(t *testing.T) {
	for raw, want := range map[string]string{
		` {"a":1}`: "object", `[1]`: "array", `"s"`: "string", `-1.5e3`: "number", `0`: "number",
		`true`: "boolean", `false`: "boolean", ` null `: "null", "  ": "nothing", "": "nothing",
	} {
		if got := Kind([]byte(raw)); got != want {
			t.Errorf("Kind(%q) = %s, want %s", raw, got, want)
		}
	}
}

// TestFields checks the names and values of an object's fields, in order,
// and that an error of f stops the reading.
func TestFields(t *testing.T) {
	raw := []byte(` { "id" : 7 , "t\u0065xt":"a \"b\"", "x": [1, {"y": "]}"}], "z":{},"n":null } `)
	var got []string
	if err := Fields(raw, func(name string, v []byte) error {
		got = append(got, name+"="+string(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{`id=7`, `text="a \"b\""`, `x=[1, {"y": "]}"}]`, `z={}`, `n=null`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Fields = %q, want %q", got, want)
	}
	stop := errors.New("stop")
	n := 0
	err := Fields(raw, func(name string, v []byte) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("Fields went on after an error: %d calls, %v", n, err)
	}
	if err := Fields([]byte("{ }"), func(string, []byte) error { return stop }); err != nil {
		t.Errorf("an empty object: %v", err)
	}
}

// FuzzFields checks Fields against encoding/json on valid JSON objects:
// the same names, each with the same value (the last of a name given
// twice, as encoding/json keeps).
func FuzzFields(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "id" : "a" , "text" : "b" } `, `{"id":1e3,"text":null,"x":[1,{"y":"]}"}],"z":{"a":[]}}`,
		`{"\u0069d":"escaped name","a\"b":true,"id":"twice"}`, `{"t":"\\\"","u":-0.5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || Kind(raw) != "object" {
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]json.RawMessage{}
		if err := Fields(raw, func(name string, v []byte) error {
			got[name] = v
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("Fields(%s): %d names, encoding/json %d", raw, len(got), len(want))
		}
		for name, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[name]), bytes.TrimSpace(v)) {
				t.Fatalf("Fields(%s): %q is %s, encoding/json %s", raw, name, got[name], v)
			}
		}
	})
}
