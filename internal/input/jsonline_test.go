package input

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/internal/console"
)

// jsonLineSeeds are lines of JSON lines, valid and not, that exercise
// every part of the JSON grammar and every problem of a line.
var jsonLineSeeds = []string{
	`{"id":"a","text":"plain"}`,
	` { "id" : "a" , "text" : "plain" } `,
	"\t{\r\n\"id\"\t:\n\"a\"\r,\"text\"\t:\"b\"\n}\r\n",
	`{"id":"a","text":""}`,
	`{"id":"a","text":"\" \\ \/ \b \f \n \r \t"}`,
	`{"id":"a","text":"\u0041\u00e9\u4e2d\uFFFF\u0000 nul"}`,
	`{"id":"a","text":"\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440"}`,
	`{"id":"a","text":"pair \ud83d\ude00 \uD83D\uDE00"}`,
	`{"id":"a","text":"lone high \ud83d then a"}`,
	`{"id":"a","text":"lone high at the end \ud83d"}`,
	`{"id":"a","text":"lone low \ude00\ud83d"}`,
	`{"id":"a","text":"high high \ud83d\ud83d\ude00"}`,
	`{"id":"a","text":"high then escape \ud83d\n"}`,
	`{"id":"a","text":"\\ud800 is no escape"}`,
	`{"id":"a","text":"bad escapes \x \u12"}`,
	`{"id":"a","text":"bad hex \u12g4"}`,
	`{"id":"a","text":"escape at the end \`,
	`{"id":"a","text":"single quote \'"}`,
	"{\"id\":\"a\",\"text\":\"invalid \xff UTF-8 \xc3\x28 \xed\xa0\x80 \xf0\x9f\x98\"}",
	"{\"id\":\"a\",\"text\":\"invalid \xff with escapes \\n\\u00e9\"}",
	"{\"id\":\"a\",\"text\":\"valid \u00e9\u4e2d\U0001F600 \ufffd\"}",
	"{\"id\":\"a\",\"text\":\"control \x01 character\"}",
	"{\"id\":\"a\",\"text\":\"tab \t in a string\"}",
	"{\"id\":\"\xff\",\"text\":\"invalid ID\"}",
	`{"id":"\ud800","text":"lone surrogate ID"}`,
	`{"id":"\ud83d\ude00","text":"pair ID"}`,
	`{"id":"a\u0062","text":"escaped ID"}`,
	`{"id":"","text":"empty ID"}`,
	`{"id":"a","text":"first","text":"last"}`,
	`{"id":"a","text":"first","text":5}`,
	`{"id":"a","text":5,"text":"last"}`,
	`{"id":"a","id":"b","text":"t"}`,
	`{"id":1,"id":"b","text":"t"}`,
	`{"id":"a","text":"t","x":{"y":[1,2,{"z":null}],"w":{}},"v":[],"u":[[[]]]}`,
	`{"x":[1,"]}",{"a":"}"}],"id":"a","text":"t"}`,
	`{"id":0,"text":"t"}`,
	`{"id":-0,"text":"t"}`,
	`{"id":1e5,"text":"t"}`,
	`{"id":1.5E-3,"text":"t"}`,
	`{"id":-12.25e+10,"text":"t"}`,
	`{"id":01,"text":"t"}`,
	`{"id":1.,"text":"t"}`,
	`{"id":.5,"text":"t"}`,
	`{"id":+1,"text":"t"}`,
	`{"id":-,"text":"t"}`,
	`{"id":1e,"text":"t"}`,
	`{"id":1e+,"text":"t"}`,
	`{"id":0x1,"text":"t"}`,
	`{"id":true,"text":"t"}`,
	`{"id":false,"text":"t"}`,
	`{"id":null,"text":"t"}`,
	`{"id":[1],"text":"t"}`,
	`{"id":{"a":1},"text":"t"}`,
	`{"id":tru,"text":"t"}`,
	`{"id":nul,"text":"t"}`,
	`{"id":fals,"text":"t"}`,
	`{"id":truex,"text":"t"}`,
	`{"id":"a","text":"t","x":tru}`,
	`{"id":"a","text":"t","x":nulll}`,
	`{"id":"a","text":"t","x":[1,]}`,
	`{"id":"a","text":"t","x":{"a":1,}}`,
	`{"id":"a","text":"t","x":{"a"}}`,
	`{"id":"a","text":"t","x":{1:2}}`,
	`{"id":"a","text":"t",}`,
	`{"id":"a" "text":"t"}`,
	`{"id":"a","text":"t"}x`,
	`{"id":"a","text":"t"}{}`,
	`{"id":"a","text":"t"} 1`,
	`{"id":"a","text":"t"`,
	`{"id":"a","text":`,
	`{"id":"a"`,
	`{"id"`,
	`{`,
	`{}`,
	``,
	`   `,
	`"a string"`,
	`[{"id":"a","text":"t"}]`,
	`5`,
	`null`,
	`true`,
	`{"text":"no ID"}`,
	`{"id":"a"}`,
	`{"id":"a","text":null}`,
	`{"id":"a","text":7}`,
	`{"id":"a","text":["t"]}`,
	`{"id":"a","text":{"t":1}}`,
	`{"ID":"a","Text":"case differs"}`,
	`{"\u0069d":"a","t\u0065xt":"escaped names"}`,
	"{\"id\":\"a\",\"t\xffext\":\"invalid name\"}",
	"{\"id\":\"a\",\"text\":\"t\",\"\xff\":1}",
	`{"id":"a","text":"t","\ud800":1}`,
	"{\"id\":\"a\",\"text\":\"a NUL \x00 byte\"}",
	"\ufeff{\"id\":\"a\",\"text\":\"a byte order mark\"}",
	"{\"id\":\"a\",\"text\":\"t\"}\x00",
	"{\"id\":\"a\",\"text\":\"t\"}\v",
	"\x0c{\"id\":\"a\",\"text\":\"t\"}",
	`{"id":"a","text":"t","x":"` + strings.Repeat("long ", 100) + `"}`,
	`{"id":"a","text":"t","deep":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
	`{"id":"a","text":"t","deep":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"id":"a","text":"t","deep":` + strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000) + `}`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// TestParseJSONLine checks the documents and problems of some lines.
func TestParseJSONLine(t *testing.T) {
	for _, tc := range []struct {
		line, id, text, problem string
	}{
		{`{"id":"a","text":"plain"}`, "a", "plain", ""},
		{` { "id" : 7 , "text" : "x" } `, "7", "x", ""},
		{`{"id":-1.5e3,"text":"x"}`, "-1.5e3", "x", ""},
		{`{"id":"a","text":"\" \\ \/ \b \f \n \r \t"}`, "a", "\" \\ / \b \f \n \r \t", ""},
		{`{"id":"a","text":"\u041f\u0440\u0438 \u4e2d\u0000"}`, "a", "При 中\x00", ""},
		{`{"id":"a","text":"\ud83d\ude00 \ud83d \ude00\ud83d\u0041"}`, "a", "\U0001F600 \ufffd \ufffd\ufffdA", ""},
		{"{\"id\":\"a\",\"text\":\"\xff\xc3\x28\\n\"}", "a", "\ufffd\ufffd(\n", ""},
		{`{"\u0069d":"a","t\u0065xt":"b"}`, "a", "b", ""},
		{`{"id":"a","text":"1","text":"2"}`, "a", "2", ""},
		{`{"id":"a","text":"t","x":[{"y":"]}"}, null, true, false, 0]}`, "a", "t", ""},
		{`{"id":"","text":"t"}`, "", "", "empty ID"},
		{`{"id":"a"}`, "", "", `no "text" field (set the text field with --text-field)`},
		{`{"text":"t"}`, "", "", `no "id" field (set the ID field with --id-field)`},
		{`{"id":"a","text":5}`, "", "", `field "text" is not a string`},
		{`{"id":true,"text":"t"}`, "", "", `field "id" is neither a string nor a number`},
		{`{"id":"\ud800","text":"t"}`, "", "", `field "id" holds the lone UTF-16 surrogate \ud800`},
		{"{\"id\":\"\xff\",\"text\":\"t\"}", "", "", `field "id" is not valid UTF-8`},
		{`[1]`, "", "", "not a JSON object but a JSON array"},
		{`{"id":01,"text":"t"}`, "", "", "invalid JSON: invalid character '1' after object key:value pair"},
		{`{"id":"a","text":"t"} x`, "", "", "invalid JSON: invalid character 'x' after top-level value"},
		{strings.Repeat("[", 10001), "", "", "invalid JSON: nested more than 10000 levels deep"},
	} {
		id, text, problem := ParseJSONLine([]byte(tc.line), "id", "text")
		if id != tc.id || string(text) != tc.text || problem != tc.problem {
			t.Errorf("ParseJSONLine(%q) = %q, %q, %q; want %q, %q, %q", tc.line, id, text, problem, tc.id, tc.text, tc.problem)
		}
	}
	for _, line := range jsonLineSeeds {
		checkJSONLine(t, []byte(line), "id", "text")
	}
	// The text is not part of the line.
	line := []byte(`{"id":"a","text":"plain"}`)
	_, text, _ := ParseJSONLine(line, "id", "text")
	if &text[0] == &line[len(`{"id":"a","text":"`)] {
		t.Error("the text is part of the line")
	}
}

// checkJSONLine fails t if ParseJSONLine and encoding/json disagree on
// line.
func checkJSONLine(t *testing.T, line []byte, idField, textField string) {
	t.Helper()
	id, text, problem := ParseJSONLine(line, idField, textField)
	wid, wtext, wproblem := parseJSONLineSlowly(line, idField, textField)
	if id != wid || !bytes.Equal(text, wtext) || (text == nil) != (wtext == nil) || problem != wproblem {
		t.Fatalf("ParseJSONLine(%q, %q, %q) = %q, %q, %q; encoding/json: %q, %q, %q",
			line, idField, textField, id, text, problem, wid, wtext, wproblem)
	}
}

// FuzzParseJSONLine checks ParseJSONLine against its decoding by
// encoding/json: the same ID, text and problem for any line and names.
func FuzzParseJSONLine(f *testing.F) {
	for _, line := range jsonLineSeeds {
		f.Add([]byte(line), "id", "text")
	}
	f.Add([]byte(`{"id":"a","text":"t"}`), "text", "text")
	f.Add([]byte(`{"id":"a","text":"t"}`), "id", "id")
	f.Add([]byte(`{"":"a","text":"t"}`), "", "text")
	f.Add([]byte(`{"\ufffd":"a","text":"t"}`), "\ufffd", "text")
	f.Add([]byte("{\"\xff\":\"a\",\"text\":\"t\"}"), "\ufffd", "text")
	f.Add([]byte("{\"\xff\":\"a\",\"text\":\"t\"}"), "\xff", "text")
	f.Add([]byte(`{"é":"a","t\u00e9":"t"}`), "é", "té")
	f.Fuzz(func(t *testing.T, line []byte, idField, textField string) {
		checkJSONLine(t, line, idField, textField)
	})
}

// TestReadLinesText checks that the documents of lines, read in the
// reader's buffer, keep their texts once the buffer is read over.
func TestReadLinesText(t *testing.T) {
	var jsonl, lines bytes.Buffer
	var want []string
	for i := range 5000 {
		text := fmt.Sprintf("text %d %s", i, strings.Repeat("x", i%50))
		want = append(want, text)
		fmt.Fprintf(&jsonl, "{\"id\":%d,\"text\":%q}\n", i, text)
		fmt.Fprintf(&lines, "%s\n", text)
	}
	dir := t.TempDir()
	writeBytes(t, dir, map[string][]byte{"d.jsonl": jsonl.Bytes(), "d.txt": lines.Bytes()})
	for _, tc := range []struct{ file, format string }{{"d.jsonl", JSONL}, {"d.txt", Lines}} {
		flags := parseFlags(t, "--input", tc.format)
		r, err := Open([]string{filepath.Join(dir, tc.file)}, flags, nil, console.New(io.Discard, "test"))
		if err != nil {
			t.Fatal(err)
		}
		var texts [][]byte
		for d, err := range r.All(context.Background()) {
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, d.Text)
		}
		if len(texts) != len(want) {
			t.Fatalf("%s: %d documents, want %d", tc.file, len(texts), len(want))
		}
		for i, text := range texts {
			if string(text) != want[i] {
				t.Fatalf("%s: document %d is %q, want %q", tc.file, i, text, want[i])
			}
		}
	}
}
