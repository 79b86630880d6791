package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
	"github.com/spf13/pflag"
)

// outputFlags are --format and --output.
type outputFlags struct {
	format string
	output string
}

func (o *outputFlags) add(fs *pflag.FlagSet) {
	fs.StringVarP(&o.format, "format", "f", "table", "output `format`: table or jsonl (one JSON object per line)")
	fs.StringVarP(&o.output, "output", "o", "", "write the output to `FILE` instead of standard output")
}

// check validates the flags before any work is done. db is the --db
// index of the command ("" if none): an --output that is the index, or a
// file of its journal, is refused before anything is opened, as writing it
// would truncate the index.
func (o *outputFlags) check(db string) error {
	switch strings.ToLower(o.format) {
	case "table", "text":
		o.format = "table"
	case "jsonl", "json", "ndjson":
		o.format = "jsonl"
	default:
		return usagef("--format must be table or jsonl, not %q", o.format)
	}
	if o.output == "" || o.output == "-" || db == "" {
		return nil
	}
	if samePath(o.output, db) {
		return usagef("--output %s is the index --db %s: writing the output there would destroy the index; give another file", o.output, db)
	}
	if jd := index.LogDir(db); samePath(o.output, jd) || samePath(filepath.Dir(o.output), jd) {
		return usagef("--output %s is in the journal %s of the index --db %s: writing the output there would destroy the journal; give a file outside it", o.output, jd, db)
	}
	return nil
}

// samePath reports whether the paths a and b lead to the same file: when
// both exist, the same file (device and inode), however they are spelled
// and whatever symbolic or hard links lead there; when neither does, the
// same name in the same directory, a dangling symbolic link a followed
// (creating a would create b). Cost: a few stats.
func samePath(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	switch {
	case errA == nil && errB == nil:
		return os.SameFile(fa, fb)
	case errA == nil || errB == nil:
		return false
	}
	if fi, err := os.Lstat(a); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, err := os.Readlink(a); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(a), target)
			}
			a = target
		}
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, errA := os.Stat(filepath.Dir(a))
	db, errB := os.Stat(filepath.Dir(b))
	return errA == nil && errB == nil && os.SameFile(da, db)
}

// open returns the writer of the records: a table or JSON lines on standard
// output or the --output file. Close flushes it and reports write errors.
func (o *outputFlags) open(stdout io.Writer) (*output, error) {
	out := &output{jsonl: o.format == "jsonl"}
	w := stdout
	if o.output != "" && o.output != "-" {
		f, err := os.Create(o.output)
		if err != nil {
			return nil, err
		}
		out.file = f
		w = f
	}
	out.buf = bufio.NewWriterSize(w, 64<<10)
	if out.jsonl {
		out.enc = json.NewEncoder(out.buf)
		out.enc.SetEscapeHTML(false)
	} else {
		out.tab = tabwriter.NewWriter(out.buf, 0, 8, tabPadding, ' ', 0)
	}
	return out, nil
}

// output writes records as an aligned table or as JSON lines.
type output struct {
	jsonl bool
	file  *os.File
	buf   *bufio.Writer
	enc   *json.Encoder
	tab   *tabwriter.Writer
	head  []string // the table header, until the first row writes it
	// widths, once measure has seen every row, are the widths of the
	// table's columns but the last, padding included: row then writes
	// each line at once, aligned as tab aligns a whole table.
	widths []int
	err    error
}

// tabPadding is the padding of the table's columns (see open).
const tabPadding = 2

// measure takes the widths of a row that row will write later. Called
// with every row of a table before the first is written, it makes row
// write each line at once, aligned as the tabwriter aligns the whole
// table, which it holds in memory until Close (the header included).
// Nothing with JSON lines.
func (o *output) measure(cols ...string) {
	if o.jsonl {
		return
	}
	if o.widths == nil && o.head != nil {
		o.widths = make([]int, len(o.head)-1)
		o.measure(o.head...)
	}
	for i, c := range cols[:len(cols)-1] {
		for len(o.widths) <= i {
			o.widths = append(o.widths, 0)
		}
		o.widths[i] = max(o.widths[i], utf8.RuneCountInString(c)+tabPadding)
	}
}

// header sets the table header (none with JSON lines). It is written with
// the first row: a table without rows, or a command that fails before its
// first row, prints nothing.
func (o *output) header(cols ...string) {
	if !o.jsonl {
		o.head = cols
	}
}

// row writes one table row, after the header if it is the first.
func (o *output) row(cols ...string) {
	if o.head != nil {
		head := o.head
		o.head = nil
		o.row(head...)
	}
	if o.err != nil {
		return
	}
	if o.widths == nil {
		_, o.err = fmt.Fprintln(o.tab, strings.Join(cols, "\t"))
		return
	}
	// Measured: padded here and written past the tabwriter, which holds
	// nothing.
	for i, c := range cols[:len(cols)-1] {
		o.buf.WriteString(c)
		for range o.widths[i] - utf8.RuneCountInString(c) {
			o.buf.WriteByte(' ')
		}
	}
	o.buf.WriteString(cols[len(cols)-1])
	o.err = o.buf.WriteByte('\n')
}

// json writes one JSON line.
func (o *output) json(v any) {
	if o.err == nil {
		o.err = o.enc.Encode(v)
	}
}

// Close flushes the output and closes the --output file.
func (o *output) Close() error {
	if o.tab != nil && o.err == nil {
		o.err = o.tab.Flush()
	}
	if o.err == nil {
		o.err = o.buf.Flush()
	}
	if o.file != nil {
		if err := o.file.Close(); o.err == nil {
			o.err = err
		}
	}
	return o.err
}

// cell returns a document ID (or another name) as a table cell: as it is,
// or quoted as a Go string if it has a control character (a tab or a
// newline would break the table), is not valid UTF-8, or starts with a
// double quote (and so would look quoted).
func cell(id string) string {
	if strings.HasPrefix(id, `"`) || !utf8.ValidString(id) || strings.IndexFunc(id, unicode.IsControl) >= 0 {
		return strconv.Quote(id)
	}
	return id
}

// similarity cuts a similarity to four decimals for JSON, truncating, so
// that it never shows a value across a threshold it does not reach
// (0.59996 is 0.5999). An estimate is a multiple of 1/K: four decimals
// keep what it says.
func similarity(s float64) *float64 {
	r := math.Floor(s*1e4+1e-7) / 1e4
	return &r
}

// hex16 formats a fingerprint as 16 hexadecimal digits.
func hex16(fp uint64) string { return fmt.Sprintf("%016x", fp) }
