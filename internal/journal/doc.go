// Package journal is the write-ahead journal of simidx serve: an
// append-only log of the operations (add or replace a document, delete a
// document) acknowledged to clients but not yet committed to the index.
//
// A journal is a directory of segment files. Appends go to the newest
// segment, one write and one fdatasync per batch, so a batch is durable
// when Append returns. Rotate seals the newest segment and starts another;
// once the operations of the sealed segments are committed to the index,
// Remove deletes those segments. Replay reads every segment in order.
//
// A segment starts with a 16-byte header: the magic "simidxJ\n", a
// little-endian uint32 format version (2; version 1 is read too) and four
// zero bytes. Each append is one batch (version 2):
//
//	4 bytes               magic "SJB" 0xb7
//	uint32 little-endian  payload length
//	uint32 little-endian  CRC-32C (Castagnoli) of the payload
//	uint32 little-endian  CRC-32C of the 12 bytes before it
//	payload: one or more records
//
// and each record is framed as
//
//	uint32 little-endian  record payload length
//	uint32 little-endian  CRC-32C of the record payload
//	record payload: op byte (1 add, 2 delete), uvarint ID length, ID, text
//
// (A version 1 segment holds records with no batch around them.)
//
// A new segment is created with zeros after its header (twice the size of
// the segment before it, 256 KiB to 64 MiB), which appends overwrite: an
// fdatasync then flushes the data alone, with no change of the file's size
// to commit. Zeros after the last batch end a segment.
//
// A crash in the middle of an append leaves a torn tail: a bad last batch
// in the newest segment holding records, of which any pages may have
// reached the disk, in any order, before or among the zeros. Replay drops
// it and truncates the segment there. A bad batch followed by a good one
// is corruption, as is a bad batch in an older segment: Replay fails with
// an error wrapping ErrCorrupt. Newer segments whose header never reached
// the disk (a crash while the next segment was being created) are ignored.
// Zeros where a sealed segment's last batches should be read as its end:
// a lost write there goes unnoticed, as it would at the end of the newest
// segment.
package journal
