// Package input reads the INPUT arguments of simidx's commands into
// documents: files as given, directories walked in lexical order, standard
// input, and the paths of a --files-from list; each file one document, or
// one a line (JSON lines, plain lines, or precomputed fingerprints); gzip,
// bzip2, zstd and xz streams decompressed, and the members of tar and zip
// archives read as files, within limits on decompressed bytes.
//
// Flags registers the flags that select what is read and how. Open lists
// the inputs, and Reader.All reads them on a goroutine of its own, in
// bounded memory: one document, or one line, at a time per level of
// nesting. Every problem (an unreadable file, a corrupt archive, an
// invalid line) is reported on the command's console, counted, and
// skipped; the counters may be read while the documents are read.
package input

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/jsondoc"
	"github.com/simidx/simidx/internal/usage"
	"github.com/spf13/pflag"
)

// Input formats.
const (
	Auto   = "auto"
	Files  = "files"
	JSONL  = "jsonl"
	Lines  = "lines"
	Hashes = "hashes"
)

// Flags select how inputs are read into documents, and which. Add sets
// their defaults.
type Flags struct {
	format    string
	idField   string
	textField string

	hidden      bool
	noIgnoreVCS bool
	include     []string
	exclude     []string
	minSize     ByteSize
	maxSize     ByteSize // -1: no limit
	filesFrom   string
	null        bool
	follow      bool
	maxMember   ByteSize
	maxArchive  ByteSize
	verbose     bool
}

// Add defines the flags on fs: --input, --id-field, --text-field, the
// selection flags, the archive limits and --verbose.
func (f *Flags) Add(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "input", Auto,
		"input `format`: auto, files (one document per file), jsonl, lines (one document per line) or hashes (ID and hex fingerprint per line)")
	fs.StringVar(&f.idField, "id-field", "id", "JSON `field` of the document ID with --input jsonl")
	fs.StringVar(&f.textField, "text-field", "text", "JSON `field` of the document text with --input jsonl")
	fs.StringArrayVar(&f.include, "include", nil, "in directories and archives, read only files matching `GLOB` (repeatable; ** spans directories; without a slash, matched against the base name)")
	fs.StringArrayVar(&f.exclude, "exclude", nil, "in directories and archives, skip files and directories matching `GLOB` (repeatable)")
	fs.BoolVar(&f.hidden, "hidden", false, "read hidden files and directories (names starting with a dot) in directories and archives")
	fs.BoolVar(&f.noIgnoreVCS, "no-ignore-vcs", false, "read VCS directories too (.git, .svn, .hg, .bzr, _darcs, CVS); .git needs --hidden as well")
	f.minSize, f.maxSize = 0, -1
	fs.Var(&f.minSize, "min-size", "skip files smaller than `SIZE` bytes (suffixes k, M, G: powers of 1024)")
	fs.Var(&f.maxSize, "max-size", "skip files larger than `SIZE` bytes (default: no limit)")
	fs.StringVar(&f.filesFrom, "files-from", "", "also read the paths listed in `FILE`, one per line (- for standard input)")
	fs.BoolVar(&f.null, "null", false, "the --files-from list is separated by NUL bytes (find -print0)")
	fs.BoolVar(&f.follow, "follow", false, "follow symbolic links in directories (loops are reported and skipped)")
	f.maxMember, f.maxArchive = defaultMaxMember, defaultMaxArchive
	fs.Var(&f.maxMember, "max-member-size", "skip archive members that decompress to more than `SIZE` bytes")
	fs.Var(&f.maxArchive, "max-archive-size", "stop reading an archive after `SIZE` decompressed bytes")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "name every file skipped, and why, and every problem (not only the first 20)")
}

// Check validates the flags before anything is read.
func (f *Flags) Check() error {
	switch f.format {
	case Auto, Files, JSONL, Lines, Hashes:
	default:
		return usagef("--input must be auto, files, jsonl, lines or hashes, not %q", f.format)
	}
	if f.idField == "" || f.textField == "" {
		return usagef("--id-field and --text-field must not be empty")
	}
	if _, err := f.selection(); err != nil {
		return err
	}
	if f.maxSize >= 0 && f.maxSize < f.minSize {
		return usagef("--max-size %s is less than --min-size %s", f.maxSize.String(), f.minSize.String())
	}
	if f.maxMember < 1 || f.maxArchive < 1 {
		return usagef("--max-member-size and --max-archive-size must be at least 1 byte")
	}
	if f.null && f.filesFrom == "" {
		return usagef("--null applies to --files-from only")
	}
	return nil
}

