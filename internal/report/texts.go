package report

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"
)

// Texts are the texts of the documents read in a run, spooled to an
// unlinked temporary file as they are read, each cut to at most a limit
// (Options.MaxText), so that a report can show the texts of the members of
// its clusters without holding the corpus in memory: the spool is read
// back once, sequentially, for the IDs of the members alone. Memory: a
// buffer while reading, then an offset per member read back.
type Texts struct {
	f     *os.File
	w     *bufio.Writer
	off   int64
	max   int
	read  int
	err   error
	spans map[string]textSpan // of the members looked up, by ID
}

// textSpan is where a text is in the spool: n bytes at off, cut from a
// text of size bytes; fingerprint says the document was added as a
// fingerprint, without a text.
type textSpan struct {
	off         int64
	n           int
	size        int64
	fingerprint bool
}

// NewTexts returns a spool of texts in a new unlinked file of dir (the
// system's temporary directory when dir is ""), keeping at most limit
// bytes of each text (DefaultMaxText when limit is 0). It must be closed.
func NewTexts(dir string, limit int) (*Texts, error) {
	if limit <= 0 {
		limit = DefaultMaxText
	}
	f, err := os.CreateTemp(dir, "simidx-texts-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // the open file is enough
	return &Texts{f: f, w: bufio.NewWriterSize(f, 1<<20), max: limit}, nil
}

// Add records the text of document id: its first bytes, at most the
// limit, cut at the end of a character (and of a word when one ends in
// the last 1 KiB kept). fingerprint says the document has no text (added
// as a fingerprint). A document added again (an ID read twice) has the
// text read last. An error of the spool is kept and returned by the report.
func (t *Texts) Add(id string, text []byte, fingerprint bool) {
	if t.err != nil {
		return
	}
	t.read++
	size := len(text)
	text = cut(text, t.max)
	var head [3 * binary.MaxVarintLen64]byte
	n := binary.PutUvarint(head[:], uint64(len(id)))
	flag := uint64(size) << 1
	if fingerprint {
		flag |= 1
	}
	m := binary.PutUvarint(head[n:], flag)
	m += binary.PutUvarint(head[n+m:], uint64(len(text)))
	t.write(head[:n])
	t.write([]byte(id))
	t.write(head[n : n+m])
	t.write(text)
}

func (t *Texts) write(b []byte) {
	if t.err != nil {
		return
	}
	var n int
	n, t.err = t.w.Write(b)
	t.off += int64(n)
}

// Read returns the number of documents recorded.
func (t *Texts) Read() int { return t.read }

// Close removes the spool.
func (t *Texts) Close() error { return t.f.Close() }

// cut returns the first bytes of text, at most max, ending at the end of a
// UTF-8 character, and at a white space when there is one in the last
// 1 KiB.
func cut(text []byte, limit int) []byte {
	if len(text) <= limit {
		return text
	}
	n := limit
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	from := max(0, n-1024)
	if i := bytes.LastIndexAny(text[from:n], " \t\r\n"); i >= 0 {
		n = from + i + 1
	}
	return text[:n]
}

// lookup reads the spool once and records where the texts of the IDs
// wanted are.
func (t *Texts) lookup(wanted map[string]bool) error {
	if t.err != nil {
		return fmt.Errorf("spooling the texts read: %w", t.err)
	}
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("spooling the texts read: %w", err)
	}
	t.spans = make(map[string]textSpan, len(wanted))
	r := bufio.NewReaderSize(io.NewSectionReader(t.f, 0, t.off), 1<<20)
	var off int64
	var id []byte
	for off < t.off {
		idLen, n1, err := uvarint(r)
		if err != nil {
			return err
		}
		if idLen > 1<<20 {
			return spoolErr(fmt.Errorf("an ID of %d bytes", idLen))
		}
		id = slices.Grow(id[:0], int(idLen))[:idLen]
		if _, err := io.ReadFull(r, id); err != nil {
			return spoolErr(err)
		}
		flag, n2, err := uvarint(r)
		if err != nil {
			return err
		}
		textLen, n3, err := uvarint(r)
		if err != nil {
			return err
		}
		start := off + int64(n1) + int64(idLen) + int64(n2) + int64(n3)
		if wanted[string(id)] {
			t.spans[string(id)] = textSpan{off: start, n: int(textLen), size: int64(flag >> 1), fingerprint: flag&1 == 1}
		}
		if _, err := r.Discard(int(textLen)); err != nil {
			return spoolErr(err)
		}
		off = start + int64(textLen)
	}
	return nil
}

// text returns the text of id kept in the spool (as valid UTF-8, each
// invalid byte sequence made U+FFFD), its size as read, and whether it was
// read in this run; lookup must have been called with id.
func (t *Texts) text(id string) ([]byte, textSpan, error) {
	sp, found := t.spans[id]
	if !found {
		return nil, sp, errNotRead
	}
	b := make([]byte, sp.n)
	if _, err := t.f.ReadAt(b, sp.off); err != nil {
		return nil, sp, spoolErr(err)
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD")), sp, nil
}

// errNotRead says a member's text was not read in this run.
var errNotRead = fmt.Errorf("not read in this run")

func uvarint(r *bufio.Reader) (uint64, int, error) {
	v, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, 0, spoolErr(err)
	}
	var b [binary.MaxVarintLen64]byte
	return v, binary.PutUvarint(b[:], v), nil
}

func spoolErr(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading the texts back: %w", err)
}
