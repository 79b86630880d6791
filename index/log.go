package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/simidx/simidx/index/internal/wal"
)

// LogOptions tune the write path of Add, AddIfUnique and Delete. The zero
// value selects the defaults documented on each field.
//
// By default those calls go through the index's write-ahead log, a
// directory beside the file (PATH.journal): the calls of many goroutines
// are coalesced into groups, each appended to the log with one write and
// one fdatasync, so a call is durable when it returns at the cost of its
// share of one fdatasync. Queries see an operation as soon as its call
// returns. A background applier commits the logged operations to the
// index file in large batches and then removes them from the log. Open
// for writing applies a log left by a process that did not close the
// index; a read-only Open reads it into memory, so readers see every
// acknowledged operation either way.
type LogOptions struct {
	// Direct makes each Add, AddIfUnique and Delete call one bbolt
	// transaction of its own, synced unless Options.NoSync, without the
	// log: a call costs an fsync of the index file, and concurrent calls
	// take turns. For a program that writes rarely, or that must not
	// leave a directory beside the file. A log left by an earlier process
	// is still applied at Open.
	Direct bool

	// GroupDocs is the most documents one group commit holds; a call is
	// never split. Zero means 10,000.
	GroupDocs int

	// GroupDelay is how long the committer waits for more calls before it
	// writes a group. Zero (the default) writes what is queued at once:
	// the calls that arrive during one write and fdatasync form the next
	// group.
	GroupDelay time.Duration

	// ApplyInterval is the longest time an operation stays in the log
	// alone before the applier commits it to the index file. Zero means
	// 200ms.
	ApplyInterval time.Duration

	// ApplyDocs is the number of pending operations that starts an apply
	// at once. Zero means 4,096.
	ApplyDocs int

	// MaxPending is the number of operations logged and not yet applied
	// at which Add and Delete wait for the applier, so that the memory of
	// the pending operations, and every query's share of them, stay
	// bounded. Zero means 65,536.
	MaxPending int

	// Events, if not nil, is told of every group commit and apply, from
	// the goroutine that made it; its functions must not block.
	Events *LogEvents

	// Salvage lets Open for writing go on past a damaged log left by an
	// earlier process: it moves the log aside (LogDir(path) + ".damaged",
	// kept for inspection), applies the operations of every intact batch
	// of it, and Salvaged says what was read and lost. Without it, such a
	// log makes Open fail with an error wrapping ErrLogDamaged, and
	// changes nothing. A torn tail (the last group, cut by a crash before
	// it was acknowledged) is not damage.
	Salvage bool
}

// LogSalvage says what Open salvaged of a damaged log (LogOptions.Salvage).
type LogSalvage struct {
	Operations int    // operations read and applied
	Aside      string // the directory the damaged log was moved to
	Damage     string // what was damaged and skipped
}

// LogEvents receive what the write path does, for metrics.
type LogEvents struct {
	// Commit is called after each group commit (one log append and
	// fdatasync), successful or not.
	Commit func(CommitInfo)
	// Apply is called after each commit of logged operations to the index
	// file, successful or not.
	Apply func(ApplyInfo)
}

// CommitInfo describes one group commit.
type CommitInfo struct {
	Adds, Deletes int           // operations in the group
	Refused       int           // documents AddIfUnique refused in the group
	Bytes         int64         // text bytes added
	Duration      time.Duration // of the append and its fdatasync
	Err           error         // the calls of the group failed with it
}

// ApplyInfo describes one commit of logged operations to the index file.
type ApplyInfo struct {
	Ops      int           // operations applied (the last one per ID)
	Duration time.Duration // of the index commits, fsyncs included
	Err      error         // the operations stay pending, and are retried
}

// LogStats describe the write-ahead log at one moment.
type LogStats struct {
	Pending       int       // operations logged, not yet in the index file
	OldestPending time.Time // when the oldest of them was logged; zero if none
	Bytes         int64     // size of the log's segment files (with the zeros written ahead)
}