// Given reports whether there is anything to read besides standard input:
// INPUT arguments or a --files-from list.
func (f *Flags) Given(args []string) bool {
	return len(args) > 0 || f.filesFrom != ""
}

// Format returns the --input format.
func (f *Flags) Format() string { return f.format }

// usagef returns a mistake in the flags or the INPUT arguments, as
// opposed to an input that cannot be read.
func usagef(format string, args ...any) error { return usage.Errorf(format, args...) }

// selection compiles the selection flags.
func (f *Flags) selection() (*selection, error) {
	s := &selection{hidden: f.hidden, vcs: f.noIgnoreVCS}
	for _, g := range f.include {
		p, err := compilePattern("--include", g)
		if err != nil {
			return nil, err
		}
		s.include = append(s.include, p)
	}
	for _, g := range f.exclude {
		p, err := compilePattern("--exclude", g)
		if err != nil {
			return nil, err
		}
		s.exclude = append(s.exclude, p)
	}
	return s, nil
}

// source is one input: a file, standard input when path is "", or a
// member of an archive.
type source struct {
	path   string // file to open; "" for standard input and members
	id     string // document ID of the file, or the prefix of its line IDs
	name   string // for messages: the path, "standard input", ARCHIVE/MEMBER
	rel    string // path relative to the INPUT directory, for --include and --exclude
	size   int64  // -1 if unknown
	format string // Auto is resolved when the source is read
	// named says the file was named on the command line: read even if
	// it is a FIFO or a device.
	named bool
	// included says the file matched an --include pattern (or there is
	// none): the members of an archive are then all included.
	included bool
	member   bool   // a member of an archive
	depth    int    // archives above it: 0 for a file
	budget   *int64 // bytes its archive may still decompress (--max-archive-size)
}

// Reader turns inputs into documents and counts what it reads and skips.
// Its counters may be read while it runs. Its exported fields are set
// before All is called.
type Reader struct {
	// Unique keeps every document apart: a document whose ID was read
	// before in this run gets the ID with "#2", "#3", ... appended, and
	// is reported (dedup). Without it a repeated ID replaces (index).
	Unique bool
	// OnDoc, if set, is called on the reading goroutine with each
	// document before it is sent, and with its line as read (terminator
	// included; valid during the call) for the line formats, nil for a
	// whole file.
	OnDoc func(d *index.Doc, raw []byte)
	// Store says the documents go into an index: those whose ID it
	// would refuse are reported and skipped here, where their file and
	// line are known.
	Store bool

	flags  Flags
	sel    *selection
	stdin  io.Reader
	warn   *console.Console
	inputs []source
	total  int64 // total input size, -1 if unknown
	multi  bool  // more than one input: line IDs are prefixed with the input's name
	dec    decoders
	bufs   buffers
	// scratch is the buffer documents of unknown size are read into.
	scratch []byte
	seen    Unique // with Unique: the IDs read so far

	docs       atomic.Int64 // documents read
	bytes      atomic.Int64 // input bytes read (decompressed)
	binary     atomic.Int64 // files skipped because they hold NUL bytes
	unreadable atomic.Int64 // files or directories that could not be read
	corrupt    atomic.Int64 // compressed files and archives with corrupt data
	tooLarge   atomic.Int64 // archive members and archives over --max-member-size or --max-archive-size
	nested     atomic.Int64 // archives nested too deep
	invalid    atomic.Int64 // lines or files skipped as invalid (bad JSON, too large, ...)
	renamed    atomic.Int64 // documents whose repeated ID was made unique (Unique)
	loops      atomic.Int64 // symbolic link loops (--follow)
	emptyStdin atomic.Bool  // with Store, standard input read as one document was empty

	// Left out by the selection rules, not problems.
	hidden   atomic.Int64 // hidden files and directories
	vcs      atomic.Int64 // VCS directories
	excluded atomic.Int64 // by --include, --exclude, --min-size, --max-size
	symlinks atomic.Int64 // symbolic links in directories without --follow, links in archives
	special  atomic.Int64 // FIFOs, sockets and devices in directories
}

