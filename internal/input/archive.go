package input

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/simidx/simidx/index"
)

// maxArchiveDepth is how deep archives are opened: an archive given or
// found in a directory is at depth 0, an archive inside it at depth 1; an
// archive inside that is not opened.
const maxArchiveDepth = 1

// Defaults of the archive limits.
const (
	defaultMaxMember  = index.MaxDocSize
	defaultMaxArchive = 1 << 30
)

// dataError is an error of the data of a compressed stream or archive: it
// is corrupt or truncated.
type dataError struct {
	what string // gzip, tar.gz, zip, ...
	err  error
}

func (e *dataError) Error() string { return e.what + ": " + e.err.Error() }
func (e *dataError) Unwrap() error { return e.err }

// asDataError marks err, met reading data of the kind what, as a dataError,
// unless it is an error of the file system, a limit, of the stream of an
// archive (which that archive reports), or already marked.
func asDataError(what string, err error) error {
	var fe *fileError
	var le *limitError
	var de *dataError
	var se *streamError
	if err == nil || errors.As(err, &fe) || errors.As(err, &le) || errors.As(err, &de) || errors.As(err, &se) {
		return err
	}
	return &dataError{what, err}
}

// streamError is an error of the stream that the archive at depth is
// read from (once decompressed): it goes up through the members and
// nested archives being read to that archive, which reports it.
type streamError struct {
	depth int
	err   error
}

func (e *streamError) Error() string { return e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// streamReader marks the errors of the stream of the archive at depth.
type streamReader struct {
	r     io.Reader
	depth int
}

func (s streamReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		var se *streamError
		if !errors.As(err, &se) {
			err = &streamError{s.depth, err}
		}
	}
	return n, err
}

// ancestors reports whether err, met reading the archive in, is for an
// archive above it to report: the stream that one is read from failed, or
// the limit of bytes they share (--max-archive-size) ran out.
func ancestors(in source, err error) bool {
	var se *streamError
	if errors.As(err, &se) && se.depth < in.depth {
		return true
	}
	var le *limitError
	return in.depth > 0 && errors.As(err, &le) && le.what == archiveFlag
}

// archiveError returns err, an error of the archive's own stream, to
// report as the archive's: a corrupt stream of the kind what, unless the
// file system or the limit failed.
func archiveError(what string, err error) error {
	var se *streamError
	if errors.As(err, &se) {
		err = se.err
	}
	return asDataError(what, err)
}

// report says why the input or member named name could not be read (in
// full: partial says documents of it were read before the error), and
// counts it.
func (r *Reader) report(name string, err error, partial bool) {
	rest := "skipped"
	if partial {
		rest = "the rest skipped"
	}
	var le *limitError
	var de *dataError
	switch {
	case errors.As(err, &le):
		r.tooLarge.Add(1)
		r.warn.Warnf("%s: %v, %s", name, le, rest)
	case errors.As(err, &de):
		r.corrupt.Add(1)
		r.warn.Warnf("%s: corrupt %s data (%s), %s", name, de.what, corruptText(de.err), rest)
	default:
		r.unreadable.Add(1)
		r.warn.Warnf("cannot read %v", trimPathError(name, err))
	}
}

// The flags of the archive limits.
const (
	memberFlag  = "--max-member-size"
	archiveFlag = "--max-archive-size"
)

// memberLimit and archiveLimit are the errors of the archive limits.
func (r *Reader) memberLimit() *limitError {
	return &limitError{memberFlag, int64(r.flags.maxMember)}
}

func (r *Reader) archiveLimit() *limitError {
	return &limitError{archiveFlag, int64(r.flags.maxArchive)}
}

// readArchive reads the members of the archive in, of kind k (tar or
// zip), from br or, for a zip in a regular file, from ra. what names the
// archive's format for messages (tar.gz). It reports its own errors and
// returns those for an archive above it to report (see ancestors).
func (r *Reader) readArchive(in source, k kind, what string, br *bufio.Reader, ra io.ReaderAt, size int64, send func(index.Doc) bool) (bool, error) {
	if in.depth > maxArchiveDepth {
		r.nested.Add(1)
		r.warn.Warnf("%s: %s archive inside an archive inside an archive, skipped (archives are opened to one level of nesting)", in.name, what)
		return true, nil
	}
	if in.budget == nil {
		left := int64(r.flags.maxArchive)
		in.budget = &left
	}
	if k == kindTar {
		return r.readTar(in, what, br, send)
	}
	if ra == nil {
		// A zip needs random access: one from standard input, a pipe,
		// a compressed stream or another archive is held in memory.
		left := int64(r.flags.maxArchive)
		data, err := io.ReadAll(&limitReader{r: br, left: &left, err: r.archiveLimit()})
		if err != nil {
			if ancestors(in, err) {
				return true, err
			}
			r.report(in.name, archiveError(what, err), false)
			return true, nil
		}
		ra, size = bytes.NewReader(data), int64(len(data))
	}
	return r.readZip(in, what, ra, size, send)
}

// readTar reads the members of a tar archive.
func (r *Reader) readTar(in source, what string, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	tr := tar.NewReader(streamReader{&limitReader{r: br, left: in.budget, err: r.archiveLimit()}, in.depth})
	before := r.docs.Load()
	fail := func(err error) (bool, error) {
		if ancestors(in, err) {
			return true, err
		}
		r.report(in.name, archiveError(what, err), r.docs.Load() > before)
		return true, nil
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			return fail(err)
		}
		m, ok := r.member(in, h.Name, tarMode(h.Typeflag))
		if !ok {
			continue
		}
		m.size = h.Size
		mbefore := r.docs.Load()
		cont, err := r.readStream(m, tr, nil, -1, "", send)
		if !cont {
			return false, nil
		}
		var le *limitError
		var de *dataError
		switch {
		case err == nil:
		case errors.As(err, &le) && le.what == memberFlag, errors.As(err, &de):
			// The member alone: too large, or a compressed member
			// that is corrupt.
			r.report(m.name, err, r.docs.Load() > mbefore)
		default:
			// The tar stream is broken, or out of bytes: nothing
			// after it can be read.
			return fail(err)
		}
	}
}

