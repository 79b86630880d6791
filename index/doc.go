// Package index is a disk-backed near-duplicate index for text: it answers
// "which stored documents are within k bits of this 64-bit simhash
// fingerprint" with one bbolt lookup per permuted table, and finds every
// near-duplicate pair of a corpus by scanning the tables once. With a set
// method (MethodNshash, MethodShort) documents also have a set of hashes
// in roaring postings, matched by the method's rule (see QueryOptions).
//
// An index is one bbolt file. It holds, in buckets:
//
//   - meta: the schema version, the Settings (JSON) and counters;
//   - ids: external document ID -> document number (uint32);
//   - docs: document number -> the document's ID, fingerprint, canonical
//     text hash and, with MinHash, its signature, with a set method, its
//     set;
//   - exact: canonical text hash + document number, so that exact copies are
//     found whatever their fingerprints (also for empty or very short text);
//   - tables: the permuted tables (see Design), keyed by table number and
//     key prefix, each value a sorted, packed group of entries sharing
//     the prefix;
//   - bands (MinHash only): band hash -> roaring bitmap of document numbers;
//   - sets (set methods only): set hash -> roaring bitmap of document
//     numbers.
//
// Every write is one bbolt transaction, so a crash leaves each document
// completely present or absent. One process may open an index for writing
// (others wait Options.Timeout, then get ErrLocked); many processes may open
// it read-only together. An *Index is safe for concurrent use: any number of
// goroutines may query while one writes.
package index