// Open lists the inputs: files as given, directories walked
// recursively (in lexical order), "-" for standard input, then the paths
// of the --files-from list. The ID of a file in a directory is its path
// relative to the directory when there is one INPUT, and the INPUT as
// given, a slash and that relative path when there are several (a/LICENSE
// and b/LICENSE, as md5sum prints them), so that files of the same name in
// different inputs stay different documents. Inputs that cannot be listed
// are reported and counted; so, with -v, are the files left out.
func Open(args []string, flags Flags, stdin io.Reader, warn *console.Console) (*Reader, error) {
	sel, err := flags.selection()
	if err != nil {
		return nil, err
	}
	r := &Reader{flags: flags, sel: sel, stdin: stdin, warn: warn}
	if flags.verbose {
		warn.ShowAll()
	}
	names := args
	if flags.filesFrom != "" {
		if flags.filesFrom == "-" && slices.Contains(args, "-") {
			return nil, usagef("standard input (-) given both as INPUT and as the --files-from list")
		}
		list, err := readFilesFrom(flags.filesFrom, flags.null, stdin)
		if err != nil {
			return nil, err
		}
		names = append(slices.Clip(args), list...)
	}
	stdinSeen := false
	for i, arg := range names {
		listed := i >= len(args) // from --files-from
		if arg == "-" && !listed {
			if stdinSeen {
				return nil, usagef("standard input (-) given more than once")
			}
			stdinSeen = true
			r.inputs = append(r.inputs, source{id: "-", name: "standard input", size: -1, format: flags.format, named: true, included: true})
			continue
		}
		fi, err := os.Stat(arg)
		if err != nil {
			r.warn.Warnf("cannot read %v", trimPathError(arg, err))
			r.unreadable.Add(1)
			continue
		}
		if fi.IsDir() {
			prefix := ""
			if len(names) > 1 {
				prefix = dirPrefix(arg)
			}
			r.walk(arg, prefix)
			continue
		}
		size := int64(-1)
		switch {
		case fi.Mode().IsRegular():
			size = fi.Size()
			if !r.sizeSelected(arg, size) {
				continue
			}
		case listed:
			// A FIFO or device in a list is not waited on; only one
			// named on the command line (<(cmd)) is read.
			r.skip(&r.special, arg, specialName(fi.Mode().Type()))
			continue
		}
		r.inputs = append(r.inputs, source{path: arg, id: arg, name: arg, size: size,
			format: fileFormat(flags.format, arg), named: !listed, included: true})
	}
	r.multi = len(r.inputs) > 1
	for _, in := range r.inputs {
		if _, compressed := trimCompression(in.path); in.size < 0 || compressed || archiveName(in.path) {
			// The text of a compressed file or an archive is not
			// known before it is read.
			r.total = -1
			break
		}
		r.total += in.size
	}
	return r, nil
}

// dirPrefix returns the prefix of the IDs of the files in the directory
// dir when several INPUTs are given: dir as given, with one slash.
func dirPrefix(dir string) string {
	return strings.TrimRight(filepath.ToSlash(dir), "/") + "/"
}

// fileFormat resolves the auto format of a file by its name, without
// its compression suffix (x.jsonl.gz is JSON lines).
func fileFormat(format, path string) string {
	if format != Auto {
		return format
	}
	path, _ = trimCompression(path)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return JSONL
	}
	return Files
}

// trimPathError drops the operation from a *fs.PathError: "x: permission
// denied" rather than "open x: permission denied".
func trimPathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", path, pe.Err)
	}
	return err
}

// HasFormat reports whether some input is read in the given format.
func (r *Reader) HasFormat(format string) bool {
	for _, in := range r.inputs {
		if in.format == format {
			return true
		}
	}
	return false
}

// Docs returns the number of documents read so far.
func (r *Reader) Docs() int64 { return r.docs.Load() }

