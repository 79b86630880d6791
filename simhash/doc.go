// Package simhash computes 64-bit Charikar fingerprints (simhashes) of
// weighted features and of text, and compares them by Hamming distance.
//
// A simhash sums, for each of the 64 bit positions, +w for every feature
// whose hash has that bit set and -w for every feature whose hash has it
// clear, and sets the bits whose sum is positive. Documents that share most
// of their features get fingerprints that differ in few bits, so near
// duplicates are fingerprints within a small [Distance] (typically 3 of 64).
//
// [Accumulator] takes any stream of (64-bit feature hash, weight), so callers
// may bring their own features. [Hasher] fingerprints text with the features
// of package shingle. Both reuse their state and allocate nothing per
// document.
//
// Fingerprints are persisted by simidx indexes; golden files in testdata/ pin
// them.
package simhash

import "math/bits"

// Distance returns the Hamming distance between two fingerprints: the number
// of bits in which they differ, 0 to 64. It is one popcount instruction.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }
