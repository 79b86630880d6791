package input

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/simidx/simidx/internal/console"
)

// BenchmarkReadTree reads a tree of texts (the sample licences, 8 copies
// of them in folders) through the input layer, as simidx index reads its
// INPUT: plain files, each file compressed (gzip, zstd, xz), and each
// folder as an archive (zip, tar.gz, tar.zst). The bytes per second are
// bytes of text, once decompressed, so that the figures compare.
func BenchmarkReadTree(b *testing.B) {
	names, err := filepath.Glob(filepath.Join(licenses, "*.txt"))
	if err != nil || len(names) == 0 {
		b.Fatal("no sample texts", err)
	}
	var texts []member
	var size int64
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, member{filepath.Base(n), string(data)})
		size += int64(len(data))
	}
	const copies = 8
	size *= copies
	for _, tc := range []struct {
		name string
		// write writes copy i of the texts under dir.
		write func(dir string, i int)
	}{
		{"plain", func(dir string, i int) {
			for _, m := range texts {
				writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d/%s", i, m[0]): []byte(m[1])})
			}
		}},
		{"gzip", func(dir string, i int) {
			for _, m := range texts {
				writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d/%s.gz", i, m[0]): gzipBytes(b, []byte(m[1]))})
			}
		}},
		{"zstd", func(dir string, i int) {
			for _, m := range texts {
				writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d/%s.zst", i, m[0]): zstdBytes(b, []byte(m[1]))})
			}
		}},
		{"xz", func(dir string, i int) {
			for _, m := range texts {
				writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d/%s.xz", i, m[0]): xzBytes(b, []byte(m[1]))})
			}
		}},
		{"zip", func(dir string, i int) {
			writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d.zip", i): zipBytes(b, texts...)})
		}},
		{"tar.gz", func(dir string, i int) {
			writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d.tar.gz", i): gzipBytes(b, tarBytes(b, texts...))})
		}},
		{"tar.zst", func(dir string, i int) {
			writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d.tar.zst", i): zstdBytes(b, tarBytes(b, texts...))})
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			for i := range copies {
				tc.write(dir, i)
			}
			flags := Flags{format: Auto, maxSize: -1, maxMember: defaultMaxMember, maxArchive: defaultMaxArchive}
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				r, err := Open([]string{dir}, flags, nil, console.New(io.Discard, "bench"))
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for d, err := range r.All(context.Background()) {
					if err != nil {
						b.Fatal(err)
					}
					n += int64(len(d.Text))
				}
				if n != size || r.Skipped() != 0 {
					b.Fatalf("read %d bytes of text, want %d; %d skipped", n, size, r.Skipped())
				}
			}
		})
	}
}

// BenchmarkReadJSONL reads a file of JSON lines through the input layer,
// as simidx index reads it: the lines of BenchmarkParseJSONLine, 8 times.
// The bytes per second are bytes of the file.
func BenchmarkReadJSONL(b *testing.B) {
	var data []byte
	lines := sampleLines(b)
	for range 8 {
		for _, kind := range []string{"ascii", "utf8", "escaped"} {
			for _, line := range lines[kind] {
				data = append(append(data, line...), '\n')
			}
		}
	}
	dir := b.TempDir()
	writeBytes(b, dir, map[string][]byte{"docs.jsonl": data})
	flags := Flags{format: Auto, idField: "id", textField: "text", maxSize: -1, maxMember: defaultMaxMember, maxArchive: defaultMaxArchive}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Open([]string{filepath.Join(dir, "docs.jsonl")}, flags, nil, console.New(io.Discard, "bench"))
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range r.All(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
		}
		if r.Skipped() != 0 {
			b.Fatalf("%d skipped", r.Skipped())
		}
	}
}

// BenchmarkParseJSONLine decodes the lines of sampleLines, of each kind,
// by ParseJSONLine (new) and by encoding/json (old), which decodes a line
// that is no document. The bytes per second are bytes of lines.
func BenchmarkParseJSONLine(b *testing.B) {
	for _, kind := range []string{"ascii", "utf8", "escaped"} {
		lines := sampleLines(b)[kind]
		var size int64
		for _, line := range lines {
			size += int64(len(line))
		}
		for _, parse := range []struct {
			name  string
			parse func(line []byte, idField, textField string) (string, []byte, string)
		}{
			{"old", parseJSONLineSlowly},
			{"new", ParseJSONLine},
		} {
			b.Run(kind+"/"+parse.name, func(b *testing.B) {
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					for _, line := range lines {
						if _, _, problem := parse.parse(line, "id", "text"); problem != "" {
							b.Fatal(problem)
						}
					}
				}
			})
		}
	}
}

// sampleLines returns lines of JSON lines made of the sample texts, by
// kind: the licences, nearly all ASCII (ascii); the multilingual sample's
// texts not in English, repeated to a few kB, as UTF-8 (utf8) and with
// every character beyond ASCII escaped as \uXXXX, as Python writes JSON
// by default (escaped).
func sampleLines(b *testing.B) map[string][][]byte {
	names, err := filepath.Glob(filepath.Join(licenses, "*.txt"))
	if err != nil || len(names) == 0 {
		b.Fatal("no sample texts", err)
	}
	var ascii []string
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		ascii = append(ascii, string(data))
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "shingle", "testdata", "sample.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var intl []string
	for line := range bytes.Lines(data) {
		var d struct{ Lang, Text string }
		if err := json.Unmarshal(line, &d); err != nil {
			b.Fatal(err)
		}
		if d.Lang != "en" && d.Text != "" {
			// Documents of a few kB, as the English ones.
			intl = append(intl, strings.Repeat(d.Text+"\n", 4096/len(d.Text)+1))
		}
	}
	lines := map[string][][]byte{}
	for _, tc := range []struct {
		name   string
		texts  []string
		escape bool
	}{
		{"ascii", ascii, false},
		{"utf8", intl, false},
		{"escaped", intl, true},
	} {
		for i, text := range tc.texts {
			lines[tc.name] = append(lines[tc.name], jsonLine(b, fmt.Sprintf("sample:%d", i), text, tc.escape))
		}
	}
	return lines
}

// jsonLine returns the line of JSON lines of a document, with every
// character beyond ASCII escaped if escape is set.
func jsonLine(b *testing.B, id, text string, escape bool) []byte {
	line, err := json.Marshal(struct {
		ID   string `json:"id"`
		Lang string `json:"lang"`
		Text string `json:"text"`
	}{id, "xx", text})
	if err != nil {
		b.Fatal(err)
	}
	if !escape {
		return line
	}
	var esc []byte
	for _, r := range string(line) {
		switch {
		case r < utf8.RuneSelf:
			esc = append(esc, byte(r))
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			esc = fmt.Appendf(esc, `\u%04x\u%04x`, r1, r2)
		default:
			esc = fmt.Appendf(esc, `\u%04x`, r)
		}
	}
	return esc
}