// Bytes returns the number of input bytes read so far, once decompressed.
func (r *Reader) Bytes() int64 { return r.bytes.Load() }

// Total returns the size of the inputs in bytes, or -1 if it is not known
// before they are read (standard input, a compressed file, an archive).
func (r *Reader) Total() int64 { return r.total }

// Renamed returns the number of documents whose repeated ID was made
// unique (with Unique).
func (r *Reader) Renamed() int64 { return r.renamed.Load() }

// EmptyStdin reports whether standard input, read as one document to
// store (with Store), was empty: no document was made of it.
func (r *Reader) EmptyStdin() bool { return r.emptyStdin.Load() }

// Verbose reports whether --verbose was given.
func (r *Reader) Verbose() bool { return r.flags.verbose }

// CountInvalid counts a document that the caller skipped as invalid (one
// the index refused), for Skipped and SkipReasons.
func (r *Reader) CountInvalid() { r.invalid.Add(1) }

// Skipped returns the number of inputs skipped so far for a problem:
// binary, unreadable, corrupt, too large, nested too deep or invalid
// (reported each). Files left out by the selection rules are not counted.
func (r *Reader) Skipped() int64 {
	return r.binary.Load() + r.unreadable.Load() + r.corrupt.Load() + r.tooLarge.Load() + r.nested.Load() + r.invalid.Load()
}

// Unread returns the number of inputs that could not be read: unreadable
// or corrupt.
func (r *Reader) Unread() int64 {
	return r.unreadable.Load() + r.corrupt.Load()
}

// Filtered returns the number of files and directories left out by the
// selection rules, and symbolic link loops.
func (r *Reader) Filtered() int64 {
	return r.hidden.Load() + r.vcs.Load() + r.excluded.Load() + r.symlinks.Load() + r.special.Load() + r.loops.Load()
}

// SkipReasons lists the non-zero counts of what was skipped, and why: the
// problems, then what the selection rules left out. moreInvalid is added
// to the invalid documents (those the index refused).
func (r *Reader) SkipReasons(moreInvalid int64) []string {
	var parts []string
	for _, p := range []struct {
		n    int64
		what string
	}{
		{r.binary.Load(), "binary"},
		{r.unreadable.Load(), "unreadable"},
		{r.corrupt.Load(), "corrupt"},
		{r.tooLarge.Load(), "too large"},
		{r.nested.Load(), "nested too deep"},
		{r.invalid.Load() + moreInvalid, "invalid"},
		{r.hidden.Load(), "hidden"},
		{r.vcs.Load(), "VCS"},
		{r.excluded.Load(), "excluded"},
		{r.symlinks.Load(), plural(r.symlinks.Load(), "symlink", "symlinks")},
		{r.loops.Load(), plural(r.loops.Load(), "symlink loop", "symlink loops")},
		{r.special.Load(), "special"},
	} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return parts
}

// skip counts a file or directory left out by a selection rule in n and,
// with --verbose, names it with the reason.
func (r *Reader) skip(n *atomic.Int64, name, reason string) {
	n.Add(1)
	if r.flags.verbose {
		r.warn.Warnf("%s: %s, skipped", name, reason)
	}
}

// All returns the documents of every input. They are read on a goroutine of
// their own, so that a cancelled ctx ends the sequence (with ctx.Err())
// even while a read of standard input blocks.
func (r *Reader) All(ctx context.Context) iter.Seq2[index.Doc, error] {
	return func(yield func(index.Doc, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan index.Doc, 256)
		go func() {
			defer close(ch)
			defer r.dec.close()
			send := func(d index.Doc) bool {
				select {
				case ch <- d:
					return true
				case <-ctx.Done():
					return false
				}
			}
			for _, in := range r.inputs {
				if !r.read(in, send) {
					return
				}
			}
		}()
		for {
			select {
			case d, ok := <-ch:
				if !ok {
					if err := ctx.Err(); err != nil {
						yield(index.Doc{}, err)
					}
					return
				}
				if !yield(d, nil) {
					return
				}
			case <-ctx.Done():
				yield(index.Doc{}, ctx.Err())
				return
			}
		}
	}
}

