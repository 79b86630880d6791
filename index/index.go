package index

import (
	"fmt"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// Index is an open near-duplicate index. It is safe for concurrent use by
// multiple goroutines; writes are serialized.
type Index struct {
	db       *bolt.DB
	path     string
	readOnly bool
	settings Settings // normalized
	tables   []table
	keyBytes int // bytes of a table key: ceil(KeyBits/8)
	sufBytes int // bytes of an entry's fingerprint suffix: ceil((64-KeyBits)/8)
	lay      layout
	akey     uint64 // analysisKey of the settings: the probes AddProbed stores

	// groups is how the bands bucket keys its postings: by group
	// (bandGroupKey), or with groups.g -1 in an index created before
	// schema 9, by hash (see bandgroups.go).
	groups groupCodec

	// ids is how the ids bucket keys the documents: by group of the
	// ID's hash, or with ids.g -1 in an index created before schema 11,
	// by ID (see idgroups.go).
	ids hashGroups

	// exact is how the exact bucket keys its pairs: by group of the hash,
	// or with exact.g -1 in an index created before schema 11, a key per
	// pair (see exactgroups.go).
	exact hashGroups

	wmu    sync.Mutex // serializes writers
	count  atomic.Int64
	closed atomic.Bool
	pool   sync.Pool // *analyzer

	// faulted is set when a fault (a damaged or truncated file) stopped
	// bbolt as it began or ended a transaction, outside the transaction's
	// function: bbolt may then hold its locks for good, and every later
	// transaction, and bbolt's Close, would wait for them forever. The
	// methods then fail with ErrCorrupt at once (see transactionFault).
	faulted atomic.Bool

	// filter is the band filter of Options.BandFilter, nil without it
	// and while a Load writes.
	filter    atomic.Pointer[bandFilter]
	useFilter bool // Options.BandFilter

	// mirror is the copy of the tables bucket of Options.TableMirror
	// (nil without it, and while a Load writes); tablesTx is the ID of the
	// last write transaction that changed the tables bucket, stored
	// before its commit (see tableMirror).
	mirror    atomic.Pointer[tableMirror]
	tablesTx  atomic.Uint64
	useMirror bool           // Options.TableMirror
	retired   []*tableMirror // replaced mirrors whose memory is not freed yet (under wmu)

	// The in-memory levels of the file (level): lcur is the current
	// level, which adds write; lmrg the one a merge under way moves into
	// the buckets, slice by slice (nil without one); lold the one the last
	// merge moved, kept until no reader of an older snapshot is left.
	// Every read transaction holds readers (read) from before it begins
	// until it ends; a merge starts, and retires lold, only with
	// readers.TryLock.
	lcur, lmrg, lold atomic.Pointer[level]
	readers          sync.RWMutex
	recentMax        int // Options.RecentBands

	// wlog is the write path through the log (nil when read-only or
	// with LogOptions.Direct); pend the operations logged and not yet in
	// the file, which queries merge with the file's answers (nil
	// without a log).
	wlog     *writeLog
	pend     *pending
	uniqueMu sync.Mutex // serializes AddIfUnique with LogOptions.Direct
	pairTune pairTuning // the workers and buffers of Pairs (tests set them)
	replayed int        // operations of a left log, see Replayed
	salvaged *LogSalvage
}

// Doc is a document to add: an external ID and its text. Precomputed
// documents carry a fingerprint instead of text (for fingerprints computed
// elsewhere); they have no canonical-text hash and no MinHash signature, so
// in an index with MinHash they are matched by fingerprint distance alone.
type Doc struct {
	// ID is the external ID: 1 to MaxIDLen bytes of UTF-8.
	ID string

	// Text is the document text, at most MaxDocSize bytes. The index does
	// not retain it.
	Text []byte

	// Fingerprint is the 64-bit simhash fingerprint, used instead of Text
	// when Precomputed is set.
	Fingerprint uint64

	// Precomputed says that Fingerprint holds the fingerprint and Text is
	// to be ignored.
	Precomputed bool
}

// Path returns the file name of the index.
func (x *Index) Path() string { return x.path }

// Settings returns the settings the index was created with, defaults filled
// in. Passing them back to Open in Options.Settings matches the index.
func (x *Index) Settings() Settings { return x.settings.public() }

// Len returns the number of documents in the index, those logged and not
// yet in the file included. It costs an atomic load.
func (x *Index) Len() int {
	if x.pend != nil {
		return x.pend.snapshot().documents()
	}
	return int(x.count.Load())
}

// Sync commits the operations of the log to the file and flushes the file
// to disk (fdatasync). Only an index opened with Options.NoSync needs it,
// before something that must not outlive its commits is removed: the
// commits of the others are synced. It fails with ErrReadOnly on a
// read-only index.
func (x *Index) Sync() error {
	if err := x.checkWritable(); err != nil {
		return err
	}
	if err := x.flush(); err != nil {
		return err
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	if err := x.checkOpen(); err != nil {
		return err
	}
	return boltErr(x.db.Sync())
}

// Close releases the index and its file lock. It waits for running
// transactions to finish. Later calls to any method that reads or writes
// the file return ErrClosed (Path, Settings and Len, which do not, still
// answer); Close itself may be called
// more than once.
//
// On an index where a fault left bbolt's locks held (see faulted), Close
// does not wait for them: it returns an error wrapping ErrCorrupt, and the
// file stays mapped, open and locked until the process exits.
func (x *Index) Close() error {
	var lerr error
	if !x.closed.Load() && !x.faulted.Load() {
		lerr = x.closeLog()
	}
	if x.closed.Swap(true) {
		return nil
	}
	if lerr != nil {
		x.wmu.Lock()
		x.db.Close()
		x.wmu.Unlock()
		return fmt.Errorf("applying the log to %s on close (the log is kept and applied at the next Open): %w", x.path, lerr)
	}
	if x.faulted.Load() {
		return errFaulted
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	if x.faulted.Load() { // a writer that held wmu met the fault
		return errFaulted
	}
	err := x.db.Close() // waits for the read transactions
	// No reader uses the table mirrors now, nor will: their memory goes.
	x.readers.Lock()
	x.setMirror(nil)
	x.readers.Unlock()
	for _, r := range x.retired {
		mirrorFree(r.mem)
	}
	x.retired = nil
	return err
}

func (x *Index) checkOpen() error {
	if x.closed.Load() {
		return ErrClosed
	}
	if x.faulted.Load() {
		return errFaulted
	}
	return nil
}

func (x *Index) checkWritable() error {
	if x.closed.Load() {
		return ErrClosed
	}
	if x.faulted.Load() {
		return errFaulted
	}
	if x.readOnly {
		return ErrReadOnly
	}
	return nil
}

// Err returns nil while x works, ErrClosed once it is closed, and an
// error wrapping ErrCorrupt once a damaged or truncated file stopped a
// transaction half-way, after which every method fails at once: what a
// server's health check reports. It costs two atomic loads.
func (x *Index) Err() error {
	switch {
	case x.faulted.Load():
		return errFaulted
	case x.closed.Load():
		return ErrClosed
	}
	return nil
}
