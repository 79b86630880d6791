// Package eval measures near-duplicate detection: an exact similarity join
// that gives the ground truth of a corpus, planted edits that make pairs of
// known similarity, and precision, recall and F1 per similarity bin. The
// simidx bench command and the bench/ harness are built on it.
package eval