// tarMode maps the type of a tar member to a file mode type.
func tarMode(t byte) fs.FileMode {
	switch t {
	case tar.TypeReg, tar.TypeCont, tar.TypeGNUSparse:
		return 0
	case tar.TypeDir:
		return fs.ModeDir
	case tar.TypeSymlink, tar.TypeLink:
		return fs.ModeSymlink
	case tar.TypeFifo:
		return fs.ModeNamedPipe
	case tar.TypeChar:
		return fs.ModeCharDevice | fs.ModeDevice
	case tar.TypeBlock:
		return fs.ModeDevice
	}
	return fs.ModeIrregular // headers of other kinds: not files
}

// readZip reads the members of a zip archive, in the order they are stored.
func (r *Reader) readZip(in source, what string, ra io.ReaderAt, size int64, send func(index.Doc) bool) (bool, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		r.report(in.name, asDataError(what, err), false)
		return true, nil
	}
	zr.RegisterDecompressor(zip.Deflate, r.dec.deflate)
	zr.RegisterDecompressor(12, func(r io.Reader) io.ReadCloser { return io.NopCloser(bzip2.NewReader(r)) })
	zr.RegisterDecompressor(zstd.ZipMethodWinZip, zstd.ZipDecompressor(zstd.WithDecoderMaxWindow(maxZstdWindow)))
	before := r.docs.Load()
	for _, f := range zr.File {
		mode := f.Mode().Type()
		if strings.HasSuffix(f.Name, "/") {
			mode = fs.ModeDir
		}
		m, ok := r.member(in, f.Name, mode)
		if !ok {
			continue
		}
		m.size = int64(min(f.UncompressedSize64, 1<<62))
		if f.Flags&1 != 0 {
			r.unreadable.Add(1)
			r.warn.Warnf("cannot read %s: encrypted, skipped", m.name)
			continue
		}
		rc, err := f.Open()
		if err != nil {
			if errors.Is(err, zip.ErrAlgorithm) {
				r.unreadable.Add(1)
				r.warn.Warnf("cannot read %s: compression method %d is not supported, skipped", m.name, f.Method)
			} else {
				r.report(m.name, asDataError(what, err), false)
			}
			continue
		}
		mbefore := r.docs.Load()
		cont, err := r.readStream(m, &limitReader{r: rc, left: in.budget, err: r.archiveLimit()}, nil, -1, "", send)
		rc.Close()
		if !cont {
			return false, nil
		}
		var le *limitError
		var fe *fileError
		switch {
		case err == nil:
		case ancestors(in, err):
			return true, err
		case errors.As(err, &le) && le.what == archiveFlag, errors.As(err, &fe):
			r.report(in.name, err, r.docs.Load() > before)
			return true, nil
		default:
			// Each member is compressed on its own: the others can
			// still be read.
			r.report(m.name, asDataError(what, err), r.docs.Load() > mbefore)
		}
	}
	return true, nil
}

// member returns the source of the member of the archive arc stored as
// name, of the file type mode, or false if it is not read: a directory, a
// link or a special file, hidden, in a VCS directory, or excluded (each
// counted). Its ID is the archive's, a slash and the name as stored, less
// any leading "./".
func (r *Reader) member(arc source, name string, mode fs.FileMode) (source, bool) {
	stored := name
	for strings.HasPrefix(name, "./") {
		name = strings.TrimLeft(name[2:], "/")
	}
	m := source{
		id:     arc.id + "/" + name,
		name:   arc.name + "/" + name,
		size:   -1,
		format: fileFormat(r.flags.format, name),
		member: true,
		depth:  arc.depth + 1,
		budget: arc.budget,
	}
	switch {
	case mode.IsDir(), mode&fs.ModeIrregular != 0:
		return m, false
	case mode&fs.ModeSymlink != 0:
		r.skip(&r.symlinks, m.name, "link in an archive")
		return m, false
	case !mode.IsRegular():
		r.skip(&r.special, m.name, specialName(mode))
		return m, false
	case name == "":
		r.invalid.Add(1)
		r.warn.Warnf("%s: member with the name %q, skipped", arc.name, stored)
		return m, false
	}
	m.rel = name
	if arc.rel != "" {
		m.rel = arc.rel + "/" + name
	}
	// The hidden, VCS and --exclude rules, for the member and each
	// directory above it in the archive.
	parts := strings.Split(name, "/")
	for i, part := range parts {
		last := i == len(parts)-1
		if reason, vcs := r.sel.filterName(part); reason != "" {
			if vcs {
				r.skip(&r.vcs, m.name, reason)
			} else {
				r.skip(&r.hidden, m.name, reason)
			}
			return m, false
		}
		rel := strings.Join(parts[:i+1], "/")
		if arc.rel != "" {
			rel = arc.rel + "/" + rel
		}
		if g := r.sel.excluded(rel, !last); g != "" {
			r.skip(&r.excluded, m.name, "excluded by --exclude "+g)
			return m, false
		}
	}
	m.included = arc.included || r.sel.included(m.rel)
	if !m.included && !archiveName(name) {
		r.skip(&r.excluded, m.name, "not matched by --include")
		return m, false
	}
	return m, true
}
