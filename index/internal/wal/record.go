package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// Op is the kind of a journaled operation.
type Op byte

const (
	// OpAdd adds a document, replacing any document with its ID.
	OpAdd Op = 1
	// OpDelete removes the document with the ID, if there is one.
	OpDelete Op = 2
	// OpFingerprint adds a document by its precomputed fingerprint,
	// replacing any document with its ID: Text holds the fingerprint, 8
	// bytes big-endian.
	OpFingerprint Op = 3
	// opCreated is the record of a segment's first batch (version 3),
	// written when the segment is created: Text holds the segment's size
	// then, 8 bytes little-endian. An append never shrinks a segment, so a
	// segment found shorter was cut. Replay passes it to no one.
	opCreated Op = 4
)

// Record is one journaled operation.
type Record struct {
	Op   Op
	ID   string
	Text []byte // OpAdd: the text; OpFingerprint: the fingerprint
}

// Errors of the journal. Errors returned wrap one of them.
var (
	// ErrCorrupt is a record or segment header that is damaged other than
	// by a torn append.
	ErrCorrupt = errors.New("journal: corrupt")
	// ErrVersion is a segment written in a newer format.
	ErrVersion = errors.New("journal: unknown format version")
	// ErrClosed is an operation on a closed or failed journal.
	ErrClosed = errors.New("journal: closed")
)

const (
	magic = "simidxJ\n"
	// version is the format written. Version 3 adds OpFingerprint to
	// version 2, which frames each append as a
	// batch, bound to its segment by a salt in the header, and segments
	// may end in zeros written ahead of the appends.
	version    = 3
	minVersion = 1 // the oldest format read
	headerSize = 16
	frameSize  = 8 // length and CRC
	// maxPayload bounds a record: an ID and a text of at most 16 MiB each,
	// with room to spare.
	maxPayload = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// batchMagic starts every batch of a version 2 segment.
var batchMagic = [4]byte{'S', 'J', 'B', 0xb7}

// batchHeaderSize is the size of a batch's frame: the magic, the payload's
// length and CRC-32C, the number and end of the segment sealed before (in
// a segment's first batch, else zeros), and the header's CRC-32C.
const batchHeaderSize = 32

// prevSegment is the segment sealed before a segment, as its first batch
// records it: its number and its end. The zero value is unknown.
type prevSegment struct {
	seq uint64
	end int64
}

// batchPos is what a batch's header checksum binds it to besides its own
// bytes: its segment's salt (random, in the segment header) and its offset
// in the segment. A batch copied into a document's text, or left on the
// disk by another segment, does not check where it lies.
type batchPos struct {
	salt uint32
	off  int64
}

// headerSum returns the checksum of batch header h (its first 28 bytes)
// at pos.
func headerSum(h []byte, pos batchPos) uint32 {
	var b [40]byte
	copy(b[:], h[:28])
	binary.LittleEndian.PutUint32(b[28:], pos.salt)
	binary.LittleEndian.PutUint64(b[32:], uint64(pos.off))
	return crc32.Checksum(b[:], castagnoli)
}

// batchHeader reports whether b starts with a batch header that checks at
// pos, and the length of its payload.
func batchHeader(b []byte, pos batchPos) (uint32, bool) {
	if len(b) < batchHeaderSize || [4]byte(b[:4]) != batchMagic || headerSum(b, pos) != binary.LittleEndian.Uint32(b[28:]) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[4:]), true
}

// errMalformed is a batch whose checksums hold but whose records do not
// decode: written so, not torn.
var errMalformed = errors.New("a batch with good checksums holds malformed records")

// appendBatch appends recs to b as one batch at pos, with prev the segment
// sealed before (zero if unknown or not the segment's first batch): the
// frame of a version 2 segment's append, which replay keeps or drops
// whole. Cost: O(size), the CRCs included.
func appendBatch(b []byte, recs []Record, pos batchPos, prev prevSegment) ([]byte, error) {
	if len(recs) == 0 {
		return b, errors.New("a batch of no records")
	}
	start := len(b)
	b = append(b, make([]byte, batchHeaderSize)...)
	for i := range recs {
		b = AppendRecord(b, &recs[i])
	}
	n := len(b) - start - batchHeaderSize
	if uint64(n) > math.MaxUint32 {
		return b[:start], fmt.Errorf("a batch of %d bytes, more than the 4 GiB of a journal append", n)
	}
	h := b[start : start+batchHeaderSize]
	copy(h, batchMagic[:])
	binary.LittleEndian.PutUint32(h[4:], uint32(n))
	binary.LittleEndian.PutUint32(h[8:], crc32.Checksum(b[start+batchHeaderSize:], castagnoli))
	binary.LittleEndian.PutUint64(h[12:], prev.seq)
	binary.LittleEndian.PutUint64(h[20:], uint64(prev.end))
	binary.LittleEndian.PutUint32(h[28:], headerSum(h, pos))
	return b, nil
}

