package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
)

// byteOrderMark is the UTF-8 encoding of U+FEFF, the byte order mark, which
// the readers of files and of request bodies skip.
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

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
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
