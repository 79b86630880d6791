// Package eval measures near-duplicate detection: an exact similarity join
// that gives the ground truth of a corpus, planted edits that make pairs of
// known similarity, precision, recall and F1 per similarity bin, and the
// recall of fingerprints and MinHash bands by Hamming distance on a sample
// of documents and edited copies of them (MeasureRecall). The simidx bench
// command and the bench/ harness are built on it.
package eval
