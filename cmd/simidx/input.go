package main

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
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/jsondoc"
	"github.com/spf13/pflag"
)

// Input formats.
const (
	inputAuto   = "auto"
	inputFiles  = "files"
	inputJSONL  = "jsonl"
	inputLines  = "lines"
	inputHashes = "hashes"
)

// inputFlags select how inputs are read into documents, and which.
type inputFlags struct {
	format    string
	idField   string
	textField string

	hidden      bool
	noIgnoreVCS bool
	include     []string
	exclude     []string
	minSize     byteSize
	maxSize     byteSize // -1: no limit
	filesFrom   string
	null        bool
	follow      bool
	maxMember   byteSize
	maxArchive  byteSize
	verbose     bool
}

func (f *inputFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "input", inputAuto,
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

func (f *inputFlags) check() error {
	switch f.format {
	case inputAuto, inputFiles, inputJSONL, inputLines, inputHashes:
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

// given reports whether there is anything to read besides standard input:
// INPUT arguments or a --files-from list.
func (f *inputFlags) given(args []string) bool {
	return len(args) > 0 || f.filesFrom != ""
}

// selection compiles the selection flags.
func (f *inputFlags) selection() (*selection, error) {
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
	format string // inputAuto is resolved when the source is read
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

// reader turns inputs into documents and counts what it reads and skips.
// Its counters may be read while it runs.
type reader struct {
	flags  inputFlags
	sel    *selection
	stdin  io.Reader
	warn   *console
	inputs []source
	total  int64 // total input size, -1 if unknown
	multi  bool  // more than one input: line IDs are prefixed with the input's name
	dec    decoders
	bufs   buffers
	// scratch is the buffer documents of unknown size are read into.
	scratch []byte
	// unique keeps every document apart: a document whose ID was read
	// before in this run gets the ID with "#2", "#3", ... appended, and
	// is reported (dedup). Without it a repeated ID replaces (index).
	unique bool
	seen   map[string]int // with unique: the IDs read so far, and how often
	// onDoc, if set, is called on the reading goroutine with each
	// document before it is sent, and with its line as read (terminator
	// included; valid during the call) for the line formats, nil for a
	// whole file.
	onDoc func(d *index.Doc, raw []byte)
	// store says the documents go into an index: those whose ID it
	// would refuse are reported and skipped here, where their file and
	// line are known.
	store bool

	docs       atomic.Int64 // documents read
	bytes      atomic.Int64 // input bytes read (decompressed)
	binary     atomic.Int64 // files skipped because they hold NUL bytes
	unreadable atomic.Int64 // files or directories that could not be read
	corrupt    atomic.Int64 // compressed files and archives with corrupt data
	tooLarge   atomic.Int64 // archive members and archives over --max-member-size or --max-archive-size
	nested     atomic.Int64 // archives nested too deep
	invalid    atomic.Int64 // lines or files skipped as invalid (bad JSON, too large, ...)
	renamed    atomic.Int64 // documents whose repeated ID was made unique (unique)
	loops      atomic.Int64 // symbolic link loops (--follow)
	emptyStdin atomic.Bool  // with store, standard input read as one document was empty

	// Left out by the selection rules, not problems.
	hidden   atomic.Int64 // hidden files and directories
	vcs      atomic.Int64 // VCS directories
	excluded atomic.Int64 // by --include, --exclude, --min-size, --max-size
	symlinks atomic.Int64 // symbolic links in directories without --follow, links in archives
	special  atomic.Int64 // FIFOs, sockets and devices in directories
}

// newReader lists the inputs: files as given, directories walked
// recursively (in lexical order), "-" for standard input, then the paths
// of the --files-from list. The ID of a file in a directory is its path
// relative to the directory when there is one INPUT, and the INPUT as
// given, a slash and that relative path when there are several (a/LICENSE
// and b/LICENSE, as md5sum prints them), so that files of the same name in
// different inputs stay different documents. Inputs that cannot be listed
// are reported and counted; so, with -v, are the files left out.
func newReader(args []string, flags inputFlags, stdin io.Reader, warn *console) (*reader, error) {
	sel, err := flags.selection()
	if err != nil {
		return nil, err
	}
	r := &reader{flags: flags, sel: sel, stdin: stdin, warn: warn}
	if flags.verbose {
		warn.all = true
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
			r.warn.printf("cannot read %v", trimPathError(arg, err))
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
	if format != inputAuto {
		return format
	}
	path, _ = trimCompression(path)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return inputJSONL
	}
	return inputFiles
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

// hasFormat reports whether some input is read in the given format.
func (r *reader) hasFormat(format string) bool {
	for _, in := range r.inputs {
		if in.format == format {
			return true
		}
	}
	return false
}

// skipped returns the number of inputs skipped so far for a problem:
// binary, unreadable, corrupt, too large, nested too deep or invalid
// (reported each). Files left out by the selection rules are not counted.
func (r *reader) skipped() int64 {
	return r.binary.Load() + r.unreadable.Load() + r.corrupt.Load() + r.tooLarge.Load() + r.nested.Load() + r.invalid.Load()
}

// unread returns the number of inputs that could not be read: unreadable
// or corrupt.
func (r *reader) unread() int64 {
	return r.unreadable.Load() + r.corrupt.Load()
}

// filtered returns the number of files and directories left out by the
// selection rules, and symbolic link loops.
func (r *reader) filtered() int64 {
	return r.hidden.Load() + r.vcs.Load() + r.excluded.Load() + r.symlinks.Load() + r.special.Load() + r.loops.Load()
}

// skipReasons lists the non-zero counts of what was skipped, and why: the
// problems, then what the selection rules left out. moreInvalid is added
// to the invalid documents (those the index refused).
func (r *reader) skipReasons(moreInvalid int64) []string {
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
func (r *reader) skip(n *atomic.Int64, name, reason string) {
	n.Add(1)
	if r.flags.verbose {
		r.warn.printf("%s: %s, skipped", name, reason)
	}
}

// all returns the documents of every input. They are read on a goroutine of
// their own, so that a cancelled ctx ends the sequence (with ctx.Err())
// even while a read of standard input blocks.
func (r *reader) all(ctx context.Context) iter.Seq2[index.Doc, error] {
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
func (r *reader) read(in source, send func(index.Doc) bool) bool {
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
			r.warn.printf("cannot read %v", trimPathError(in.path, err))
			r.unreadable.Add(1)
			return true
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			r.warn.printf("cannot read %v", trimPathError(in.path, err))
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
func (r *reader) readStream(in source, rd io.Reader, ra io.ReaderAt, size int64, what string, send func(index.Doc) bool) (bool, error) {
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
func (r *reader) readDoc(in source, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	// A UTF-8 byte order mark is not part of the input: it would hide
	// the '{' of JSON lines and make the first line invalid JSON.
	if b, err := br.Peek(len(byteOrderMark)); err == nil && string(b) == byteOrderMark {
		br.Discard(len(byteOrderMark))
		r.bytes.Add(int64(len(byteOrderMark)))
	}
	format := in.format
	if format == inputAuto { // standard input: JSON lines if it starts with '{'
		format = inputFiles
		for {
			b, err := br.Peek(1)
			if err != nil || !isSpace(b[0]) {
				if err == nil && b[0] == '{' {
					format = inputJSONL
				}
				break
			}
			br.ReadByte()
			r.bytes.Add(1)
		}
	}
	if format == inputFiles {
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
func (r *reader) readAll(rd io.Reader, size int64) ([]byte, error) {
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
func (r *reader) readFile(in source, name string, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	text, err := r.readAll(io.LimitReader(br, index.MaxDocSize+1), in.size)
	r.bytes.Add(int64(len(text)))
	if err != nil {
		return true, err
	}
	if len(text) == 0 && in.path == "" && !in.member && r.store {
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
		r.warn.printf("%s: larger than %d MiB, skipped", name, index.MaxDocSize>>20)
		r.invalid.Add(1)
		return true, nil
	}
	if bytes.IndexByte(text, 0) >= 0 {
		r.warn.printf("%s: binary (holds a NUL byte), skipped", name)
		r.binary.Add(1)
		return true, nil
	}
	if p := r.idProblem(in.id); p != "" {
		r.warn.printf("%s: %s, skipped", name, p)
		r.invalid.Add(1)
		return true, nil
	}
	r.docs.Add(1)
	d := index.Doc{ID: in.id, Text: text}
	r.keepApart(&d, name)
	if r.onDoc != nil {
		r.onDoc(&d, nil)
	}
	return send(d), nil
}

// maxJSONLine is the longest line of JSON lines read: the text field of
// a document of at most index.MaxDocSize bytes, escaped, and other fields.
// A longer line is skipped without being held in memory.
const maxJSONLine = 8 * index.MaxDocSize

// readLines sends one document per line in the lines, jsonl or hashes
// format.
func (r *reader) readLines(in source, name, format string, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	limit := index.MaxDocSize + len("\r\n")
	if format == inputJSONL {
		limit = maxJSONLine
	}
	for n := 1; ; n++ {
		line, long, read, err := readLine(br, limit)
		r.bytes.Add(read)
		if long {
			if format == inputJSONL {
				r.warn.printf("%s:%d: line larger than %d MiB, skipped", name, n, maxJSONLine>>20)
			} else {
				r.warn.printf("%s:%d: larger than %d MiB, skipped", name, n, index.MaxDocSize>>20)
			}
			r.invalid.Add(1)
		} else if len(line) > 0 {
			raw := line
			line = bytes.TrimRight(line, "\r\n")
			d, ok := r.parseLine(in, name, format, n, line)
			if p := r.idProblem(d.ID); ok && p != "" {
				r.warn.printf("%s:%d: %s, skipped", name, n, p)
				r.invalid.Add(1)
				ok = false
			}
			if ok {
				r.docs.Add(1)
				r.keepApart(&d, name+":"+strconv.Itoa(n))
				if r.onDoc != nil {
					r.onDoc(&d, raw)
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

// readLine reads a line of br, with its newline, if it is at most limit
// bytes long; a longer line is read to its end and dropped (long). read is
// the number of bytes read.
func readLine(br *bufio.Reader, limit int) (line []byte, long bool, read int64, err error) {
	for {
		chunk, e := br.ReadSlice('\n')
		read += int64(len(chunk))
		if !long {
			if len(line)+len(chunk) > limit {
				long, line = true, nil
			} else if line == nil && e != bufio.ErrBufferFull {
				// The usual case: the line fits in the buffer.
				line = bytes.Clone(chunk)
			} else {
				line = append(line, chunk...)
			}
		}
		if e != bufio.ErrBufferFull {
			return line, long, read, e
		}
	}
}

// keepApart gives d, read at where, an ID of its own when r.unique is set
// and its ID was read before in this run: the ID, "#" and the number of the
// occurrence (ID#2 for the second), or a larger number if that is taken.
// It reports the change.
func (r *reader) keepApart(d *index.Doc, where string) {
	if !r.unique {
		return
	}
	if r.seen == nil {
		r.seen = make(map[string]int)
	}
	n := r.seen[d.ID]
	r.seen[d.ID] = n + 1
	if n == 0 {
		return
	}
	id := d.ID
	for k := n + 1; ; k++ {
		suffix := "#" + strconv.Itoa(k)
		// An ID too long for the suffix loses its tail.
		if c := truncateID(id, index.MaxIDLen-len(suffix)) + suffix; r.seen[c] == 0 {
			d.ID = c
			r.seen[id] = k
			r.seen[c] = 1
			break
		}
	}
	r.renamed.Add(1)
	r.warn.printf("%s: ID %s is taken (read before, or given to an earlier repeat); this document is %s", where, strconv.Quote(id), strconv.Quote(d.ID))
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
func (r *reader) parseLine(in source, name, format string, n int, line []byte) (index.Doc, bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return index.Doc{}, false
	}
	bad := func(format string, args ...any) (index.Doc, bool) {
		r.warn.printf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
		r.invalid.Add(1)
		return index.Doc{}, false
	}
	tooLarge := func() (index.Doc, bool) {
		return bad("larger than %d MiB, skipped", index.MaxDocSize>>20)
	}
	switch format {
	case inputLines:
		if len(line) > index.MaxDocSize {
			return tooLarge()
		}
		id := strconv.Itoa(n)
		if r.multi || in.member {
			id = in.id + ":" + id
		}
		return index.Doc{ID: id, Text: bytes.Clone(line)}, true

	case inputHashes:
		id, fp, err := parseHashLine(string(line))
		if err != nil {
			return bad("%v", err)
		}
		return index.Doc{ID: id, Fingerprint: fp, Precomputed: true}, true

	default: // inputJSONL
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			return bad("%s", jsonLineProblem(err))
		}
		rawID, ok := obj[r.flags.idField]
		if !ok {
			return bad("no %q field (set the ID field with --id-field)", r.flags.idField)
		}
		var id string
		switch jsondoc.Kind(rawID) {
		case "string":
			// Strictly: a lone surrogate or a byte that is not UTF-8
			// would become U+FFFD, and different IDs the same.
			var err error
			if id, err = jsondoc.String(rawID); err != nil {
				return bad("field %q %v", r.flags.idField, err)
			}
		case "number":
			id = string(rawID) // as written
		default:
			return bad("field %q is neither a string nor a number", r.flags.idField)
		}
		rawText, ok := obj[r.flags.textField]
		if !ok {
			return bad("no %q field (set the text field with --text-field)", r.flags.textField)
		}
		var text string
		if err := json.Unmarshal(rawText, &text); err != nil {
			return bad("field %q is not a string", r.flags.textField)
		}
		if id == "" {
			return bad("empty ID")
		}
		if len(text) > index.MaxDocSize {
			return tooLarge()
		}
		return index.Doc{ID: id, Text: []byte(text)}, true
	}
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
// (see index.Doc), or returns "" if it would not or r.store is not set.
func (r *reader) idProblem(id string) string {
	switch {
	case !r.store:
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

// parseHashLine parses a line of --input hashes. A line that starts with
// exactly 16 hex digits and two spaces is "HEX  ID", as printed by simidx
// fingerprint (md5sum's layout): the ID is the rest of the line, as it is.
// Any other line is "ID HEX": an ID, white space and a fingerprint of 1 to 16
// hex digits (0x optional), the last word of the line.
//
// As in GNU md5sum's output, a line "\HEX  ID" has an escaped ID: \\ stands
// for a backslash, \n for a newline and \r for a carriage return.
func parseHashLine(line string) (string, uint64, error) {
	if len(line) >= 19 && line[0] == '\\' && line[17:19] == "  " && isHex(line[1:17]) {
		fp, _ := parseHex(line[1:17])
		id, err := unescapeName(line[19:])
		if err != nil {
			return "", 0, err
		}
		if id == "" {
			return "", 0, fmt.Errorf("no ID after the fingerprint %s", line[1:17])
		}
		return id, fp, nil
	}
	if len(line) >= 18 && line[16:18] == "  " && isHex(line[:16]) {
		fp, _ := parseHex(line[:16])
		id := line[18:]
		if id == "" {
			return "", 0, fmt.Errorf("no ID after the fingerprint %s", line[:16])
		}
		return id, fp, nil
	}
	line = strings.TrimSpace(line)
	if i := strings.LastIndexAny(line, " \t"); i > 0 {
		if fp, ok := parseHex(line[i+1:]); ok {
			return strings.TrimSpace(line[:i]), fp, nil
		}
	}
	if len(line) > 16 && isHex(line[:16]) && (line[16] == ' ' || line[16] == '\t') {
		return "", 0, fmt.Errorf("want ID HEX, or HEX and two spaces before the ID as simidx fingerprint prints them, got %q", truncate(line, 60))
	}
	return "", 0, fmt.Errorf("want an ID and a hexadecimal fingerprint, got %q", truncate(line, 60))
}

// unescapeName undoes the escapes of a name in md5sum's layout (see
// hashLine).
func unescapeName(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i++; i == len(s) {
			return "", fmt.Errorf("escaped ID %q ends in a lone backslash", truncate(s, 60))
		}
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			return "", fmt.Errorf("escaped ID %q has \\%c; only \\\\, \\n and \\r are escapes", truncate(s, 60), s[i])
		}
	}
	return b.String(), nil
}

// isHex reports whether s is made of hex digits only.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

func parseHex(s string) (uint64, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" || len(s) > 16 {
		return 0, false
	}
	fp, err := strconv.ParseUint(s, 16, 64)
	return fp, err == nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// maxWarnings is how many warnings a command prints before it only counts
// them.
const maxWarnings = 20

// console serializes what a command writes to standard error: warnings (up
// to maxWarnings), the progress line, which each other message clears, and
// messages.
type console struct {
	mu    sync.Mutex
	w     io.Writer
	cmd   string
	n     int  // warnings so far
	all   bool // print every warning (--verbose)
	shown int  // length of the progress line on screen, 0 if none
}

func (c *console) clearLocked() {
	if c.shown > 0 {
		fmt.Fprintf(c.w, "\r%*s\r", c.shown, "")
		c.shown = 0
	}
}

// printf prints a warning.
func (c *console) printf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	switch {
	case c.n <= maxWarnings || c.all:
		c.clearLocked()
		fmt.Fprintf(c.w, "simidx %s: %s\n", c.cmd, fmt.Sprintf(format, args...))
	case c.n == maxWarnings+1:
		c.clearLocked()
		fmt.Fprintf(c.w, "simidx %s: more problems; only counting them from now on\n", c.cmd)
	}
}

// message prints a line.
func (c *console) message(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
	fmt.Fprintf(c.w, format+"\n", args...)
}

// progress replaces the progress line with line.
func (c *console) progress(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pad := max(c.shown-len(line), 0)
	fmt.Fprintf(c.w, "\r%s%*s", line, pad, "")
	c.shown = len(line)
	if pad > 0 {
		fmt.Fprintf(c.w, "\r%s", line)
	}
}

// clear removes the progress line.
func (c *console) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
}