// read sends the documents of one input; it returns false when send does.
func (r *Reader) read(in source, send func(index.Doc) bool) bool {
	var rd io.Reader
	var ra io.ReaderAt
	size := int64(-1)
	if in.path == "" {
		rd = fileReader{r.stdin}
	} else {
		flag := os.O_RDONLY
		if !in.named {
			// A file found in a directory that became a FIFO since is
			// not waited on.
			flag |= syscall.O_NONBLOCK
		}
		f, err := os.OpenFile(in.path, flag, 0)
		if err != nil {
			r.warn.Warnf("cannot read %v", trimPathError(in.path, err))
			r.unreadable.Add(1)
			return true
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			r.warn.Warnf("cannot read %v", trimPathError(in.path, err))
			r.unreadable.Add(1)
			return true
		}
		if fi.Mode().IsRegular() {
			ra, size = fileReaderAt{f}, fi.Size()
		} else if !in.named {
			r.skip(&r.special, in.name, specialName(fi.Mode().Type()))
			return true
		}
		rd = fileReader{f}
	}
	before := r.docs.Load()
	ok, err := r.readStream(in, rd, ra, size, "", send)
	if err != nil {
		r.report(in.name, err, r.docs.Load() > before)
	}
	return ok
}

// readStream sends the documents of the input or member in, whose content
// is rd (and ra, of size bytes, for a regular file): a document, a
// compressed document, or an archive, told apart by their first bytes.
// what names the compression of rd's data ("" if none), for errors. It
// returns the error that stopped it, not reported; an archive reports its
// own errors and returns only those of an archive above it.
func (r *Reader) readStream(in source, rd io.Reader, ra io.ReaderAt, size int64, what string, send func(index.Doc) bool) (bool, error) {
	br := r.bufs.get(rd)
	defer r.bufs.put(br)
	base, _ := trimCompression(in.name)
	k := sniff(br, base)
	if k.compressed() {
		z, release, err := r.dec.open(k, br)
		if err != nil {
			return true, asDataError(k.String(), err)
		}
		defer release()
		br = r.bufs.get(z)
		defer r.bufs.put(br)
		what = k.String()
		in.size = -1
		if k2 := sniff(br, base); k2.archive() {
			return r.readArchive(in, k2, k2.String()+"."+k.suffix(), br, nil, -1, send)
		}
	} else if k.archive() {
		return r.readArchive(in, k, k.String(), br, ra, size, send)
	}
	if in.member {
		// The member limit counts the bytes of the document, once
		// decompressed.
		left := int64(r.flags.maxMember)
		br = r.bufs.get(&limitReader{r: br, left: &left, err: r.memberLimit()})
		defer r.bufs.put(br)
	}
	ok, err := r.readDoc(in, br, send)
	if what != "" {
		err = asDataError(what, err)
	}
	return ok, err
}

// readDoc sends the documents of one document stream, in the input's
// format.
func (r *Reader) readDoc(in source, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	// A UTF-8 byte order mark is not part of the input: it would hide
	// the '{' of JSON lines and make the first line invalid JSON.
	if b, err := br.Peek(len(byteOrderMark)); err == nil && string(b) == byteOrderMark {
		br.Discard(len(byteOrderMark))
		r.bytes.Add(int64(len(byteOrderMark)))
	}
	format := in.format
	if format == Auto { // standard input: JSON lines if it starts with '{'
		format = Files
		for {
			b, err := br.Peek(1)
			if err != nil || !isSpace(b[0]) {
				if err == nil && b[0] == '{' {
					format = JSONL
				}
				break
			}
			br.ReadByte()
			r.bytes.Add(1)
		}
	}
	if format == Files {
		return r.readFile(in, in.name, br, send)
	}
	return r.readLines(in, in.name, format, br, send)
}

// buffers keeps the buffered readers of a reader for reuse, one per
// level of nesting in use.
type buffers []*bufio.Reader

func (b *buffers) get(rd io.Reader) *bufio.Reader {
	if n := len(*b); n > 0 {
		br := (*b)[n-1]
		*b = (*b)[:n-1]
		br.Reset(rd)
		return br
	}
	return bufio.NewReaderSize(rd, 64<<10)
}