// Defaults of LogOptions.
const (
	defaultGroupDocs     = 10_000
	defaultApplyInterval = 200 * time.Millisecond
	defaultApplyDocs     = 4096
	defaultMaxPending    = 65536
)

func (o LogOptions) normalize() LogOptions {
	if o.GroupDocs <= 0 {
		o.GroupDocs = defaultGroupDocs
	}
	if o.GroupDelay < 0 {
		o.GroupDelay = 0
	}
	if o.ApplyInterval <= 0 {
		o.ApplyInterval = defaultApplyInterval
	}
	if o.ApplyDocs <= 0 {
		o.ApplyDocs = defaultApplyDocs
	}
	if o.MaxPending <= 0 {
		o.MaxPending = defaultMaxPending
	}
	if o.Events == nil {
		o.Events = &LogEvents{}
	}
	return o
}

// LogDir returns the directory of the write-ahead log of the index at path.
func LogDir(path string) string { return path + ".journal" }

// writeLog is the write path of an index with a log: the log itself, the
// committer that appends groups of calls to it, and the applier that
// commits them to the file.
type writeLog struct {
	x    *Index
	j    *wal.Journal
	opts LogOptions

	// appendMu is held by the committer to append to the log and publish
	// to the pending level, and by the applier to rotate the log, so that
	// a sealed segment holds exactly the operations published before.
	appendMu sync.Mutex

	ch       chan *writeReq
	mu       sync.RWMutex // held to send on ch; held exclusively to close it
	closed   bool
	commDone chan struct{}

	// commitMu is held by the committer for each group, and by Load for
	// its whole run: no operation is logged while Load writes.
	commitMu sync.Mutex
	// applyMu serializes applies (the applier's, flush's and Close's).
	applyMu   sync.Mutex
	closeOnce sync.Once
	closeErr  error

	kick, stop, applyDone chan struct{}
	closing               bool // the last apply: no spare segment
}

// ErrLogClosed is the error of a write that reaches an index being closed.
var ErrLogClosed = errors.New("index: closing, write refused")

// openLog applies a log left at LogDir(x.path) to the file, then, unless
// opts.Direct, starts a new one with its committer and applier. The caller
// is Open, on an index opened for writing.
func (x *Index) openLog(opts LogOptions, noSync bool) error {
	if err := x.applyLeftLog(opts.Salvage); err != nil {
		return err
	}
	if opts.Direct {
		return nil
	}
	x.pend = newPending(x, x.Len())
	j, err := wal.Open(LogDir(x.path))
	if err != nil {
		return fmt.Errorf("opening the log: %w", err)
	}
	j.NoSync = noSync
	if err := j.Prepare(); err != nil {
		j.Close()
		return fmt.Errorf("creating the log: %w", err)
	}
	w := &writeLog{x: x, j: j, opts: opts.normalize(), ch: make(chan *writeReq, 256), commDone: make(chan struct{}),
		kick: make(chan struct{}, 1), stop: make(chan struct{}), applyDone: make(chan struct{})}
	x.wlog = w
	go w.commitLoop()
	go w.applyLoop()
	return nil
}

// applyChunk is how many documents a replay of a log commits at once.
const applyChunk = 20_000

// applyLeftLog commits the operations of a log left beside the file by a
// process that did not close the index (operations acknowledged but not
// yet in the file), in order, the last operation on an ID winning, then
// syncs the file and removes the log. It is idempotent: a log whose
// operations are in the file already changes nothing. It costs a read of
// the log, an analysis of each text in it and one synced commit per
// applyChunk documents.
func (x *Index) applyLeftLog(salvage bool) error {
	dir := LogDir(x.path)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	j, err := wal.Open(dir)
	if err != nil {
		return fmt.Errorf("opening the log %s: %w", dir, err)
	}
	var ops []wal.Record
	n, err := j.Replay(func(r wal.Record) error {
		ops = append(ops, r)
		return nil
	})
	if errors.Is(err, wal.ErrCorrupt) {
		j.Close()
		if !salvage {
			return damagedLog(dir, err)
		}
		return x.salvageLog(dir, err)
	}
	if err == nil {
		err = x.applyRecords(ops)
	}
	if err == nil {
		// The log goes only once its operations are on disk, also with
		// NoSync.
		err = boltErr(x.db.Sync())
	}
	if err != nil {
		j.Close()
		return fmt.Errorf("applying the log %s: %w", dir, err)
	}
	if err := j.Destroy(); err != nil {
		return fmt.Errorf("removing the log %s (its %d operations are in the index): %w", dir, n, err)
	}
	x.replayed = n
	return nil
}

