// Package output writes the records of a command, as an aligned table or
// as JSON lines, through one buffer: the header of a table is written with
// its first row, the first write error is kept and ends the writing, and
// Close flushes and reports it. A table is aligned as text/tabwriter aligns
// it, held in memory until Close or its first TableRows rows, or, once
// Measure has seen every row, written a line at a time.
package output

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// Writer writes records as an aligned table or as JSON lines.
type Writer struct {
	jsonl bool
	file  *os.File
	buf   *bufio.Writer
	enc   *json.Encoder
	tab   *tabwriter.Writer
	head  []string // the table header, until the first row writes it
	// widths, once Measure has seen every row, are the widths of the
	// table's columns but the last, padding included: Row then writes
	// each line at once, aligned as tab aligns a whole table.
	widths []int
	// held is the number of rows the tabwriter holds since it last
	// flushed, seen the widths of its open column blocks (as Measure
	// takes widths): at TableRows rows they are written, and seen
	// becomes widths.
	held int
	seen []int
	// past says widths are those of the first TableRows rows, not
	// Measure's: a row with fewer cells ends their column blocks.
	past bool
	err  error
}

// TableRows is the most rows of a table (the header included) that a
// Writer holds in memory to align them, when Measure has not seen every
// row: past it, the rows are written, and the later ones padded to the
// widths of the column blocks then open, a wider cell followed by the
// padding alone (it pushes the rest of its line), until a line with fewer
// cells ends those blocks and rows are held again. Memory is bounded by
// these rows whatever the length of the table.
const TableRows = 4096

// New returns a Writer of JSON lines (jsonl set) or of a table to w.
func New(w io.Writer, jsonl bool) *Writer {
	out := &Writer{jsonl: jsonl, buf: bufio.NewWriterSize(w, 64<<10)}
	if jsonl {
		out.enc = json.NewEncoder(out.buf)
		out.enc.SetEscapeHTML(false)
	} else {
		out.tab = tabwriter.NewWriter(out.buf, 0, 8, tabPadding, ' ', 0)
	}
	return out
}

// Create returns a Writer to the file name, created or truncated, which
// Close closes.
func Create(name string, jsonl bool) (*Writer, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	out := New(f, jsonl)
	out.file = f
	return out, nil
}

// tabPadding is the padding of the table's columns.
const tabPadding = 2

// JSONL reports whether the Writer writes JSON lines rather than a table.
func (o *Writer) JSONL() bool { return o.jsonl }

// Measure takes the widths of a row that Row will write later. Called
// with every row of a table before the first is written, it makes Row
// write each line at once, aligned as the tabwriter aligns the whole
// table, which it holds in memory until Close (the header included).
// Nothing with JSON lines.
func (o *Writer) Measure(cols ...string) {
	if o.jsonl {
		return
	}
	if o.widths == nil && o.head != nil {
		o.widths = make([]int, len(o.head)-1)
		o.Measure(o.head...)
	}
	o.widths = widen(o.widths, cols)
}

// widen returns widths widened to the cells of cols but the last, padding
// included.
func widen(widths []int, cols []string) []int {
	if len(cols) == 0 {
		return widths
	}
	for i, c := range cols[:len(cols)-1] {
		for len(widths) <= i {
			widths = append(widths, 0)
		}
		widths[i] = max(widths[i], utf8.RuneCountInString(c)+tabPadding)
	}
	return widths
}

// Header sets the table header (none with JSON lines). It is written with
// the first row: a table without rows, or a command that fails before its
// first row, prints nothing.
func (o *Writer) Header(cols ...string) {
	if !o.jsonl {
		o.head = cols
	}
}

// Row writes one table row, after the header if it is the first.
func (o *Writer) Row(cols ...string) {
	if o.head != nil {
		head := o.head
		o.head = nil
		o.Row(head...)
	}
	if o.err != nil {
		return
	}
	cells := max(len(cols)-1, 0) // the tab-terminated cells
	if o.past && cells < len(o.widths) {
		// The tabwriter's column blocks end here: hold the rows again.
		o.widths, o.past, o.held = nil, false, 0
	}
	if o.widths == nil {
		_, o.err = fmt.Fprintln(o.tab, strings.Join(cols, "\t"))
		o.seen = widen(o.seen[:min(len(o.seen), cells)], cols)
		if cells == 0 {
			o.held = 0 // a line of one cell: the tabwriter flushed
			return
		}
		if o.held++; o.held == TableRows && o.err == nil {
			// Written as aligned so far; the later rows to these widths.
			o.err = o.tab.Flush()
			o.widths, o.seen, o.past = o.seen, nil, true
		}
		return
	}
	// Measured (or past TableRows): padded here and written past the
	// tabwriter, which holds nothing.
	for i, c := range cols[:len(cols)-1] {
		o.buf.WriteString(c)
		pad := tabPadding
		if i < len(o.widths) {
			pad = max(o.widths[i]-utf8.RuneCountInString(c), tabPadding)
		}
		for range pad {
			o.buf.WriteByte(' ')
		}
	}
	o.buf.WriteString(cols[len(cols)-1])
	o.err = o.buf.WriteByte('\n')
}

// JSON writes one JSON line.
func (o *Writer) JSON(v any) {
	if o.err == nil {
		o.err = o.enc.Encode(v)
	}
}

// Write writes p as it is, past the table (for output of a layout of its
// own, or bytes copied): after an error, it writes nothing and returns the
// error.
func (o *Writer) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.buf.Write(p)
	o.err = err
	return n, err
}

// Err returns the first error of a write, or nil.
func (o *Writer) Err() error { return o.err }

// Close flushes the output and closes the file of Create.
func (o *Writer) Close() error {
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
