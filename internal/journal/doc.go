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
// little-endian uint32 format version (1) and four zero bytes. Records
// follow, each framed as
//
//	uint32 little-endian  payload length
//	uint32 little-endian  CRC-32C (Castagnoli) of the payload
//	payload: op byte (1 add, 2 delete), uvarint ID length, ID, text
//
// A crash in the middle of an append leaves a torn tail: a partial or
// corrupt last record in the newest segment holding records. Replay drops
// it and truncates the segment there. Newer segments whose header never
// reached the disk (a crash while the next segment was being created) are
// ignored. A bad record anywhere else is corruption: Replay fails with an
// error wrapping ErrCorrupt.
package journal