// damagedLog is the error of a log that Replay or Read found damaged
// (err): it says how many operations could be read around the damage.
func damagedLog(dir string, err error) error {
	st, serr := wal.Salvage(dir, func(wal.Record) error { return nil })
	if serr != nil {
		return fmt.Errorf("%w: %s: %v", ErrLogDamaged, dir, err)
	}
	return fmt.Errorf("%w: %s: %v; the index is unchanged. %d acknowledged operations can be read around the damage (%s); "+
		"open with LogOptions.Salvage to apply them and keep the damaged log aside", ErrLogDamaged, dir, err, st.Records, st)
}

// salvageLog moves the damaged log dir aside, applies the operations of
// its intact batches, syncs the file and records what it did in
// x.salvaged.
func (x *Index) salvageLog(dir string, damage error) error {
	aside := dir + ".damaged"
	for i := 2; ; i++ {
		if _, err := os.Stat(aside); errors.Is(err, os.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s.damaged-%d", dir, i)
	}
	if err := os.Rename(dir, aside); err != nil {
		return fmt.Errorf("moving the damaged log aside: %w", err)
	}
	var ops []wal.Record
	st, err := wal.Salvage(aside, func(r wal.Record) error {
		ops = append(ops, r)
		return nil
	})
	if err == nil {
		err = x.applyRecords(ops)
	}
	if err == nil {
		err = boltErr(x.db.Sync())
	}
	if err != nil {
		return fmt.Errorf("salvaging the log %s (moved to %s): %w", dir, aside, err)
	}
	x.salvaged = &LogSalvage{Operations: st.Records, Aside: aside, Damage: fmt.Sprintf("%v; %s", damage, st)}
	x.replayed = st.Records
	return nil
}

// Salvaged says what Open salvaged of a damaged log left by an earlier
// process (LogOptions.Salvage), or nil if it found none.
func (x *Index) Salvaged() *LogSalvage { return x.salvaged }

// applyRecords commits the operations recs to the file, the last one per
// ID winning, applyChunk documents per commit.
func (x *Index) applyRecords(recs []wal.Record) error {
	var docs []Doc
	var dels []string
	flush := func() error {
		if len(docs) > 0 {
			if err := x.addDirect(docs...); err != nil {
				return err
			}
		}
		if len(dels) > 0 {
			if _, err := x.deleteDirect(dels...); err != nil {
				return err
			}
		}
		docs, dels = docs[:0], dels[:0]
		return nil
	}
	for _, i := range lastPerID(len(recs), func(i int) string { return recs[i].ID }) {
		r := recs[i]
		switch r.Op {
		case wal.OpDelete:
			dels = append(dels, r.ID)
		default:
			d, err := recordDoc(r)
			if err != nil {
				return err
			}
			docs = append(docs, d)
		}
		if len(docs)+len(dels) >= applyChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// recordDoc returns the document an add record of the log holds.
func recordDoc(r wal.Record) (Doc, error) {
	switch r.Op {
	case wal.OpAdd:
		return Doc{ID: r.ID, Text: r.Text}, nil
	case wal.OpFingerprint:
		if len(r.Text) != 8 {
			return Doc{}, fmt.Errorf("%w: a logged fingerprint of %d bytes", ErrCorrupt, len(r.Text))
		}
		return Doc{ID: r.ID, Precomputed: true, Fingerprint: binary.BigEndian.Uint64(r.Text)}, nil
	}
	return Doc{}, fmt.Errorf("%w: logged operation %d", ErrCorrupt, r.Op)
}

// readLeftLog reads a log left beside the file of a read-only index into
// the pending level, so that queries see the operations a process that
// did not close the index acknowledged. It changes nothing on disk. It
// costs a read of the log and an analysis of each text in it.
func (x *Index) readLeftLog() error {
	var ops []*pendingOp
	_, err := wal.Read(LogDir(x.path), func(r wal.Record) error {
		op, err := x.recordOp(r)
		if err == nil {
			ops = append(ops, op)
		}
		return err
	})
	if errors.Is(err, wal.ErrCorrupt) {
		return damagedLog(LogDir(x.path), err)
	}
	if err != nil {
		return fmt.Errorf("reading the log %s: %w", LogDir(x.path), err)
	}
	x.pend = newPending(x, x.Len())
	if len(ops) == 0 {
		return nil
	}
	var gl groupLatest
	for i, op := range ops {
		var before bool // the document exists before op
		if prev := gl.latest(ops[:i], op.id); prev != nil {
			before = !prev.del
		} else {
			_, err := x.Get(op.id)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			before = err == nil
		}
		op.net = b2i(!op.del) - b2i(before)
	}
	x.pend.publish(ops)
	x.replayed = len(ops)
	return nil
}

// recordOp returns the pending operation of a log record, its text
// analyzed.
func (x *Index) recordOp(r wal.Record) (*pendingOp, error) {
	if r.Op == wal.OpDelete {
		return &pendingOp{id: r.ID, del: true, at: time.Now()}, nil
	}
	d, err := recordDoc(r)
	if err != nil {
		return nil, err
	}
	pr, err := x.probeDoc(&d)
	if err != nil {
		return nil, err
	}
	return &pendingOp{id: r.ID, probe: pr, at: time.Now()}, nil
}

// probeDoc validates d and returns its probe. It costs an analysis of its
// text.
func (x *Index) probeDoc(d *Doc) (docProbe, error) {
	if err := validID(d.ID); err != nil {
		return docProbe{}, err
	}
	if d.Precomputed {
		if x.settings.Text.Method.IsSet() {
			return docProbe{}, fmt.Errorf("%w: document %q: a fingerprint alone cannot be added under a method of word sets", ErrSettings, d.ID)
		}
		return x.probeFingerprint(d.Fingerprint), nil
	}
	pr, err := x.probeText(d.Text)
	if err != nil {
		return docProbe{}, fmt.Errorf("document %q: %w", d.ID, err)
	}
	return pr, nil
}

// Replayed returns the number of operations Open found in a log left by a
// process that did not close the index: applied to the file when opened
// for writing, read into memory when read-only.
func (x *Index) Replayed() int { return x.replayed }

// LogStats returns the state of the write-ahead log: zero without one
// (read-only, or LogOptions.Direct). It costs an atomic load and a
// listing of the log's directory.
func (x *Index) LogStats() LogStats {
	var s LogStats
	if x.pend == nil {
		return s
	}
	v := x.pend.snapshot()
	s.Pending, s.OldestPending = v.len(), v.oldest()
	if x.wlog != nil {
		if ents, err := os.ReadDir(x.wlog.j.Dir()); err == nil {
			for _, e := range ents {
				if fi, err := e.Info(); err == nil {
					s.Bytes += fi.Size()
				}
			}
		}
	}
	return s
}

// closeLog stops the committer (the calls queued are committed), applies
// every pending operation to the file and removes the log. The caller is
// Close, before it closes the file.
func (x *Index) closeLog() error {
	w := x.wlog
	if w == nil {
		return nil
	}
	w.closeOnce.Do(func() { w.closeErr = x.stopLog() })
	return w.closeErr
}

func (x *Index) stopLog() error {
	w := x.wlog
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.mu.Unlock()
	x.pend.close() // the committer logs what it holds without waiting for room
	<-w.commDone
	close(w.stop)
	<-w.applyDone
	w.closing = true // no spare segment: the log is removed next
	err := w.apply()
	if err == nil {
		return w.j.Destroy()
	}
	w.j.Close()
	return err
}
