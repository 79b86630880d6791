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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
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

// inputFlags select how inputs are read into documents.
type inputFlags struct {
	format    string
	idField   string
	textField string
}

func (f *inputFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.format, "input", inputAuto,
		"input `format`: auto, files (one document per file), jsonl, lines (one document per line) or hashes (ID and hex fingerprint per line)")
	fs.StringVar(&f.idField, "id-field", "id", "JSON `field` of the document ID with --input jsonl")
	fs.StringVar(&f.textField, "text-field", "text", "JSON `field` of the document text with --input jsonl")
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
	return nil
}

// source is one input: a file, or standard input when path is "".
type source struct {
	path   string
	id     string // document ID of the file, or the prefix of its line IDs
	size   int64  // -1 if unknown
	format string // inputAuto is resolved when the source is read
}

// reader turns inputs into documents and counts what it reads and skips.
// Its counters may be read while it runs.
type reader struct {
	flags  inputFlags
	stdin  io.Reader
	warn   *console
	inputs []source
	total  int64 // total input size, -1 if unknown
	multi  bool  // more than one input: line IDs are prefixed with the input's name
	// unique keeps every document apart: a document whose ID was read
	// before in this run gets the ID with "#2", "#3", ... appended, and
	// is reported (dedup). Without it a repeated ID replaces (index).
	unique bool
	seen   map[string]int // with unique: the IDs read so far, and how often
	// store says the documents go into an index: those whose ID it
	// would refuse are reported and skipped here, where their file and
	// line are known.
	store bool

	docs       atomic.Int64 // documents read
	bytes      atomic.Int64 // input bytes read
	binary     atomic.Int64 // files skipped because they hold NUL bytes
	unreadable atomic.Int64 // files or directories that could not be read
	invalid    atomic.Int64 // lines or files skipped as invalid (bad JSON, too large, ...)
	renamed    atomic.Int64 // documents whose repeated ID was made unique (unique)
}

// newReader lists the inputs: files as given, directories walked
// recursively (in lexical order), "-" for standard input. The ID of a file
// in a directory is its path relative to the directory when there is one
// INPUT, and the INPUT as given, a slash and that relative path when there
// are several (a/LICENSE and b/LICENSE, as md5sum prints them), so that
// files of the same name in different inputs stay different documents.
// Inputs that cannot be listed are reported and counted.
func newReader(args []string, flags inputFlags, stdin io.Reader, warn *console) (*reader, error) {
	r := &reader{flags: flags, stdin: stdin, warn: warn}
	stdinSeen := false
	for _, arg := range args {
		if arg == "-" {
			if stdinSeen {
				return nil, usagef("standard input (-) given more than once")
			}
			stdinSeen = true
			r.inputs = append(r.inputs, source{id: "-", size: -1, format: flags.format})
			continue
		}
		fi, err := os.Stat(arg)
		if err != nil {
			r.warn.printf("cannot read %v", trimPathError(arg, err))
			r.unreadable.Add(1)
			continue
		}
		if !fi.IsDir() {
			size := int64(-1)
			if fi.Mode().IsRegular() {
				size = fi.Size()
			}
			r.inputs = append(r.inputs, source{path: arg, id: arg, size: size, format: fileFormat(flags.format, arg)})
			continue
		}
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				r.warn.printf("cannot read %v", trimPathError(path, err))
				r.unreadable.Add(1)
				return nil
			}
			if d.IsDir() {
				return nil
			}
			fi, err := os.Stat(path) // follows symbolic links
			if err != nil {
				r.warn.printf("cannot read %v", trimPathError(path, err))
				r.unreadable.Add(1)
				return nil
			}
			if !fi.Mode().IsRegular() {
				return nil
			}
			id, err := filepath.Rel(arg, path)
			if err != nil {
				id = path
			}
			id = filepath.ToSlash(id)
			if len(args) > 1 {
				id = dirPrefix(arg) + id
			}
			r.inputs = append(r.inputs, source{path: path, id: id, size: fi.Size(), format: fileFormat(flags.format, path)})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	r.multi = len(r.inputs) > 1
	for _, in := range r.inputs {
		if in.size < 0 {
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

// fileFormat resolves the auto format of a file by its name.
func fileFormat(format, path string) string {
	if format != inputAuto {
		return format
	}
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

// skipped returns the number of inputs skipped so far.
func (r *reader) skipped() int64 {
	return r.binary.Load() + r.unreadable.Load() + r.invalid.Load()
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
	name := in.path
	if in.path == "" {
		rd, name = r.stdin, "standard input"
	} else {
		f, err := os.Open(in.path)
		if err != nil {
			r.warn.printf("cannot read %v", trimPathError(in.path, err))
			r.unreadable.Add(1)
			return true
		}
		defer f.Close()
		rd = f
	}
	br := bufio.NewReaderSize(rd, 64<<10)
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
	var err error
	ok := true
	switch format {
	case inputFiles:
		ok, err = r.readFile(in, name, br, send)
	default:
		ok, err = r.readLines(in, name, format, br, send)
	}
	if err != nil {
		r.warn.printf("cannot read %v", trimPathError(name, err))
		r.unreadable.Add(1)
	}
	return ok
}

// byteOrderMark is the UTF-8 encoding of U+FEFF, the byte order mark, which
// the readers of files and of request bodies skip.
const byteOrderMark = "\xef\xbb\xbf"

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// readFile sends the whole input as one document; name is its path, or
// "standard input", for warnings.
func (r *reader) readFile(in source, name string, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	text, err := io.ReadAll(io.LimitReader(br, index.MaxDocSize+1))
	r.bytes.Add(int64(len(text)))
	if err != nil {
		return true, err
	}
	if len(text) > index.MaxDocSize {
		n, _ := io.Copy(io.Discard, br)
		r.bytes.Add(n)
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
	return send(d), nil
}

// readLines sends one document per line in the lines, jsonl or hashes
// format.
func (r *reader) readLines(in source, name, format string, br *bufio.Reader, send func(index.Doc) bool) (bool, error) {
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		r.bytes.Add(int64(len(line)))
		if len(line) > 0 {
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
	r.warn.printf("%s: ID %s was read before; this document is %s", where, strconv.Quote(id), strconv.Quote(d.ID))
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
		if r.multi {
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
			return bad("not a JSON object: %v", err)
		}
		rawID, ok := obj[r.flags.idField]
		if !ok {
			return bad("no %q field (set the ID field with --id-field)", r.flags.idField)
		}
		var id string
		switch jsonKind(rawID) {
		case "string":
			// Strictly: a lone surrogate or a byte that is not UTF-8
			// would become U+FFFD, and different IDs the same.
			var err error
			if id, err = jsonString(rawID); err != nil {
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
	n     int // warnings so far
	shown int // length of the progress line on screen, 0 if none
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
	case c.n <= maxWarnings:
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
