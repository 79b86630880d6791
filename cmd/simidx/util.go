package main

import (
	"errors"
	"fmt"
	"io/fs"
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
