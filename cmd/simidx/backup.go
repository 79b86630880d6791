package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/simidx/simidx/index"
	"github.com/spf13/pflag"
)

var backupCommand = &command{
	name:  "backup",
	args:  "--db PATH OUT",
	short: "write a consistent copy of an index, also while it is in use",
	long: `Backup writes a consistent copy of the index at --db to the file OUT: the
index as of one commit, which opens and checks as any index. Copying the file
with cp while a process writes it can give a damaged copy; backup cannot.

When no process writes the index, it is read in one read transaction. When
another process holds it open for writing (simidx serve, simidx index), it
is copied without its lock, as of its last commit, and the copy is kept
only if no commit was made while it was read; else it is made again, up to
20 times. Operations a server has acknowledged but not yet committed to the
index (in its journal, PATH.journal) are not in the copy.

The copy is written to a temporary file beside OUT, synced, checked (it
must open as an index) and renamed to OUT, which it replaces: OUT is
either the old file or the whole copy, never a part of it. OUT may not be
the index itself or a file of its journal.

Example:

	simidx backup --db licenses.db licenses-copy.db
	simidx stats --check --db licenses-copy.db`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &backupOptions{}
		fs.StringVar(&o.db, "db", "", "index file `PATH`")
		fs.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing on success")
		return func(ctx context.Context, e *env, args []string) error { return runBackup(ctx, e, o, args) }
	},
}

// backupOptions are the flags of simidx backup.
type backupOptions struct {
	db    string
	quiet bool
}

// runBackup runs simidx backup: a copy of the index at --db to args[0].
func runBackup(ctx context.Context, e *env, o *backupOptions, args []string) error {
	if o.db == "" {
		return usagef("--db PATH is required")
	}
	if len(args) != 1 {
		return usagef("give one OUT, the file to write the copy to (simidx backup --db PATH OUT)")
	}
	out := args[0]
	switch fi, err := os.Stat(out); {
	case out == "-":
		return usagef("backup writes a file, which it replaces once the copy is whole; give its path, not -")
	case samePath(out, o.db):
		return usagef("OUT %s is the index --db %s itself; give another file", out, o.db)
	case samePath(out, index.LogDir(o.db)) || samePath(filepath.Dir(out), index.LogDir(o.db)):
		return usagef("OUT %s is in the journal %s of the index; give a file outside it", out, index.LogDir(o.db))
	case err == nil && fi.IsDir():
		return usagef("OUT %s is a directory; give the path of the file to write", out)
	}
	src, err := os.Stat(o.db)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no index at %s", o.db)
	} else if err != nil {
		return err
	}
	res, err := backup(ctx, o.db, out, src.Mode().Perm())
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	if !o.quiet {
		fmt.Fprintf(e.stderr, "backed up %d %s, %s, from %s to %s", res.docs, plural(int64(res.docs), "document", "documents"),
			formatBytes(res.bytes), o.db, out)
		if res.live {
			fmt.Fprintf(e.stderr, " (in use by another process: the copy is its last commit)")
		}
		fmt.Fprintln(e.stderr)
	}
	return nil
}

// backupResult is what backup copied.
type backupResult struct {
	docs  int
	bytes int64
	live  bool // copied while another process held the index for writing
}

// backupAttempts is how many copies backup makes of an index another
// process writes before it gives up: each fails only if a commit came
// while it was read.
const backupAttempts = 20

// backup writes a consistent copy of the index at db to a temporary file
// in out's directory, syncs and checks it, and renames it to out, with the
// permissions perm. Cost: a read of the index and a write of its size (per
// attempt for an index in use), two fsyncs.
func backup(ctx context.Context, db, out string, perm os.FileMode) (res backupResult, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return res, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	x, err := index.Open(db, &index.Options{ReadOnly: true})
	switch {
	case errors.Is(err, index.ErrLocked):
		res.live = true
		res.bytes, err = copyLive(ctx, db, tmp)
	case err != nil:
		return res, openError(db, err, false)
	default:
		// A journal left by a server that did not stop cleanly holds
		// operations the file lacks.
		if n := x.Replayed(); n > 0 {
			err = journalError(db, n)
		} else {
			res.bytes, err = x.Backup(tmp)
		}
		if cerr := x.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return res, err
	}
	if err = tmp.Sync(); err != nil {
		return res, err
	}
	if err = tmp.Close(); err != nil {
		return res, err
	}
	// The copy must open as an index.
	y, err := index.Open(tmp.Name(), &index.Options{ReadOnly: true})
	if err != nil {
		return res, fmt.Errorf("the copy of %s does not open: %w", db, err)
	}
	res.docs = y.Len()
	y.Close()
	if err = os.Chmod(tmp.Name(), perm); err != nil {
		return res, err
	}
	if err = os.Rename(tmp.Name(), out); err != nil {
		return res, err
	}
	return res, syncDir(filepath.Dir(out))
}

// copyLive copies the index at db, which another process holds open for
// writing, to f with index.CopyFile, again while a commit comes during the
// copy, up to backupAttempts times.
func copyLive(ctx context.Context, db string, f *os.File) (int64, error) {
	for range backupAttempts {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return 0, err
		}
		if err := f.Truncate(0); err != nil {
			return 0, err
		}
		n, err := index.CopyFile(db, f)
		if !errors.Is(err, index.ErrChanged) {
			return n, err
		}
	}
	return 0, fmt.Errorf("%s is in use, and a commit came during each of %d copies; try again when it is written less, or stop the process that writes it", db, backupAttempts)
}

// syncDir syncs the directory dir, so that a file renamed into it stays
// there after a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
