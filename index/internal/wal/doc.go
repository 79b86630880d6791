// Package wal is the write-ahead log of a simidx index: an
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
// little-endian uint32 format version (3; versions 1 and 2 are read too) and a
// little-endian uint32 salt, random for each segment (zero in version 1).
// Each append is one batch (versions 2 and 3):
//
//	4 bytes               magic "SJB" 0xb7
//	uint32 little-endian  payload length
//	uint32 little-endian  CRC-32C (Castagnoli) of the payload
//	uint64 little-endian  in a segment's first batch, the number of the
//	                      segment sealed before it (0 if unknown), else 0
//	uint64 little-endian  and that segment's end, else 0
//	uint32 little-endian  CRC-32C of the 28 bytes before it, the segment's
//	                      salt (uint32) and the batch's offset in the
//	                      segment (uint64)
//	payload: one or more records
//
// and each record is framed as
//
//	uint32 little-endian  record payload length
//	uint32 little-endian  CRC-32C of the record payload
//	record payload: op byte (1 add, 2 delete, 3 add by fingerprint, from
//	version 3), uvarint ID length, ID, text (for op 3 the fingerprint,
//	8 bytes big-endian)
//
// (A version 1 segment holds records with no batch around them.) The salt
// and the offset bind a batch to where it was written: a batch a client
// copies into a document's text, or one another segment left on the disk,
// does not check where it lies.
//
// A new segment is created with zeros after its header (twice the size of
// the segment before it, 256 KiB to 64 MiB), which appends overwrite: an
// fdatasync then flushes the data alone, with no change of the file's size
// to commit. Zeros after the last batch end a segment. From version 3, a
// segment's first batch, written with its header, holds one record of the
// segment's size at creation: appends never shorten a segment, so one
// found shorter was cut (a careless copy, a damaged disk) and Replay
// reports the damage instead of taking the cut for a torn tail. A torn
// tail is zeroed rather than cut off, to keep that size.
//
// A crash in the middle of an append leaves a torn tail: a bad last batch
// in the newest segment holding records, of which any pages may have
// reached the disk, in any order, before or among the zeros. Replay drops
// it and zeroes it (a version 1 or 2 segment is truncated there). A bad
// batch followed by a good one
// is corruption, as is a bad batch in an older segment, a batch whose
// checksums hold but whose records do not decode, and a sealed segment
// missing between two others, or ending elsewhere than where the next
// segment's first batch says it ended (when both were written since the
// same Open): Replay fails with an error wrapping ErrCorrupt, before it
// passes on any record. The newest segment may have no header (a crash
// while it was being created): it holds nothing, and Replay gives it a
// fresh header; an older one without is damage. Salvage reads what damage
// left: the records of every intact batch.
//
// A cut that leaves a segment no shorter than its size at creation (one
// that had grown past its zeros) cannot be told from a torn extension: its
// end is dropped as a torn tail.
package wal
