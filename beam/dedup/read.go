package dedup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"   // gs://
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // paths without a scheme
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"    // s3://
	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/input"
)

// File is one input file: its place in the input order, its path for
// Beam's file systems, the ID of its document when it is read whole, and
// its format.
type File struct {
	Index int
	Path  string
	ID    string
	JSONL bool
}

// Doc is a document read: Seq is its place in the input order (the file's
// Index in the high 32 bits, its line number, from 1, in the low 32; 0
// for a whole file), Size the bytes of its text.
type Doc struct {
	Seq  uint64
	ID   string
	Text []byte
}

// Format names, as simidx's --input.
const (
	FormatAuto  = "auto"
	FormatFiles = "files"
	FormatJSONL = "jsonl"
)

// ListInputs returns the files of the inputs, in the input order of
// simidx dedup: each input in the order given; a local directory walked
// in lexical order (hidden files and directories left out, as simidx
// does by default), its files named by their path relative to it (with
// the input as given and a slash before it when there are several
// inputs); a path with a scheme (gs://, s3://) a file or a glob, expanded
// by Beam's file system for it in lexical order, each file named by its
// path. format is auto (JSON lines for .jsonl and .ndjson, with or
// without .gz; otherwise a file is one document), files or jsonl. It runs
// where the pipeline is built, and lists names only.
func ListInputs(ctx context.Context, inputs []string, format string) ([]File, error) {
	var files []File
	add := func(path, id string) {
		files = append(files, File{Index: len(files), Path: path, ID: id, JSONL: isJSONL(format, path)})
	}
	for _, in := range inputs {
		if strings.Contains(in, "://") {
			fsys, err := filesystem.New(ctx, in)
			if err != nil {
				return nil, err
			}
			names, err := fsys.List(ctx, in)
			fsys.Close()
			if err != nil {
				return nil, fmt.Errorf("listing %s: %w", in, err)
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("%s: no such file", in)
			}
			slices.Sort(names)
			for _, n := range names {
				add(n, n)
			}
			continue
		}
		fi, err := os.Stat(in)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", in, unwrapPath(err))
		}
		if !fi.IsDir() {
			add(in, in)
			continue
		}
		prefix := ""
		if len(inputs) > 1 {
			prefix = strings.TrimRight(filepath.ToSlash(in), "/") + "/"
		}
		err = filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != in && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(in, p)
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			add(abs, prefix+filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(files) > 1<<31 {
		return nil, fmt.Errorf("%d input files: at most 2^31", len(files))
	}
	return files, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// isJSONL reports whether path is read as JSON lines in format.
func isJSONL(format, path string) bool {
	switch format {
	case FormatJSONL:
		return true
	case FormatFiles:
		return false
	}
	path = strings.TrimSuffix(path, ".gz")
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return true
	}
	return false
}

// readFn reads the documents of a file through Beam's file system for
// its path: the whole file, or one document per line of JSON lines
// (fields IDField and TextField); gzip data (by its magic bytes) is
// decompressed. Invalid lines, binary files and texts over
// index.MaxDocSize are skipped and counted, as simidx skips them. A file
// is read by one worker, in one pass, a line at a time.
type readFn struct {
	IDField, TextField string
}

func (fn *readFn) ProcessElement(ctx context.Context, f File, emit func(Doc)) error {
	fsys, err := filesystem.New(ctx, f.Path)
	if err != nil {
		return err
	}
	defer fsys.Close()
	rc, err := fsys.OpenRead(ctx, f.Path)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", f.Path, err)
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	if b, err := br.Peek(2); err == nil && b[0] == 0x1f && b[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		defer z.Close()
		br = bufio.NewReaderSize(z, 64<<10)
	}
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3) // a byte order mark is not part of the input
	}
	base := uint64(f.Index) << 32
	if !f.JSONL {
		text, err := io.ReadAll(io.LimitReader(br, index.MaxDocSize+1))
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		if len(text) > index.MaxDocSize || bytes.IndexByte(text, 0) >= 0 {
			skipped.Inc(ctx, 1)
			return nil
		}
		emit(Doc{Seq: base, ID: f.ID, Text: text})
		return nil
	}
	for n := 1; ; n++ {
		line, long, _, err := input.ReadLine(br, 8*index.MaxDocSize)
		if long {
			skipped.Inc(ctx, 1)
		} else if len(bytes.TrimSpace(line)) > 0 {
			id, text, problem := input.ParseJSONLine(bytes.TrimRight(line, "\r\n"), fn.IDField, fn.TextField)
			if problem != "" || len(text) > index.MaxDocSize {
				skipped.Inc(ctx, 1)
			} else {
				emit(Doc{Seq: base | uint64(n), ID: id, Text: text})
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
}