func (b *buffers) put(br *bufio.Reader) {
	br.Reset(nil)
	*b = append(*b, br)
}

// readAll reads rd to its end into a slice of the right size, size being
// the expected size (-1 if unknown): a file is read into one allocation. A
// size larger than 4 MiB is taken as 4 MiB: it may be an archive's word. A
// stream of unknown size is read into r's scratch buffer, and copied.
func (r *Reader) readAll(rd io.Reader, size int64) ([]byte, error) {
	var b []byte
	if size < 0 {
		b = r.scratch[:0]
	} else {
		b = make([]byte, 0, min(size, 4<<20)+1)
	}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			if size < 0 {
				r.scratch = b[:0]
				b = bytes.Clone(b)
			}
			return b, err
		}
	}
}

// byteOrderMark is the UTF-8 encoding of U+FEFF, the byte order mark, which
// the readers of files and of request bodies skip.
const byteOrderMark = "\xef\xbb\xbf"

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// readFile sends the whole input as one document; name is its path, or
// "standard input", for warnings.
func (r *Reader) readFile(in source, name string, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	text, err := r.readAll(io.LimitReader(br, index.MaxDocSize+1), in.size)
	r.bytes.Add(int64(len(text)))
	if err != nil {
		return true, err
	}
	if len(text) == 0 && in.path == "" && !in.member && r.Store {
		// An empty or closed standard input read nothing: no document
		// to store (an empty file is one, which matches nothing).
		r.emptyStdin.Store(true)
		return true, nil
	}
	if len(text) > index.MaxDocSize {
		// The rest is not read: a file's size counts as read, and a
		// stream (a pipe, a device, a compressed file) is left.
		if in.size > int64(len(text)) {
			r.bytes.Add(in.size - int64(len(text)))
		}
		r.warn.Warnf("%s: larger than %d MiB, skipped", name, index.MaxDocSize>>20)
		r.invalid.Add(1)
		return true, nil
	}
	if bytes.IndexByte(text, 0) >= 0 {
		r.warn.Warnf("%s: binary (holds a NUL byte), skipped", name)
		r.binary.Add(1)
		return true, nil
	}
	if p := r.idProblem(in.id); p != "" {
		r.warn.Warnf("%s: %s, skipped", name, p)
		r.invalid.Add(1)
		return true, nil
	}
	r.docs.Add(1)
	d := index.Doc{ID: in.id, Text: text}
	r.keepApart(&d, name)
	if r.OnDoc != nil {
		r.OnDoc(&d, nil)
	}
	return send(d), nil
}

// maxJSONLine is the longest line of JSON lines read: the text field of
// a document of at most index.MaxDocSize bytes, escaped, and other fields.
// A longer line is skipped without being held in memory.
const maxJSONLine = 8 * index.MaxDocSize

// readLines sends one document per line in the lines, jsonl or hashes
// format.
func (r *Reader) readLines(in source, name, format string, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	limit := index.MaxDocSize + len("\r\n")
	if format == JSONL {
		limit = maxJSONLine
	}
	for n := 1; ; n++ {
		// The line is not kept: a document's ID and text are copies.
		line, long, read, err := readLine(br, limit, false)
		r.bytes.Add(read)
		if long {
			if format == JSONL {
				r.warn.Warnf("%s:%d: line larger than %d MiB, skipped", name, n, maxJSONLine>>20)
			} else {
				r.warn.Warnf("%s:%d: larger than %d MiB, skipped", name, n, index.MaxDocSize>>20)
			}
			r.invalid.Add(1)
		} else if len(line) > 0 {
			raw := line
			line = bytes.TrimRight(line, "\r\n")
			d, ok := r.parseLine(in, name, format, n, line)
			if p := r.idProblem(d.ID); ok && p != "" {
				r.warn.Warnf("%s:%d: %s, skipped", name, n, p)
				r.invalid.Add(1)
				ok = false
			}
			if ok {
				r.docs.Add(1)
				r.keepApart(&d, name+":"+strconv.Itoa(n))
				if r.OnDoc != nil {
					r.OnDoc(&d, raw)
				}
				if !send(d) {
					return false, nil
				}
			}
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return true, err
		}
	}
}

