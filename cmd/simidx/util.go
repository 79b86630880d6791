package main

// The helpers the commands share: how they name files, IDs, sizes and
// similarities in messages and tables.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// byteOrderMark is the UTF-8 encoding of U+FEFF, the byte order mark, which
// the readers of files skip.
const byteOrderMark = "\xef\xbb\xbf"

// trimPathError drops the operation from a *fs.PathError: "x: permission
// denied" rather than "open x: permission denied".
func trimPathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", path, pe.Err)
	}
	return err
}

// showSimilarity formats a similarity for a table with two decimals,
// truncated, so that it never shows a value across a threshold it does
// not reach (0.5952 is 0.59, not 0.60).
func showSimilarity(s float64) string {
	return strconv.FormatFloat(math.Floor(s*100+1e-9)/100, 'f', 2, 64)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// formatBytes formats n bytes in decimal units.
func formatBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
