package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Journal is an open journal directory. Its methods are safe for
// concurrent use; appends are serialized.
type Journal struct {
	// NoSync skips the fdatasync of appends: faster, and a machine crash
	// may lose appended records, or leave pages of the segments written
	// in any order, which Replay may then report as damage. Set it before
	// the first Append.
	NoSync bool

	dir string

	mu         sync.Mutex
	cur        *os.File // the segment appended to, nil until the first append
	curSeq     uint64
	curSize    int64
	curRecords int
	curSalt    uint32   // the current segment's salt
	curPrev    int64    // the end of the segment sealed before the current one, 0 if unknown
	curPrevSeq uint64   // that segment's number
	spare      *os.File // a prepared empty segment, or nil
	spareSeq   uint64
	spareSalt  uint32
	spareStart int64      // the offset of its first append
	preparing  bool       // a Prepare is creating the spare
	prepared   *sync.Cond // signalled when it is done, with mu
	sealedEnd  int64      // the end of the last segment sealed, 0 if none since Open
	sealedSeq  uint64     // its number
	nextSeq    uint64     // number of the next segment created
	sealed     []uint64   // sealed segments not yet removed, oldest first
	failed     error      // set when an append could not be undone
	buf        []byte
}

// Bounds of the zeros written ahead in a new segment. Appends that
// overwrite them need no change of the file's size or blocks, so their
// fdatasync flushes the data alone, without a commit of the file system's
// own journal. Appends past the zeros extend the file.
const (
	minPrealloc = 256 << 10
	maxPrealloc = 64 << 20
)

// zerosFor returns the zeros written ahead in a segment that follows one
// of size bytes (0: none).
func zerosFor(size int64) int64 { return min(max(2*size, minPrealloc), maxPrealloc) }

// zeros is a buffer of zero bytes written ahead in new segments.
var zeros [64 << 10]byte

const segmentExt = ".log"

// segmentName returns the file name of segment seq.
func segmentName(seq uint64) string { return fmt.Sprintf("%016x%s", seq, segmentExt) }

// Open opens the journal directory dir, creating it if it does not exist.
// The segments found are sealed: Replay reads them (and drops a torn
// tail, which it must do before new appends follow), Remove deletes them.
// It costs a directory listing, and an fsync of the parent directory when
// dir is created.
func Open(dir string) (*Journal, error) {
	created := false
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, err
		}
		created = true
	}
	seqs, err := segments(dir)
	if err != nil {
		return nil, err
	}
	if created {
		if err := syncDir(filepath.Dir(dir)); err != nil {
			return nil, err
		}
	}
	j := &Journal{dir: dir, sealed: seqs, nextSeq: 1}
	j.prepared = sync.NewCond(&j.mu)
	if len(seqs) > 0 {
		j.nextSeq = seqs[len(seqs)-1] + 1
	}
	return j, nil
}

// Dir returns the journal's directory.
func (j *Journal) Dir() string { return j.dir }

// segments lists the segment numbers in dir, ascending.
func segments(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var seqs []uint64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), segmentExt)
		if !ok || len(name) != 16 {
			continue
		}
		seq, err := strconv.ParseUint(name, 16, 64)
		if err != nil {
			continue
		}
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	return seqs, nil
}

// Replay calls fn with every record of the segments sealed at Open, in the
// order they were appended, and returns how many there were. A torn tail
// (a bad last append in the last segment that holds records, as a crash
// in the middle of an append leaves) is dropped and truncated away. Any
// other damage is an error wrapping ErrCorrupt, and fn is not called. It
// costs a read of every segment.
func (j *Journal) Replay(fn func(Record) error) (int, error) {
	j.mu.Lock()
	seqs := slices.Clone(j.sealed)
	j.mu.Unlock()
	return replay(j.dir, seqs, true, fn)
}

// Count returns the number of records in the journal directory dir without
// changing it, 0 if dir does not exist; a torn tail is not counted. It
// costs a read of every segment.
func Count(dir string) (int, error) {
	seqs, err := segments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return replay(dir, seqs, false, func(Record) error { return nil })
}

// Read calls fn with every record in the journal directory dir, in the
// order they were appended, without changing it (a torn tail is left out),
// and returns how many there were; 0 if dir does not exist. Damage other
// than a torn tail is an error wrapping ErrCorrupt, and fn is not called.
// It costs a read of every segment.
func Read(dir string, fn func(Record) error) (int, error) {
	seqs, err := segments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return replay(dir, seqs, false, fn)
}