// ReadLine reads a line of br, with its newline, if it is at most limit
// bytes long; a longer line is read to its end and dropped (long). read is
// the number of bytes read. line is a slice of its own.
func ReadLine(br *bufio.Reader, limit int) (line []byte, long bool, read int64, err error) {
	return readLine(br, limit, true)
}

// readLine is ReadLine; without own, a line that fits in br's buffer is
// returned in it, valid until the next read of br, not copied.
func readLine(br *bufio.Reader, limit int, own bool) (line []byte, long bool, read int64, err error) {
	for {
		chunk, e := br.ReadSlice('\n')
		read += int64(len(chunk))
		if !long {
			if len(line)+len(chunk) > limit {
				long, line = true, nil
			} else if line == nil && e != bufio.ErrBufferFull {
				// The usual case: the line fits in the buffer.
				line = chunk
				if own {
					line = bytes.Clone(chunk)
				}
			} else {
				line = append(line, chunk...)
			}
		}
		if e != bufio.ErrBufferFull {
			return line, long, read, e
		}
	}
}

// keepApart gives d, read at where, an ID of its own when r.Unique is set
// and its ID was read before in this run (see Unique), and reports the
// change.
func (r *Reader) keepApart(d *index.Doc, where string) {
	if !r.Unique {
		return
	}
	id, renamed := r.seen.ID(d.ID)
	if !renamed {
		return
	}
	r.renamed.Add(1)
	r.warn.Warnf("%s: ID %s is taken (read before, or given to an earlier repeat); this document is %s", where, strconv.Quote(d.ID), strconv.Quote(id))
	d.ID = id
}

// Unique keeps the documents of a run apart by ID, as dedup reads them: a
// document whose ID was read before gets the ID, "#" and the number of the
// occurrence (ID#2 for the second), or a larger number if that is taken.
// The zero value is ready to use. An ID's renaming depends only on the IDs
// given before that share its UniqueKey. Cost: a map entry per ID given.
type Unique struct {
	seen map[string]int // the IDs given so far, and how often
}

// ID returns the ID of a document read with id after every ID given
// before, and whether it differs from id.
func (u *Unique) ID(id string) (string, bool) {
	if u.seen == nil {
		u.seen = make(map[string]int)
	}
	n := u.seen[id]
	u.seen[id] = n + 1
	if n == 0 {
		return id, false
	}
	for k := n + 1; ; k++ {
		suffix := "#" + strconv.Itoa(k)
		// An ID too long for the suffix loses its tail.
		if c := truncateID(id, index.MaxIDLen-len(suffix)) + suffix; u.seen[c] == 0 {
			u.seen[id] = k
			u.seen[c] = 1
			return c, true
		}
	}
}

// UniqueKey returns the part of id that decides how Unique renames it and
// every ID it may be renamed to: the ID up to its first "#", at most 480
// bytes of it. Two IDs with different keys never affect each other's
// renaming, so documents grouped by key can be renamed group by group, each
// group in reading order.
func UniqueKey(id string) string {
	if i := strings.IndexByte(id, '#'); i >= 0 {
		id = id[:i]
	}
	return truncateID(id, 480)
}

// truncateID returns the longest prefix of id of at most n bytes that ends
// at a UTF-8 boundary.
func truncateID(id string, n int) string {
	if len(id) <= n {
		return id
	}
	for n > 0 && !utf8.RuneStart(id[n]) {
		n--
	}
	return id[:n]
}

