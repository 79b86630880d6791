package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/indexflag"
)

// openExisting opens the index at path, which must exist, read-only or for
// writing. Opened for writing, a journal left by simidx serve (the index's
// write-ahead log, index.LogDir) is applied to it by index.Open, which
// reportReplayed tells; opened read-only, such a journal is an error.
// Writes are direct (index.LogOptions.Direct): one synced transaction per
// call, without a journal.
func openExisting(path string, readOnly, salvage bool) (*index.Index, error) {
	if path == "" {
		return nil, usagef("--db PATH is required")
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no index at %s; create one with simidx index (simidx index --db %s DIR)", path, path)
	}
	o := &index.Options{ReadOnly: readOnly}
	if !readOnly {
		o.Log = &index.LogOptions{Direct: true, Salvage: salvage}
	}
	x, err := index.Open(path, o)
	if err != nil {
		return nil, openError(path, err, false)
	}
	if readOnly {
		if n := x.Replayed(); n > 0 {
			x.Close()
			return nil, journalError(path, n)
		}
	} else {
		reportReplayed(x)
	}
	return x, nil
}

// reportReplayed tells on standard error how many operations of a journal
// left by simidx serve index.Open applied to x, if any, and what it
// salvaged of a damaged one.
func reportReplayed(x *index.Index) {
	if s := x.Salvaged(); s != nil {
		fmt.Fprintf(os.Stderr, "simidx: salvaged %d journaled operations of a damaged journal, kept in %s: %s\n", s.Operations, s.Aside, s.Damage)
	} else if n := x.Replayed(); n > 0 {
		fmt.Fprintf(os.Stderr, "simidx: applied %d journaled operations left in %s to %s\n", n, index.LogDir(x.Path()), x.Path())
	}
}

// journalError is the error of a read-only open of the index at db whose
// journal holds n operations not yet in the index file: a command that
// reads the file would miss them.
func journalError(db string, n int) error {
	return fmt.Errorf("%s has %d acknowledged operations in its journal %s that are not yet in the index (simidx serve did not stop cleanly); open it for writing once to apply them, for example with simidx serve --db %s", db, n, index.LogDir(db), db)
}

// openCreate opens the index at path for writing, creating it with s if it
// does not exist, with the options o (whose Settings it sets to s); a
// journal left by simidx serve is applied, and reported. Without o.Log,
// writes are direct, as openExisting's.
func openCreate(path string, s *index.Settings, o index.Options) (*index.Index, error) {
	if path == "" {
		return nil, usagef("--db PATH is required")
	}
	created := false
	if fi, err := os.Stat(path); errors.Is(err, os.ErrNotExist) || (err == nil && fi.Size() == 0) {
		created = true
	}
	o.Settings = s
	if o.Log == nil {
		o.Log = &index.LogOptions{Direct: true}
	}
	x, err := index.Open(path, &o)
	if err != nil {
		return nil, openError(path, err, created)
	}
	reportReplayed(x)
	return x, nil
}

// openError turns an error of index.Open into one that says what to do.
// Invalid settings are a usage error; settings that differ from the stored
// ones a conflict, also when the index did not exist a moment before
// (another process created it between the check and the Open). created
// says whether Open was to create the index.
func openError(path string, err error, created bool) error {
	switch {
	case errors.Is(err, index.ErrLogDamaged):
		return fmt.Errorf("%v; run simidx index, delete or serve on it with --salvage-journal to apply those operations and keep the damaged journal aside in %s.damaged", err, index.LogDir(path))
	case errors.Is(err, index.ErrLocked):
		return fmt.Errorf("%s is in use by another simidx process; wait for it to finish, or make a consistent copy with simidx backup --db %s COPY and use the copy", path, path)
	case errors.Is(err, index.ErrCorrupt):
		return fmt.Errorf("%s is a damaged simidx index (%v); restore it from a backup (simidx backup), or build it again with simidx index", path, err)
	case errors.Is(err, index.ErrNotIndex):
		return fmt.Errorf("%s is not a simidx index (%v); give the path of an index made by simidx index, or a new path to create one", path, err)
	case errors.Is(err, index.ErrVersion):
		return fmt.Errorf("%s was written by a newer version of simidx (%v); upgrade simidx to use it", path, err)
	case errors.Is(err, index.ErrSettings) && !errors.Is(err, index.ErrSettingsConflict):
		return usagef("invalid index settings: %v", err)
	case errors.Is(err, index.ErrSettingsConflict):
		return fmt.Errorf("the flags conflict with the settings %s was created with (%v); leave out the creation flags to add to it, or use a new --db path", path, err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	// An error of the file system: index.Open wraps the *fs.PathError of
	// the same path, which said it twice.
	reason := pe.Err.Error()
	if pe.Path != path {
		reason = fmt.Sprintf("%s: %v", pe.Path, pe.Err)
	}
	if _, serr := os.Stat(path); serr == nil {
		return fmt.Errorf("cannot open %s: %s", path, reason)
	}
	dir := filepath.Dir(path)
	if fi, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
		return fmt.Errorf("cannot create %s: the directory %s does not exist; create it first, or give a --db path in an existing directory", path, dir)
	} else if serr != nil {
		return fmt.Errorf("cannot create %s: %v", path, trimPathError(dir, serr))
	} else if !fi.IsDir() {
		return fmt.Errorf("cannot create %s: %s is not a directory", path, dir)
	}
	return fmt.Errorf("cannot create %s: %s", path, reason)
}

// fingerprinter returns a Fingerprinter for the settings of the index at
// db, or, when db is empty, for the settings named by the flags sf (the
// defaults where none is given). Giving both is a usage error.
func fingerprinter(sf *indexflag.Settings, db string) (*index.Fingerprinter, error) {
	st, err := sf.Build()
	if err != nil {
		return nil, err
	}
	if db != "" {
		if st != nil {
			return nil, usagef("give either --db or settings flags, not both")
		}
		x, err := openExisting(db, true, false)
		if err != nil {
			return nil, err
		}
		stored := x.Settings()
		st = &stored
		x.Close()
	}
	f, err := index.NewFingerprinter(st)
	if err != nil {
		return nil, usagef("invalid settings: %v", err)
	}
	return f, nil
}
