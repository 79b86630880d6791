package input

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// The reads of EstimateDocs: the files of the line formats are counted
// whole up to estimateWhole bytes in all, and sampled beyond that in
// estimateChunks chunks of estimateChunk bytes.
const (
	estimateChunk  = 64 << 10
	estimateChunks = 64
	estimateWhole  = estimateChunk * estimateChunks
)

// EstimateDocs returns about how many documents the inputs hold, before
// they are read: one a file of the files format, and for the line formats
// (jsonl, lines, hashes) the lines of their files. The lines are counted
// exactly when those files hold at most 4 MiB in all; beyond that the
// newlines of 64 chunks of 64 KiB spread evenly over them give the lines
// per byte, times their size. Blank and invalid lines count, as do files
// that are skipped once read (binary ones), so the estimate is high by
// those. ok is false when the documents are not known before reading:
// standard input, a compressed file or an archive (by name), a file that
// cannot be read. Cost: at most 4 MiB read, in at most 64 reads, or one
// read a file when they are counted whole.
func (r *Reader) EstimateDocs() (n int64, ok bool) {
	if r.total < 0 {
		return 0, false
	}
	var lines []source // of the line formats, size > 0
	var size int64     // theirs
	for _, in := range r.inputs {
		switch {
		case in.format == Files:
			n++
		case in.size > 0:
			lines, size = append(lines, in), size+in.size
		}
	}
	if len(lines) == 0 {
		return n, true
	}
	if size <= estimateWhole {
		for _, in := range lines {
			c, _, err := countLines(in.path, 0, in.size)
			if err != nil {
				return 0, false
			}
			n += c
		}
		return n, true
	}
	// Chunk i starts at i*size/estimateChunks of the files taken end to
	// end; a chunk that runs past the end of its file is cut there.
	var newlines, read int64
	f, start := 0, int64(0) // the file of the chunk, and where it starts
	for i := range int64(estimateChunks) {
		off := i * size / estimateChunks
		for off >= start+lines[f].size {
			start += lines[f].size
			f++
		}
		in := lines[f]
		m := min(estimateChunk, in.size-(off-start))
		c, k, err := countLines(in.path, off-start, m)
		if err != nil {
			return 0, false
		}
		newlines, read = newlines+c, read+k
	}
	if read == 0 { // the files shrank since they were listed
		return 0, false
	}
	return n + int64(float64(newlines)/float64(read)*float64(size)), true
}

// countLines returns the lines of the m bytes at off in the file at path,
// or of as many as it still holds, read: their newlines, plus one for a
// last line without one when they reach the end of the file.
func countLines(path string, off, m int64) (lines, read int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	buf := make([]byte, m)
	k, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, err
	}
	buf = buf[:k]
	c := int64(bytes.Count(buf, []byte{'\n'}))
	if k > 0 && off+int64(k) == fi.Size() && buf[k-1] != '\n' {
		c++
	}
	return c, int64(k), nil
}
