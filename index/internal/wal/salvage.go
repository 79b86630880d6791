package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// SalvageStats say what Salvage read of a damaged journal.
type SalvageStats struct {
	Records  int   // records passed on
	Segments int   // segments read
	Damaged  int   // segments with damage: a bad header, bad batches between good ones, or cut short
	Dropped  int64 // bytes of damage skipped (not counting what a cut removed)
	Cut      int64 // bytes a cut removed from segments found shorter than they were created
}

// Salvage calls fn with the records of every intact batch (or record, in a
// version 1 segment) of the journal directory dir, in order, skipping the
// damage between them, without changing dir, and says what it skipped. It
// is for a journal Replay refuses: the operations of a damaged region are
// lost, those around it kept. It costs a read of every segment and a
// search for the next good batch after each bad one.
func Salvage(dir string, fn func(Record) error) (SalvageStats, error) {
	var st SalvageStats
	seqs, err := segments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	for _, seq := range seqs {
		b, err := os.ReadFile(filepath.Join(dir, segmentName(seq)))
		if err != nil {
			return st, err
		}
		st.Segments++
		damaged := false
		if len(b) < headerSize || checkHeader(b) != nil {
			if !allZero(b) {
				st.Dropped += int64(len(b))
				st.Damaged++
			}
			continue
		}
		off := headerSize
		if segmentVersion(b) == 1 {
			for off < len(b) {
				r, n, err := DecodeRecord(b[off:])
				if err == nil {
					if err := fn(r); err != nil {
						return st, err
					}
					st.Records++
					off += n
					continue
				}
				if allZero(b[off:]) {
					break
				}
				next := nextFrame(b, off+1)
				if next < 0 {
					next = len(b)
				}
				st.Dropped += int64(next - off)
				damaged, off = true, next
			}
		} else {
			salt := segmentSalt(b)
			for off < len(b) {
				rs, _, n, err := decodeBatch(b[off:], batchPos{salt, int64(off)})
				if err == nil {
					for _, r := range rs {
						if r.Op == opCreated {
							if created := int64(binary.LittleEndian.Uint64(r.Text)); int64(len(b)) < created {
								st.Cut += created - int64(len(b))
								damaged = true
							}
							continue
						}
						if err := fn(r); err != nil {
							return st, err
						}
						st.Records++
					}
					off += n
					continue
				}
				if allZero(b[off:]) {
					break
				}
				next := nextBatch(b, off+1, salt)
				if next < 0 {
					next = len(b)
				}
				st.Dropped += int64(next - off)
				damaged, off = true, next
			}
		}
		if damaged {
			st.Damaged++
		}
	}
	return st, nil
}

// String describes st for a person.
func (st SalvageStats) String() string {
	return fmt.Sprintf("%d records read from %d segments; %d damaged, %d bytes of damage skipped, %d bytes cut off", st.Records, st.Segments, st.Damaged, st.Dropped, st.Cut)
}