// parsed is what replay read of a segment.
type parsed struct {
	recs     []Record
	good     int64 // end of the last good record or batch
	size     int64
	err      error // the first bad record or batch
	zeroTail bool  // zeros follow the last good batch
	// unborn: the segment's header was cut off or never written, as
	// a crash while Prepare creates a spare leaves it.
	unborn bool
	// firstPrev is the segment sealed before, as the segment's first
	// batch recorded it when it was appended (zero: unknown, or version 1).
	firstPrev prevSegment
	// created is the segment's size when it was created (version 3; 0:
	// unknown).
	created int64
}

// replay reads the segments seqs of dir; fix says to truncate a torn tail.
func replay(dir string, seqs []uint64, fix bool, fn func(Record) error) (int, error) {
	all := make([]parsed, len(seqs))
	for i, seq := range seqs {
		b, err := os.ReadFile(filepath.Join(dir, segmentName(seq)))
		if err != nil {
			return 0, err
		}
		p := &all[i]
		p.size = int64(len(b))
		if len(b) < headerSize {
			// A segment whose creation was cut off by a crash.
			p.good = 0
			if len(b) > 0 {
				p.err = fmt.Errorf("%w: segment %s: header cut off", ErrCorrupt, segmentName(seq))
				p.unborn = true
			}
			continue
		}
		if err := checkHeader(b); err != nil {
			if allZero(b) {
				// A segment whose size reached the disk before its
				// header did: as good as cut off.
				p.good, p.err = 0, fmt.Errorf("%w: segment %s: header never written", ErrCorrupt, segmentName(seq))
				p.unborn = true
				continue
			}
			return 0, fmt.Errorf("segment %s: %w", segmentName(seq), err)
		}
		var off int
		if segmentVersion(b) == 1 {
			off, err = p1(b, seq, p)
		} else {
			off, err = p2(b, seq, p)
		}
		if err != nil {
			return 0, err
		}
		p.good = int64(off)
	}
	// Damage is a torn tail only in the last segment that holds records
	// (or damage). Segments whose header never made it to the disk come
	// after it: a spare is synced before any append reaches it, so a crash
	// can leave one unborn spare after a torn append, which is not damage
	// of the torn segment's.
	last := -1
	for i := range all {
		if len(all[i].recs) > 0 || all[i].err != nil && !all[i].unborn {
			last = i
		}
	}
	// A segment's first batch records where the segment before ended: a
	// sealed segment read back shorter lost acknowledged appends at its
	// end (zeros there would pass for its clean end).
	// Segments that hold nothing (a spare never used, one whose creation
	// failed and whose removal did not reach the disk) are no link of the
	// chain: the segment before is the nearest that holds something.
	pred := -1
	for i := range all {
		p := &all[i]
		if len(p.recs) == 0 && p.err == nil {
			continue
		}
		prev := p.firstPrev
		switch {
		case prev.seq == 0 || pred < 0:
		case seqs[pred] != prev.seq:
			what := "which is missing"
			if prev.seq <= seqs[pred] || prev.seq >= seqs[i] {
				what = "out of order"
			}
			return 0, fmt.Errorf("%w: segment %s follows segment %s, but says it follows segment %s, %s",
				ErrCorrupt, segmentName(seqs[i]), segmentName(seqs[pred]), segmentName(prev.seq), what)
		case all[pred].good != prev.end:
			return 0, fmt.Errorf("%w: segment %s ends at byte %d, but segment %s says it ended at byte %d: appends at its end are lost",
				ErrCorrupt, segmentName(seqs[pred]), all[pred].good, segmentName(seqs[i]), prev.end)
		}
		pred = i
	}
	// A segment never gets shorter than it was created (appends overwrite
	// its zeros, or extend it): one found shorter was cut, and the appends
	// past the cut are lost, however its end looks. Only the newest
	// segment may be short with nothing but zeros after its first batch:
	// a crash while it was being created.
	for i := range all {
		p := &all[i]
		if p.created > 0 && p.size < p.created && !(i == len(all)-1 && len(p.recs) == 0 && p.err == nil) {
			return 0, fmt.Errorf("%w: segment %s is %d bytes, shorter than the %d it was created with: cut off after byte %d, "+
				"the appends that followed are lost", ErrCorrupt, segmentName(seqs[i]), p.size, p.created, p.good)
		}
	}
	// A segment whose header never reached the disk can only be the
	// newest (segments are created one after the other, each synced):
	// another one was cut.
	for i := range all {
		if p := &all[i]; p.err != nil && i != last && !(p.unborn && i == len(all)-1) {
			return 0, p.err
		}
	}
	count := 0
	for i := range all {
		p := &all[i]
		for _, r := range p.recs {
			if err := fn(r); err != nil {
				return count, err
			}
			count++
		}
		// A segment found on opening is never appended to again, so
		// zeros after its records can stay.
		if fix && p.good < p.size && !p.zeroTail {
			name := filepath.Join(dir, segmentName(seqs[i]))
			var err error
			if p.created > 0 {
				// Zeros keep the size it was created with.
				err = zeroFrom(name, p.good, p.size)
			} else {
				err = truncate(name, p.good)
			}
			if err != nil {
				return count, err
			}
		}
	}
	return count, nil
}

