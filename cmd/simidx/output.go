package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/output"
	"github.com/spf13/pflag"
)

// outputFlags are --format and --output.
type outputFlags struct {
	format string
	output string
}

func (o *outputFlags) add(fs *pflag.FlagSet) {
	fs.StringVarP(&o.format, "format", "f", "table", "output `format`: table or jsonl (one JSON object per line)")
	fs.StringVarP(&o.output, "output", "o", "", "write the output to `FILE` instead of standard output")
}

// check validates the flags before any work is done. db is the --db
// index of the command ("" if none): an --output that is the index, or a
// file of its journal, is refused before anything is opened, as writing it
// would truncate the index.
func (o *outputFlags) check(db string) error {
	switch strings.ToLower(o.format) {
	case "table", "text":
		o.format = "table"
	case "jsonl", "json", "ndjson":
		o.format = "jsonl"
	default:
		return usagef("--format must be table or jsonl, not %q", o.format)
	}
	if o.output == "" || o.output == "-" || db == "" {
		return nil
	}
	if samePath(o.output, db) {
		return usagef("--output %s is the index --db %s: writing the output there would destroy the index; give another file", o.output, db)
	}
	if jd := index.LogDir(db); samePath(o.output, jd) || samePath(filepath.Dir(o.output), jd) {
		return usagef("--output %s is in the journal %s of the index --db %s: writing the output there would destroy the journal; give a file outside it", o.output, jd, db)
	}
	return nil
}

// samePath reports whether the paths a and b lead to the same file: when
// both exist, the same file (device and inode), however they are spelled
// and whatever symbolic or hard links lead there; when neither does, the
// same name in the same directory, a dangling symbolic link a followed
// (creating a would create b). Cost: a few stats.
func samePath(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	switch {
	case errA == nil && errB == nil:
		return os.SameFile(fa, fb)
	case errA == nil || errB == nil:
		return false
	}
	if fi, err := os.Lstat(a); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, err := os.Readlink(a); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(a), target)
			}
			a = target
		}
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, errA := os.Stat(filepath.Dir(a))
	db, errB := os.Stat(filepath.Dir(b))
	return errA == nil && errB == nil && os.SameFile(da, db)
}

// open returns the writer of the records: a table or JSON lines on standard
// output or the --output file. Close flushes it and reports write errors.
func (o *outputFlags) open(stdout io.Writer) (*output.Writer, error) {
	if o.output != "" && o.output != "-" {
		return output.Create(o.output, o.format == "jsonl")
	}
	return output.New(stdout, o.format == "jsonl"), nil
}
