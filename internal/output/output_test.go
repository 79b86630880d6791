package output

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestTable checks that a measured table is written as the tabwriter
// aligns the same table, and that a table without rows writes nothing.
func TestTable(t *testing.T) {
	rows := [][]string{{"a", "bb", "c"}, {"dddd", "é", "long last column"}, {"", "x", ""}}
	write := func(measure bool) string {
		var b bytes.Buffer
		w := New(&b, false)
		w.Header("ID", "DISTANCE", "EXACT")
		if measure {
			for _, r := range rows {
				w.Measure(r...)
			}
		}
		for _, r := range rows {
			w.Row(r...)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want := "ID    DISTANCE  EXACT\na     bb        c\ndddd  é         long last column\n      x         \n"
	if got := write(false); got != want {
		t.Errorf("table %q, want %q", got, want)
	}
	if got := write(true); got != want {
		t.Errorf("measured table %q, want %q", got, want)
	}
	var b bytes.Buffer
	w := New(&b, false)
	w.Header("A", "B")
	if err := w.Close(); err != nil || b.Len() != 0 {
		t.Errorf("a table without rows wrote %q, %v", b.String(), err)
	}
}

// TestTableRows checks a table longer than TableRows: its first
// TableRows lines (the header's included) are aligned as the tabwriter
// aligns them alone, and the later ones to their widths, a wider cell
// followed by the padding.
func TestTableRows(t *testing.T) {
	var b bytes.Buffer
	w := New(&b, false)
	w.Header("ID", "DISTANCE", "EXACT")
	var lines []string
	for i := range TableRows + 2 {
		id := "doc" + strconv.Itoa(i%1000)
		w.Row(id, strconv.Itoa(i%7), "no")
		lines = append(lines, id+"\t"+strconv.Itoa(i%7)+"\tno")
	}
	w.Row("a-much-longer-id", "1", "yes")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	tw := tabwriter.NewWriter(&first, 0, 8, tabPadding, ' ', 0)
	fmt.Fprintln(tw, "ID\tDISTANCE\tEXACT")
	for _, l := range lines[:TableRows-1] {
		fmt.Fprintln(tw, l)
	}
	tw.Flush()
	want := first.String() + "doc95   0         no\ndoc96   1         no\ndoc97   2         no\na-much-longer-id  1         yes\n"
	if got := b.String(); got != want {
		t.Errorf("the table's end %q, want %q", got[max(0, len(got)-120):], want[len(want)-120:])
	}
}

// TestTableBlocks checks tables past TableRows whose lines change their
// number of cells, against the tabwriter's alignment of the same lines
// (column blocks end at a line with fewer cells): a block of measures
// before a long table, as compare --passages writes it; lines of one cell
// before a long table, which must not be held until Close; and a row
// without cells.
func TestTableBlocks(t *testing.T) {
	tabwriterOf := func(lines [][]string) string {
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 8, tabPadding, ' ', 0)
		for _, l := range lines {
			fmt.Fprintln(tw, strings.Join(l, "\t"))
		}
		tw.Flush()
		return b.String()
	}
	measures := [][]string{{"containment_a", "0.5"}, {"exact", "false"}, {""}, {"A_START", "A_END", "TEXT"}}
	lines := measures
	for i := range TableRows + 10 {
		lines = append(lines, []string{strconv.Itoa(i), strconv.Itoa(i + 1), "x"})
	}
	var b bytes.Buffer
	w := New(&b, false)
	for _, l := range lines {
		w.Row(l...)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The first TableRows lines of the table are as the tabwriter aligns
	// them, and so are the later ones here: no cell is wider.
	if got, want := b.String(), tabwriterOf(lines); got != want {
		t.Errorf("measures, then a long table: %d bytes unlike the tabwriter's %d", len(got), len(want))
	}

	// Lines of one cell, then a long table: the table is written before
	// Close once TableRows of its lines are held.
	var c bytes.Buffer
	w = New(&c, false)
	for i := range TableRows {
		w.Row("id" + strconv.Itoa(i))
	}
	w.Row()
	for i := range 4 * TableRows {
		w.Row(strconv.Itoa(i), "b", "c")
	}
	// Past the buffer (64 KB) once the table is no longer held.
	if c.Len() == 0 {
		t.Error("a long table after lines of one cell is held until Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestJSONL(t *testing.T) {
	var b bytes.Buffer
	w := New(&b, true)
	w.Header("ignored")
	w.JSON(map[string]string{"id": "<a&b>"})
	w.Write([]byte("raw\n"))
	if err := w.Close(); err != nil || !w.JSONL() {
		t.Fatal(err)
	}
	if want := "{\"id\":\"<a&b>\"}\nraw\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestErrors checks that the first write error is kept and returned by
// Close, and that Create writes a file.
func TestErrors(t *testing.T) {
	w := New(failing{}, true)
	w.JSON(string(make([]byte, 70<<10))) // more than the buffer
	if w.Err() == nil {
		t.Fatal("no error")
	}
	if _, err := w.Write([]byte("x")); err == nil || w.Close() == nil {
		t.Error("the error was not kept")
	}
	name := filepath.Join(t.TempDir(), "out.txt")
	w, err := Create(name, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Row("a", "b")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(name); err != nil || string(data) != "a  b\n" {
		t.Errorf("file holds %q, %v", data, err)
	}
	if _, err := Create(filepath.Join(name, "x"), false); err == nil {
		t.Error("created a file under a file")
	}
}
