package index

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap one of these (test
// with errors.Is) and add detail such as the path or the offending ID; or
// else an error of the file system (a file or directory that does not
// exist or cannot be read: test with errors.Is(err, fs.ErrNotExist) or
// fs.ErrPermission), the error of a cancelled context, an error of a
// document source given to Load, or, after a bulk load interrupted in
// this process, the plain error that writes wait for a reopen.
var (
	// ErrNotIndex means the file is not an index: not a bbolt database, a
	// bbolt database without the index's meta bucket, or a truncated file.
	ErrNotIndex = errors.New("not a simidx index")

	// ErrCorrupt means the file is an index whose contents break an
	// invariant, as reported by Check.
	ErrCorrupt = errors.New("index is corrupt")

	// ErrVersion means the index was written with a newer schema version
	// than this package understands.
	ErrVersion = errors.New("index schema version is newer than supported")

	// ErrLocked means another process holds the index open for writing (or,
	// for a writer, any other process holds it open) and the lock was not
	// released within Options.Timeout.
	ErrLocked = errors.New("index is in use by another process")

	// ErrSettings means settings or query options are invalid, or conflict
	// with the settings the index was created with.
	ErrSettings = errors.New("invalid or conflicting index settings")

	// ErrSettingsConflict is an Open with settings that differ from those
	// the index was created with (another process may have created it a
	// moment before). It wraps ErrSettings.
	ErrSettingsConflict = fmt.Errorf("%w: settings differ from the stored ones", ErrSettings)

	// ErrNotFound means no document has the given ID.
	ErrNotFound = errors.New("document not found")

	// ErrInvalidID means a document ID is empty, longer than MaxIDLen bytes
	// or not valid UTF-8.
	ErrInvalidID = errors.New("invalid document ID")

	// ErrFull means the index has used all its 2^32-1 document numbers
	// (each add of a new ID takes one, never reused): rebuild it with
	// Load.
	ErrFull = errors.New("index is full: document numbers exhausted")

	// ErrTooLarge means a document's text is longer than MaxDocSize bytes.
	ErrTooLarge = errors.New("document too large")

	// ErrReadOnly means a write was attempted on an index opened with
	// Options.ReadOnly.
	ErrReadOnly = errors.New("index is read-only")

	// ErrClosed means the index has been closed.
	ErrClosed = errors.New("index is closed")

	// ErrChanged means a commit was made to the index file while CopyFile
	// copied it: the copy may mix two commits.
	ErrChanged = errors.New("index changed while it was copied")

	// ErrLogDamaged is a log left by an earlier process that holds damage
	// other than a torn tail: acknowledged operations would be lost. Open
	// fails with it and changes nothing, unless LogOptions.Salvage is set.
	ErrLogDamaged = errors.New("index log is damaged")

	// ErrPending is a scan of the whole file (Pairs, Clusters, Members,
	// Compare, Backup, Stats) on a read-only index whose log holds
	// operations a process that did not close the index acknowledged: the
	// file does not hold them yet. Opening the index for writing once
	// applies them.
	ErrPending = errors.New("index log holds operations not yet applied to the file; open the index for writing once to apply them")
)