// p1 reads the records of the version 1 segment b (seq) into p.recs and
// returns the end of the last good one; p.err is set to a bad record at
// that end. A bad record followed by a good one is an error: damage, not
// an append cut off by a crash, which ends the segment; dropping what
// follows would lose acknowledged operations.
func p1(b []byte, seq uint64, p *parsed) (int, error) {
	off := headerSize
	for off < len(b) {
		r, n, err := DecodeRecord(b[off:])
		if err != nil {
			p.err = fmt.Errorf("segment %s at byte %d: %w", segmentName(seq), off, err)
			if at := nextFrame(b, off+1); at >= 0 {
				return 0, fmt.Errorf("%w: segment %s: a bad record at byte %d is followed by a good one at byte %d",
					ErrCorrupt, segmentName(seq), off, at)
			}
			break
		}
		p.recs = append(p.recs, r)
		off += n
	}
	return off, nil
}

// p2 reads the batches of the version 2 segment b (seq) into p.recs and
// returns the end of the last good one. Zeros after it are the segment's
// clean end (p.zeroTail); anything else there sets p.err, and is an error
// if a good batch follows it. A torn append leaves one bad batch, whose
// surviving pages, in any order, hold no batch that checks at its offset
// under the segment's salt: a batch a client wrote into a text checks with
// a chance of 2^-32 (it would have to guess the salt).
func p2(b []byte, seq uint64, p *parsed) (int, error) {
	salt := segmentSalt(b)
	off := headerSize
	for off < len(b) {
		pos := batchPos{salt, int64(off)}
		rs, prev, n, err := decodeBatch(b[off:], pos)
		if err == nil {
			if off == headerSize && len(rs) == 1 && rs[0].Op == opCreated {
				p.created = int64(binary.LittleEndian.Uint64(rs[0].Text))
				off += n
				continue
			}
			if len(p.recs) == 0 {
				p.firstPrev = prev
			}
			for _, r := range rs {
				if r.Op == opCreated {
					return 0, fmt.Errorf("%w: segment %s at byte %d: a segment record after the first batch", ErrCorrupt, segmentName(seq), off)
				}
			}
			p.recs = append(p.recs, rs...)
			off += n
			continue
		}
		if errors.Is(err, errMalformed) {
			return 0, fmt.Errorf("segment %s at byte %d: %w", segmentName(seq), off, err)
		}
		if allZero(b[off:]) {
			p.zeroTail = true
			break
		}
		p.err = fmt.Errorf("segment %s at byte %d: %w", segmentName(seq), off, err)
		from := off + 1
		if n, ok := batchHeader(b[off:], pos); ok && int64(len(b)-off-batchHeaderSize) >= int64(n) {
			from = off + batchHeaderSize + int(n) // its own payload holds no batch
		}
		if at := nextBatch(b, from, salt); at >= 0 {
			return 0, fmt.Errorf("%w: segment %s: a bad append at byte %d is followed by a good one at byte %d",
				ErrCorrupt, segmentName(seq), off, at)
		}
		break
	}
	return off, nil
}

// nextBatch returns the offset of the first good batch of a segment with
// salt in b at or after from, or -1. It searches for the batch magic and
// checks the header's own checksum before the payload's: about a pass over
// b.
func nextBatch(b []byte, from int, salt uint32) int {
	for from < len(b) {
		i := bytes.Index(b[from:], batchMagic[:])
		if i < 0 {
			return -1
		}
		at := from + i
		if _, _, _, err := decodeBatch(b[at:], batchPos{salt, int64(at)}); err == nil {
			return at
		}
		from = at + 1
	}
	return -1
}

