package input

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
)

// fuzzReader returns a reader with small limits, which warns to nowhere.
func fuzzReader(format string) *Reader {
	warn := console.New(io.Discard, "fuzz")
	warn.ShowAll()
	return &Reader{
		flags: Flags{format: format, maxSize: -1, maxMember: 1 << 20, maxArchive: 4 << 20},
		sel:   &selection{},
		warn:  warn,
		// Every document apart: keepApart runs on every ID.
		Unique: true,
		Store:  true,
	}
}

// fuzzRead reads data as the file name, in format, and checks what it
// read: each document at most the member limit.
func fuzzRead(t *testing.T, name, format string, data []byte) {
	r := fuzzReader(format)
	defer r.dec.close()
	// As a member, the document limit is --max-member-size: a
	// compressed stream cannot make a run long.
	in := source{name: name, id: name, format: fileFormat(format, name), size: -1, member: true, included: true}
	ok, err := r.readStream(in, bytes.NewReader(data), bytes.NewReader(data), int64(len(data)), "", func(d index.Doc) bool {
		if len(d.Text) > int(r.flags.maxMember) {
			t.Errorf("%s: a document of %d bytes, over the member limit", d.ID, len(d.Text))
		}
		return true
	})
	if !ok {
		t.Error("readStream stopped, but send never did")
	}
	if err != nil {
		r.report(name, err, false)
	}
	if r.tooLarge.Load() == 0 && r.bytes.Load() > int64(r.flags.maxArchive)+int64(r.flags.maxMember) {
		t.Errorf("read %d bytes of text without reaching a limit", r.bytes.Load())
	}
}

// archiveSeeds are archives, compressed or not, nested, and broken:
// truncated at several points, with bytes flipped.
func archiveSeeds(t testing.TB) [][]byte {
	text := "the quick brown fox jumps over the lazy dog\n"
	zipped := zipBytes(t, member{"a.txt", text}, member{"dir/", ""}, member{"../b.txt", text}, member{".hidden", text})
	tarred := tarBytes(t, member{"a.txt", text}, member{"dir/", ""}, member{"./c.jsonl", `{"id":"x","text":"y"}` + "\n"})
	nested := tarBytes(t, member{"in.zip", string(zipped)}, member{"in.tar", string(tarred)}, member{"t.gz", string(gzipBytes(t, []byte(text)))})
	seeds := [][]byte{
		zipped, tarred, nested,
		gzipBytes(t, tarred), zstdBytes(t, tarred), xzBytes(t, tarred),
		gzipBytes(t, nested), zipBytes(t, member{"n.tgz", string(gzipBytes(t, nested))}),
		gzipBytes(t, []byte(text)), zstdBytes(t, []byte(text)), xzBytes(t, []byte(text)), []byte(helloBz2),
		[]byte(text), {}, {0x1f, 0x8b}, []byte("PK\x05\x06"),
	}
	for _, s := range seeds[:8] {
		for _, cut := range []int{len(s) / 3, len(s) / 2, len(s) - 1, 600} {
			if cut < len(s) {
				seeds = append(seeds, s[:cut])
			}
		}
		for _, at := range []int{len(s) / 4, len(s) / 2, len(s) - 20} {
			if at > 0 && at < len(s) {
				c := bytes.Clone(s)
				c[at] ^= 0x55
				seeds = append(seeds, c)
			}
		}
	}
	return seeds
}

// FuzzReadArchive reads arbitrary bytes as a file named fuzz.tar: archives,
// compressed streams, truncated and corrupt ones. It must not panic or
// hang, nor read past the limits.
func FuzzReadArchive(f *testing.F) {
	for _, s := range archiveSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "fuzz.tar", Auto, data)
	})
}

// FuzzReadCompressedLines reads arbitrary bytes as compressed JSON lines
// and compressed lines: corrupt and truncated streams, long lines.
func FuzzReadCompressedLines(f *testing.F) {
	lines := []byte(`{"id": "a", "text": "the quick brown fox"}` + "\n" + `{"id": 7, "text": "jumps"}` + "\nnot json\n\n" + `{"id": "a", "text": "again"}`)
	for _, s := range [][]byte{
		gzipBytes(f, lines), zstdBytes(f, lines), xzBytes(f, lines), []byte(helloBz2), lines,
		gzipBytes(f, bytes.Repeat([]byte("x"), 3<<20)),
	} {
		f.Add(s, false)
		f.Add(s, true)
		f.Add(s[:len(s)*2/3], false)
	}
	f.Fuzz(func(t *testing.T, data []byte, plain bool) {
		if plain {
			fuzzRead(t, "fuzz.txt.gz", Lines, data)
		} else {
			fuzzRead(t, "fuzz.jsonl.gz", Auto, data)
		}
	})
}

// TestSniff checks that the kinds are told by their first bytes, and that
// text is not taken for one.
func TestSniff(t *testing.T) {
	text := []byte("BZh9 is how a bzip2 stream starts, PK\x03\x04 a zip, and ustar is at 257 in a tar header")
	tarred := tarBytes(t, member{"a.txt", "x"})
	for _, tc := range []struct {
		data []byte
		name string
		want kind
	}{
		{gzipBytes(t, text), "x", kindGzip},
		{zstdBytes(t, text), "x", kindZstd},
		{xzBytes(t, text), "x", kindXz},
		{[]byte(helloBz2), "x", kindBzip2},
		{zipBytes(t, member{"a", "b"}), "x", kindZip},
		{tarred, "x", kindTar},
		{text, "x", kindPlain},
		{append(bytes.Repeat([]byte(" "), 257), "ustar and more text, for a full header of 512 bytes..."+string(bytes.Repeat([]byte("."), 300))...), "x.tar", kindPlain},
		{[]byte("BZh91AY&SX"), "x", kindPlain},
		{[]byte{}, "x", kindPlain},
	} {
		br := bufioReader(tc.data)
		if got := sniff(br, tc.name); got != tc.want {
			t.Errorf("sniff(%.20q) = %v, want %v", tc.data, got, tc.want)
		}
	}
	// A V7 tar header (no magic) is a tar only by the name.
	v7 := bytes.Clone(tarred)
	copy(v7[257:265], make([]byte, 8))
	sum := 0
	for i, c := range v7[:512] {
		if 148 <= i && i < 156 {
			c = ' '
		}
		sum += int(c)
	}
	copy(v7[148:156], []byte(octal(sum)))
	if got := sniff(bufioReader(v7), "old.tar"); got != kindTar {
		t.Errorf("V7 tar named old.tar: %v", got)
	}
	if got := sniff(bufioReader(v7), "old.dat"); got != kindPlain {
		t.Errorf("V7 tar named old.dat: %v", got)
	}
}

func bufioReader(data []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(data)) }

// octal is a tar checksum field.
func octal(n int) string { return fmt.Sprintf("%06o\x00 ", n) }
