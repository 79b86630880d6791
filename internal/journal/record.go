package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Op is the kind of a journaled operation.
type Op byte

const (
	// OpAdd adds a document, replacing any document with its ID.
	OpAdd Op = 1
	// OpDelete removes the document with the ID, if there is one.
	OpDelete Op = 2
)

// Record is one journaled operation.
type Record struct {
	Op   Op
	ID   string
	Text []byte // OpAdd only
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
	magic      = "simidxJ\n"
	version    = 1
	headerSize = 16
	frameSize  = 8 // length and CRC
	// maxPayload bounds a record: an ID and a text of at most 16 MiB each,
	// with room to spare.
	maxPayload = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header returns the header of a segment.
func header() []byte {
	b := make([]byte, headerSize)
	copy(b, magic)
	binary.LittleEndian.PutUint32(b[8:], version)
	return b
}

// checkHeader reports whether b starts with a valid segment header.
func checkHeader(b []byte) error {
	if len(b) < headerSize || string(b[:8]) != magic {
		return fmt.Errorf("%w: not a journal segment (bad magic)", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != version {
		return fmt.Errorf("%w: version %d, this simidx reads version %d", ErrVersion, v, version)
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
	case OpDelete:
		if len(rest) != int(idLen) {
			return Record{}, 0, fmt.Errorf("%w: delete record with text", ErrCorrupt)
		}
	default:
		return Record{}, 0, fmt.Errorf("%w: unknown operation %d", ErrCorrupt, op)
	}
	return r, frameSize + int(n), nil
}