// nextFrame returns the offset of the first good record in b at or after
// from, or -1. It costs a decode attempt per byte.
func nextFrame(b []byte, from int) int {
	for at := from; at < len(b); at++ {
		if _, _, err := DecodeRecord(b[at:]); err == nil {
			return at
		}
	}
	return -1
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// zeroFrom overwrites the bytes of the file name from `from` up to `to`
// with zeros and syncs it.
func zeroFrom(name string, from, to int64) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for off := from; off < to; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), to-off)], off); err != nil {
			return err
		}
	}
	return datasync(f)
}

// truncate cuts the file name at size and syncs it. A file cut below its
// header gets a fresh header.
func truncate(name string, size int64) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if size < headerSize {
		size = 0
	}
	if err := f.Truncate(size); err != nil {
		return err
	}
	if size == 0 {
		if _, err := f.WriteAt(header(rand.Uint32()), 0); err != nil {
			return err
		}
	}
	return datasync(f)
}

// create makes a new empty segment with prealloc zero bytes after its
// header, synced along with the directory.
func (j *Journal) create(seq uint64, prealloc int64) (*os.File, uint32, int64, error) {
	name := filepath.Join(j.dir, segmentName(seq))
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, 0, 0, err
	}
	salt := rand.Uint32()
	// The header, then the batch of the segment's size, then the zeros
	// (the batch's own length does not depend on the size it records).
	created := createdBatch(salt, 0)
	created = createdBatch(salt, int64(len(created))+prealloc)
	_, err = f.Write(created)
	for off := int64(0); err == nil && off < prealloc; off += int64(len(zeros)) {
		_, err = f.Write(zeros[:min(int64(len(zeros)), prealloc-off)])
	}
	if err == nil {
		err = datasync(f)
	}
	if err == nil {
		err = syncDir(j.dir)
	}
	if err != nil {
		f.Close()
		os.Remove(name)
		return nil, 0, 0, err
	}
	return f, salt, int64(len(created)), nil
}

// createdBatch returns the header of a segment with salt followed by its
// first batch, which records the segment's size at creation.
func createdBatch(salt uint32, size int64) []byte {
	b, err := appendBatch(header(salt), []Record{{Op: opCreated, Text: binary.LittleEndian.AppendUint64(nil, uint64(size))}},
		batchPos{salt, headerSize}, prevSegment{})
	if err != nil {
		panic(err) // one record of 8 bytes
	}
	return b
}

// Prepare creates the segment the next Rotate switches to, so that Rotate
// itself does no I/O. It costs a file creation, the writing of zeros ahead
// of the appends (twice the size of the current segment, or else of the
// last one sealed, from 256 KiB to 64 MiB) and two fsyncs, and holds no
// lock while doing them.
func (j *Journal) Prepare() error {
	j.mu.Lock()
	if j.spare != nil || j.failed != nil || j.preparing {
		j.mu.Unlock()
		return j.failed
	}
	// The spare follows the current segment, which is most often about
	// to be sealed: size its zeros by it, or else by the last one sealed.
	seq, prealloc := j.nextSeq, zerosFor(j.sealedEnd)
	if j.cur != nil && j.curRecords > 0 {
		prealloc = zerosFor(j.curSize)
	}
	j.nextSeq++
	// An append that needs a segment meanwhile waits for this one, so
	// that segments are used in the order of their numbers.
	j.preparing = true
	j.mu.Unlock()
	f, salt, start, err := j.create(seq, prealloc)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.preparing = false
	j.prepared.Broadcast()
	if err != nil {
		return err
	}
	if j.failed != nil { // an append failed meanwhile: the segment is not needed
		f.Close()
		os.Remove(f.Name())
		return j.failed
	}
	j.spare, j.spareSeq, j.spareSalt, j.spareStart = f, seq, salt, start
	return nil
}