// parseLine makes the document of line n; blank lines give none.
func (r *Reader) parseLine(in source, name, format string, n int, line []byte) (index.Doc, bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return index.Doc{}, false
	}
	bad := func(format string, args ...any) (index.Doc, bool) {
		r.warn.Warnf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
		r.invalid.Add(1)
		return index.Doc{}, false
	}
	tooLarge := func() (index.Doc, bool) {
		return bad("larger than %d MiB, skipped", index.MaxDocSize>>20)
	}
	switch format {
	case Lines:
		if len(line) > index.MaxDocSize {
			return tooLarge()
		}
		id := strconv.Itoa(n)
		if r.multi || in.member {
			id = in.id + ":" + id
		}
		return index.Doc{ID: id, Text: bytes.Clone(line)}, true

	case Hashes:
		id, fp, err := ParseHashLine(string(line))
		if err != nil {
			return bad("%v", err)
		}
		return index.Doc{ID: id, Fingerprint: fp, Precomputed: true}, true

	default: // JSONL
		id, text, problem := ParseJSONLine(line, r.flags.idField, r.flags.textField)
		if problem != "" {
			return bad("%s", problem)
		}
		if len(text) > index.MaxDocSize {
			return tooLarge()
		}
		return index.Doc{ID: id, Text: text}, true
	}
}

// ParseJSONLine returns the ID and the text of a line of JSON lines, the
// fields idField (a string, or a number as written) and textField (a
// string), or why the line is no document (invalid JSON, a missing field,
// an empty ID). The text is a new slice, not part of line. Cost: one
// pass over the line and one over the text (jsondoc.Document); a line
// that is no document is decoded again by encoding/json, to say why.
func ParseJSONLine(line []byte, idField, textField string) (id string, text []byte, problem string) {
	rawID, text, ok := jsondoc.Document(line, idField, textField)
	if !ok {
		return parseJSONLineSlowly(line, idField, textField)
	}
	if id, problem = lineID(rawID, idField); problem != "" {
		return "", nil, problem
	}
	if id == "" {
		return "", nil, "empty ID"
	}
	return id, text, ""
}

// parseJSONLineSlowly is ParseJSONLine by encoding/json: the decoding of
// the line into a map, and of the text field into a string. It says why
// a line is no document in encoding/json's words.
func parseJSONLineSlowly(line []byte, idField, textField string) (id string, text []byte, problem string) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return "", nil, jsonLineProblem(err)
	}
	rawID, ok := obj[idField]
	if !ok {
		return "", nil, fmt.Sprintf("no %q field (set the ID field with --id-field)", idField)
	}
	if id, problem = lineID(rawID, idField); problem != "" {
		return "", nil, problem
	}
	rawText, ok := obj[textField]
	if !ok {
		return "", nil, fmt.Sprintf("no %q field (set the text field with --text-field)", textField)
	}
	var t string
	if err := json.Unmarshal(rawText, &t); err != nil {
		return "", nil, fmt.Sprintf("field %q is not a string", textField)
	}
	if id == "" {
		return "", nil, "empty ID"
	}
	return id, []byte(t), ""
}

// lineID returns the ID of a line of JSON lines, the value rawID of its
// field idField, or why it is none.
func lineID(rawID []byte, idField string) (id, problem string) {
	switch jsondoc.Kind(rawID) {
	case "string":
		// Strictly: a lone surrogate or a byte that is not UTF-8
		// would become U+FFFD, and different IDs the same.
		id, err := jsondoc.String(rawID)
		if err != nil {
			return "", fmt.Sprintf("field %q %v", idField, err)
		}
		return id, ""
	case "number":
		return string(rawID), "" // as written
	}
	return "", fmt.Sprintf("field %q is neither a string nor a number", idField)
}

// jsonLineProblem says why a line of JSON lines could not be decoded
// into an object: invalid JSON (nested too deep among it: encoding/json
// gives up past 10,000 levels), or valid JSON that is not an object.
func jsonLineProblem(err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("not a JSON object but a JSON %s", te.Value)
	case strings.Contains(err.Error(), "exceeded max depth"):
		return "invalid JSON: nested more than 10000 levels deep"
	}
	return fmt.Sprintf("invalid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
}

// idProblem says why an index would refuse the ID of a document to store
// (see index.Doc), or returns "" if it would not or r.Store is not set.
func (r *Reader) idProblem(id string) string {
	switch {
	case !r.Store:
		return ""
	case id == "":
		return "empty ID"
	case len(id) > index.MaxIDLen:
		return fmt.Sprintf("ID of %d bytes, more than %d", len(id), index.MaxIDLen)
	case !utf8.ValidString(id):
		return fmt.Sprintf("ID %q is not valid UTF-8", id)
	}
	return ""
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