// decodeBatch decodes the batch at the start of b, which lies at pos, and
// returns its records, the segment sealed before that it records, and its
// encoded size. A batch cut off by the end of b gives an error wrapping
// errShort; records that do not decode in a batch whose checksums hold,
// one wrapping errMalformed; any other damage one wrapping ErrCorrupt (all
// wrap ErrCorrupt). Cost: O(size), the CRCs included; a bad header costs
// O(1).
func decodeBatch(b []byte, pos batchPos) (recs []Record, prev prevSegment, size int, err error) {
	if len(b) < batchHeaderSize {
		return nil, prevSegment{}, 0, fmt.Errorf("%w: %w: %d bytes left, a batch header is %d", ErrCorrupt, errShort, len(b), batchHeaderSize)
	}
	h := b[:batchHeaderSize]
	n, ok := batchHeader(h, pos)
	if !ok {
		return nil, prevSegment{}, 0, fmt.Errorf("%w: bad batch header", ErrCorrupt)
	}
	if uint64(len(b)-batchHeaderSize) < uint64(n) {
		return nil, prevSegment{}, 0, fmt.Errorf("%w: %w: batch of %d bytes, %d left", ErrCorrupt, errShort, n, len(b)-batchHeaderSize)
	}
	p := b[batchHeaderSize : batchHeaderSize+int(n)]
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(h[8:]) {
		return nil, prevSegment{}, 0, fmt.Errorf("%w: batch checksum mismatch", ErrCorrupt)
	}
	for len(p) > 0 {
		r, size, err := DecodeRecord(p)
		if err != nil {
			return nil, prevSegment{}, 0, fmt.Errorf("%w: %w: %v", ErrCorrupt, errMalformed, err)
		}
		recs = append(recs, r)
		p = p[size:]
	}
	if len(recs) == 0 {
		return nil, prevSegment{}, 0, fmt.Errorf("%w: %w: no records", ErrCorrupt, errMalformed)
	}
	return recs, prevSegment{binary.LittleEndian.Uint64(h[12:]), int64(binary.LittleEndian.Uint64(h[20:]))}, batchHeaderSize + int(n), nil
}

// segmentVersion returns the format version of a segment whose header
// checkHeader accepted.
func segmentVersion(b []byte) uint32 { return binary.LittleEndian.Uint32(b[8:]) }

// header returns the header of a segment with salt in its last four
// bytes (version 2; zero in version 1).
func header(salt uint32) []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], version)
	binary.LittleEndian.PutUint32(b[12:], salt)
	return b
}

// segmentSalt returns the salt of a segment whose header checkHeader
// accepted.
func segmentSalt(b []byte) uint32 { return binary.LittleEndian.Uint32(b[12:]) }

// checkHeader reports whether b starts with a valid segment header.
func checkHeader(b []byte) error {
	if len(b) < headerSize || string(b[:8]) != magic {
		return fmt.Errorf("%w: not a journal segment (bad magic)", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v < minVersion || v > version {
		return fmt.Errorf("%w: version %d, this simidx reads versions %d to %d", ErrVersion, v, minVersion, version)
	}
	return nil
}

// AppendRecord appends the framed encoding of r to b. Cost: O(len(r.ID) +
// len(r.Text)).
func AppendRecord(b []byte, r *Record) []byte {
	var v [binary.MaxVarintLen64]byte
	n := 1 + binary.PutUvarint(v[:], uint64(len(r.ID))) + len(r.ID) + len(r.Text)
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = binary.LittleEndian.AppendUint32(b, 0)
	p := len(b)
	b = append(b, byte(r.Op))
	b = binary.AppendUvarint(b, uint64(len(r.ID)))
	b = append(b, r.ID...)
	b = append(b, r.Text...)
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(b[p:], castagnoli))
	return b
}

// errShort says a record is cut off by the end of the data.
var errShort = errors.New("record cut off")

// DecodeRecord decodes the first framed record of b and returns it and its
// encoded size. A record cut off by the end of b gives an error wrapping
// errShort (a torn tail when b is the end of a segment); a damaged one an
// error wrapping ErrCorrupt. The record's ID and Text are copied out of b.
// Cost: O(size), the CRC included.
func DecodeRecord(b []byte) (Record, int, error) {
	if len(b) < frameSize {
		return Record{}, 0, fmt.Errorf("%w: %w: %d bytes left, a frame is %d", ErrCorrupt, errShort, len(b), frameSize)
	}
	n := binary.LittleEndian.Uint32(b)
	sum := binary.LittleEndian.Uint32(b[4:])
	if n == 0 || n > maxPayload {
		return Record{}, 0, fmt.Errorf("%w: record length %d not in 1..%d", ErrCorrupt, n, maxPayload)
	}
	if uint64(len(b)-frameSize) < uint64(n) {
		return Record{}, 0, fmt.Errorf("%w: %w: length %d, %d bytes left", ErrCorrupt, errShort, n, len(b)-frameSize)
	}
	p := b[frameSize : frameSize+int(n)]
	if crc32.Checksum(p, castagnoli) != sum {
		return Record{}, 0, fmt.Errorf("%w: record checksum mismatch", ErrCorrupt)
	}
	op := Op(p[0])
	idLen, k := binary.Uvarint(p[1:])
	if k <= 0 || k != len(binary.AppendUvarint(nil, idLen)) || idLen > uint64(len(p)-1-k) {
		return Record{}, 0, fmt.Errorf("%w: bad ID length in record", ErrCorrupt)
	}
	rest := p[1+k:]
	r := Record{Op: op, ID: string(rest[:idLen])}
	switch op {
	case OpAdd:
		r.Text = append([]byte{}, rest[idLen:]...)
	case opCreated:
		if idLen != 0 || len(rest) != 8 {
			return Record{}, 0, fmt.Errorf("%w: segment record of %d bytes", ErrCorrupt, len(rest))
		}
		r.Text = append([]byte{}, rest...)
	case OpFingerprint:
		if len(rest)-int(idLen) != 8 {
			return Record{}, 0, fmt.Errorf("%w: fingerprint record of %d bytes", ErrCorrupt, len(rest)-int(idLen))
		}
		r.Text = append([]byte{}, rest[idLen:]...)
	case OpDelete:
		if len(rest) != int(idLen) {
			return Record{}, 0, fmt.Errorf("%w: delete record with text", ErrCorrupt)
		}
	default:
		return Record{}, 0, fmt.Errorf("%w: unknown operation %d", ErrCorrupt, op)
	}
	return r, frameSize + int(n), nil
}