// Append writes recs at the end of the current segment as one batch, in
// one write, and fdatasyncs it: when it returns nil the records are
// durable. On an error nothing of recs is kept; if that cannot be ensured,
// the journal fails every later append. It costs the write and one
// fdatasync (plus a segment creation when there is no current segment and
// none prepared); no records cost nothing.
func (j *Journal) Append(recs []Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failed != nil {
		return j.failed
	}
	if len(recs) == 0 {
		return nil
	}
	if j.cur == nil {
		if err := j.switchLocked(); err != nil {
			return err
		}
	}
	var prev prevSegment // in the segment's first batch, the one sealed before
	if j.curRecords == 0 {
		prev = prevSegment{j.curPrevSeq, j.curPrev}
	}
	var err error
	if j.buf, err = appendBatch(j.buf[:0], recs, batchPos{j.curSalt, j.curSize}, prev); err != nil {
		j.buf = nil
		return fmt.Errorf("journal append: %w", err)
	}
	n, err := j.cur.WriteAt(j.buf, j.curSize)
	if err == nil && !j.NoSync {
		err = datasync(j.cur)
	}
	if err != nil {
		// After a failed write or fdatasync the file's state is unknown:
		// cut the partial records off if possible, and append no more.
		j.cur.Truncate(j.curSize)
		j.failed = fmt.Errorf("%w: an append failed: %v", ErrClosed, err)
		return fmt.Errorf("journal append: %w", err)
	}
	j.curSize += int64(n)
	j.curRecords += len(recs)
	if cap(j.buf) > 1<<20 {
		j.buf = nil
	}
	return nil
}

// switchLocked makes the prepared segment, or a new one, current.
func (j *Journal) switchLocked() error {
	for j.preparing {
		j.prepared.Wait()
	}
	if j.failed != nil {
		return j.failed
	}
	if j.cur != nil {
		return nil // another append switched while this one waited
	}
	if j.spare == nil {
		// On the path of an append: the fewest zeros.
		f, salt, start, err := j.create(j.nextSeq, minPrealloc)
		if err != nil {
			return err
		}
		j.spare, j.spareSeq, j.spareSalt, j.spareStart = f, j.nextSeq, salt, start
		j.nextSeq++
	}
	j.cur, j.curSeq, j.curSize, j.curRecords = j.spare, j.spareSeq, j.spareStart, 0
	j.curSalt, j.curPrevSeq, j.curPrev = j.spareSalt, j.sealedSeq, j.sealedEnd
	j.spare = nil
	return nil
}

// Rotate seals the current segment if it holds records: later appends go
// to another segment. It returns the newest sealed segment (0 if none) and
// the number of records it sealed. It does no I/O beyond closing a file.
func (j *Journal) Rotate() (sealed uint64, records int, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failed != nil {
		return 0, 0, j.failed
	}
	if j.cur != nil && j.curRecords > 0 {
		records = j.curRecords
		j.sealedEnd, j.sealedSeq = j.curSize, j.curSeq
		err = j.cur.Close()
		j.sealed = append(j.sealed, j.curSeq)
		j.cur = nil
	}
	if len(j.sealed) > 0 {
		sealed = j.sealed[len(j.sealed)-1]
	}
	return sealed, records, err
}

// Remove deletes the sealed segments up to and including upto, oldest
// first, syncing the directory after each so that a crash never leaves an
// older segment without a newer one. Call it once their records are
// durably in the index. It costs a file removal and a directory fsync per
// segment.
func (j *Journal) Remove(upto uint64) error {
	for {
		j.mu.Lock()
		if len(j.sealed) == 0 || j.sealed[0] > upto {
			j.mu.Unlock()
			return nil
		}
		seq := j.sealed[0]
		j.mu.Unlock()
		if err := os.Remove(filepath.Join(j.dir, segmentName(seq))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := syncDir(j.dir); err != nil {
			return err
		}
		j.mu.Lock()
		j.sealed = j.sealed[1:]
		j.mu.Unlock()
	}
}

// Close closes the journal's files, leaving its segments in place. Use
// Destroy once every record is in the index.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	// A Prepare in flight finishes first: its file is then closed here,
	// and it cannot remove a file of the directory after Close returns.
	for j.preparing {
		j.prepared.Wait()
	}
	var err error
	if j.cur != nil {
		err = j.cur.Close()
		j.cur = nil
	}
	if j.spare != nil {
		j.spare.Close()
		j.spare = nil
	}
	if j.failed == nil {
		j.failed = ErrClosed
	}
	return err
}

// Destroy closes the journal and removes its directory with every segment:
// call it when all the records are durably in the index. Segments are
// removed oldest first, each removal synced, so that a crash never leaves
// an older segment without the newer ones (whose operations replace its
// own). It costs a file removal and a directory fsync per segment.
func (j *Journal) Destroy() error {
	cerr := j.Close()
	seqs, err := segments(j.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, seq := range seqs {
		if err := os.Remove(filepath.Join(j.dir, segmentName(seq))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := syncDir(j.dir); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(j.dir); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(j.dir)); err != nil {
		return err
	}
	return cerr
}

// syncDir fsyncs the directory dir, making file creations and removals in
// it durable.
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
