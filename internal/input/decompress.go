package input

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// kind is what the first bytes of an input say it is.
type kind int

const (
	kindPlain kind = iota
	kindGzip
	kindBzip2
	kindZstd
	kindXz
	kindZip
	kindTar
)

func (k kind) String() string {
	return [...]string{"plain", "gzip", "bzip2", "zstd", "xz", "zip", "tar"}[k]
}

// suffix is the usual file name suffix of k, without the dot.
func (k kind) suffix() string {
	return [...]string{"txt", "gz", "bz2", "zst", "xz", "zip", "tar"}[k]
}

// compressed reports whether k is a compressed stream (of one document or
// of a tar archive).
func (k kind) compressed() bool { return k >= kindGzip && k <= kindXz }

// archive reports whether k is an archive of several members.
func (k kind) archive() bool { return k == kindZip || k == kindTar }

// sniffLen is how many bytes sniff looks at: a tar header.
const sniffLen = 512

// sniff tells the kind of the stream br from its first bytes, without
// consuming them. name is the stream's name without its compression
// suffix: a tar header without the "ustar" magic (of the old V7 format) is
// recognised only in a file named *.tar.
func sniff(br *bufio.Reader, name string) kind {
	b, _ := br.Peek(sniffLen)
	switch {
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return kindGzip
	case len(b) >= 10 && string(b[:3]) == "BZh" && '1' <= b[3] && b[3] <= '9' &&
		(string(b[4:10]) == "\x31\x41\x59\x26\x53\x59" || string(b[4:10]) == "\x17\x72\x45\x38\x50\x90"):
		// The block or end-of-stream magic after the header: a text
		// starting with "BZh9" is not taken for bzip2.
		return kindBzip2
	case bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return kindZstd
	case bytes.HasPrefix(b, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return kindXz
	case bytes.HasPrefix(b, []byte("PK\x03\x04")) || bytes.HasPrefix(b, []byte("PK\x05\x06")):
		return kindZip
	case isTarHeader(b, name):
		return kindTar
	}
	return kindPlain
}

// isTarHeader reports whether b starts with a tar header: one whose
// checksum is right and which has the ustar magic, or, for a file named
// *.tar, any header with the right checksum.
func isTarHeader(b []byte, name string) bool {
	if len(b) < sniffLen {
		return false
	}
	magic := string(b[257:262]) == "ustar"
	if !magic && !strings.HasSuffix(strings.ToLower(name), ".tar") {
		return false
	}
	// The checksum field holds octal digits, ended by NUL or space.
	field := strings.TrimRight(strings.TrimLeft(string(b[148:156]), " \x00"), " \x00")
	var want int64
	if field == "" {
		return false
	}
	for _, c := range []byte(field) {
		if c < '0' || c > '7' {
			return false
		}
		want = want*8 + int64(c-'0')
	}
	var sum int64
	for i, c := range b[:sniffLen] {
		if 148 <= i && i < 156 {
			c = ' '
		}
		sum += int64(c)
	}
	return sum == want
}

// compressionSuffixes are the names that say a file is compressed, and
// what the name is without them.
var compressionSuffixes = []struct{ suffix, replace string }{
	{".gz", ""}, {".gzip", ""}, {".bz2", ""}, {".bzip2", ""}, {".zst", ""}, {".zstd", ""}, {".xz", ""},
	{".tgz", ".tar"}, {".tbz", ".tar"}, {".tbz2", ".tar"}, {".tzst", ".tar"}, {".txz", ".tar"},
}

// trimCompression returns name without its compression suffix (x.jsonl.gz
// is x.jsonl, x.tgz is x.tar), and whether it had one.
func trimCompression(name string) (string, bool) {
	lower := strings.ToLower(name)
	for _, s := range compressionSuffixes {
		if strings.HasSuffix(lower, s.suffix) {
			return name[:len(name)-len(s.suffix)] + s.replace, true
		}
	}
	return name, false
}

// archiveName reports whether name says the file is an archive (or a
// compressed one): such a file is read whatever --include says, and its
// members are matched instead.
func archiveName(name string) bool {
	base, _ := trimCompression(name)
	lower := strings.ToLower(base)
	return strings.HasSuffix(lower, ".tar") || strings.HasSuffix(lower, ".zip")
}

// maxZstdWindow is the largest zstd window accepted, as the zstd tool
// accepts by default; a frame asking for more is refused as corrupt.
const maxZstdWindow = 128 << 20

// decoders keeps decompressors for reuse: making a gzip or zstd reader
// allocates its tables, which costs more than a small file. A reader uses
// one at a time per level of nesting, on one goroutine.
type decoders struct {
	gzip  []*gzip.Reader
	zstd  []*zstd.Decoder
	flate []io.ReadCloser
}

// deflate returns a deflate decompressor of src for zip members, which
// gives itself back when closed.
func (ds *decoders) deflate(src io.Reader) io.ReadCloser {
	if n := len(ds.flate); n > 0 {
		f := ds.flate[n-1]
		ds.flate = ds.flate[:n-1]
		if f.(flate.Resetter).Reset(src, nil) == nil {
			return &pooledFlate{f, ds}
		}
	}
	return &pooledFlate{flate.NewReader(src), ds}
}

// pooledFlate is a flate decompressor that goes back to its decoders when
// closed.
type pooledFlate struct {
	io.ReadCloser
	ds *decoders
}

func (p *pooledFlate) Close() error {
	if p.ReadCloser == nil {
		return nil
	}
	err := p.ReadCloser.Close()
	p.ds.flate = append(p.ds.flate, p.ReadCloser)
	p.ReadCloser = nil
	return err
}

// open returns the decompressed stream of src, of kind k, and a function
// that gives its decoder back.
func (ds *decoders) open(k kind, src io.Reader) (io.Reader, func(), error) {
	switch k {
	case kindGzip:
		var z *gzip.Reader
		if n := len(ds.gzip); n > 0 {
			z, ds.gzip = ds.gzip[n-1], ds.gzip[:n-1]
			if err := z.Reset(src); err != nil {
				ds.gzip = append(ds.gzip, z)
				return nil, nil, err
			}
		} else {
			var err error
			if z, err = gzip.NewReader(src); err != nil {
				return nil, nil, err
			}
		}
		return z, func() { ds.gzip = append(ds.gzip, z) }, nil
	case kindZstd:
		var z *zstd.Decoder
		if n := len(ds.zstd); n > 0 {
			z, ds.zstd = ds.zstd[n-1], ds.zstd[:n-1]
			if err := z.Reset(src); err != nil {
				ds.zstd = append(ds.zstd, z)
				return nil, nil, err
			}
		} else {
			var err error
			z, err = zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
			if err != nil {
				return nil, nil, err
			}
		}
		return z, func() {
			z.Reset(nil) // drops its hold on src
			ds.zstd = append(ds.zstd, z)
		}, nil
	case kindBzip2:
		return bzip2.NewReader(src), func() {}, nil
	case kindXz:
		z, err := xz.NewReader(src)
		if err != nil {
			return nil, nil, err
		}
		return z, func() {}, nil
	}
	return nil, nil, fmt.Errorf("%v is not a compressed stream", k)
}

// close releases the decoders kept.
func (ds *decoders) close() {
	for _, z := range ds.zstd {
		z.Close()
	}
	ds.zstd, ds.gzip, ds.flate = nil, nil, nil
}

// fileError is an error of the file system under a stream (a read that
// failed), as opposed to an error of the data (a corrupt stream).
type fileError struct{ err error }

func (e *fileError) Error() string { return e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// fileReader marks the errors of reading r as fileErrors.
type fileReader struct{ r io.Reader }

func (f fileReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err != nil && err != io.EOF {
		err = &fileError{err}
	}
	return n, err
}

// fileReaderAt marks the errors of reading r as fileErrors.
type fileReaderAt struct{ r io.ReaderAt }

func (f fileReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.r.ReadAt(p, off)
	if err != nil && err != io.EOF {
		err = &fileError{err}
	}
	return n, err
}

// limitError is the error of a limit on decompressed bytes.
type limitError struct {
	what  string // the flag
	limit int64
}

func (e *limitError) Error() string {
	return fmt.Sprintf("more than %s decompressed (%s)", formatSize(e.limit), e.what)
}

// limitReader reads from r while *left, which several readers may share,
// stays at 0 or more, and fails with err past it.
type limitReader struct {
	r    io.Reader
	left *int64
	err  *limitError
}

func (l *limitReader) Read(p []byte) (int, error) {
	if *l.left < 0 {
		return 0, l.err
	}
	if int64(len(p)) > *l.left+1 {
		p = p[:*l.left+1]
	}
	n, err := l.r.Read(p)
	*l.left -= int64(n)
	if *l.left < 0 {
		return n + int(*l.left), l.err
	}
	return n, err
}

// corruptText describes a stream error of data of kind what: "unexpected
// EOF" rather than an empty message for a truncated stream.
func corruptText(err error) string {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated"
	}
	return err.Error()
}
