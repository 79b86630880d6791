package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// The reads of EstimateDocs: the files of the line formats are counted
// whole up to estimateWhole bytes and estimateOpens files in all, and
// sampled beyond that in estimateChunks windows of estimateChunk bytes,
// opening at most estimateOpens files.
const (
	estimateChunk  = 64 << 10
	estimateChunks = 64
	estimateWhole  = estimateChunk * estimateChunks
	estimateOpens  = 1024
)

// EstimateDocs returns about how many documents the inputs hold, before
// they are read: one a file of the files format, and for the line formats
// (jsonl, lines, hashes) the lines of their files. Those lines are counted
// exactly when the files hold at most 4 MiB and are at most 1,024; beyond
// that, the files are taken end to end and 64 windows of 64 KiB spread
// evenly over them give the lines per byte (a window that reaches the end
// of a file goes on into the next; at most 1,024 files are opened in all),
// times their size. Blank and invalid lines count, as do files that are
// skipped once read (binary ones), so the estimate is high by those. ok is
// false when the documents are not known before reading: standard input,
// a named pipe or device, a compressed file or an archive (by name), a
// file that cannot be read or is no longer a regular file. Cost: at most
// 4 MiB read and 1,024 files opened.
func (r *Reader) EstimateDocs() (n int64, ok bool) {
	if r.total < 0 {
		return 0, false
	}
	var files []source // of the line formats, size > 0
	var size int64     // theirs
	for _, in := range r.inputs {
		switch {
		case in.format == Files:
			n++
		case in.size > 0:
			files, size = append(files, in), size+in.size
		}
	}
	if len(files) == 0 {
		return n, true
	}
	c := lineCounter{files: files, buf: make([]byte, estimateChunk)}
	if size <= estimateWhole && len(files) <= estimateOpens {
		lines, _, err := c.count(0, 0, size)
		if err != nil {
			return 0, false
		}
		return n + lines, true
	}
	// Window i starts at i*size/estimateChunks of the files taken end to
	// end.
	var lines, read int64
	f, start := 0, int64(0) // the file of the window, and where it starts
	for i := range int64(estimateChunks) {
		off := i * size / estimateChunks
		for off >= start+files[f].size {
			start += files[f].size
			f++
		}
		l, k, err := c.count(f, off-start, estimateChunk)
		if err != nil {
			return 0, false
		}
		lines, read = lines+l, read+k
	}
	if read == 0 { // the files shrank since they were listed
		return 0, false
	}
	return n + int64(float64(lines)/float64(read)*float64(size)), true
}

// lineCounter counts the lines of windows of files, opening at most
// estimateOpens of them.
type lineCounter struct {
	files []source
	opens int
	buf   []byte
}

// errNotRegular is the error of a file that is no longer a regular file.
var errNotRegular = errors.New("not a regular file")

// count returns the lines in the w bytes from offset off of file f of
// c.files taken end to end, and the bytes it read: fewer when the files
// end (or shrank since they were listed) or c may open no more. A file's
// lines are its newlines, and one more for a last line without one when
// the window reaches its end.
func (c *lineCounter) count(f int, off, w int64) (lines, read int64, err error) {
	for ; w > 0 && f < len(c.files) && c.opens < estimateOpens; f, off = f+1, 0 {
		c.opens++
		l, k, err := c.countFile(c.files[f].path, off, w)
		if err != nil {
			return 0, 0, err
		}
		lines, read, w = lines+l, read+k, w-k
	}
	return lines, read, nil
}

// countFile counts the lines of at most w bytes of the file at path from
// offset off, as count does, and returns them and the bytes it read. The
// file is opened without waiting, as Reader.read opens the files of a
// directory: one that became a named pipe is not waited on.
func (c *lineCounter) countFile(path string, off, w int64) (lines, read int64, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, 0, fmt.Errorf("%s: %w", path, errNotRegular)
	}
	var last byte
	for read < w {
		k, err := f.ReadAt(c.buf[:min(w-read, int64(len(c.buf)))], off+read)
		lines += int64(bytes.Count(c.buf[:k], []byte{'\n'}))
		if k > 0 {
			last = c.buf[k-1]
		}
		read += int64(k)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if read > 0 && off+read >= fi.Size() && last != '\n' {
		lines++
	}
	return lines, read, nil
}
