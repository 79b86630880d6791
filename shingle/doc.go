// Package shingle turns text into canonical tokens, shingle hashes and MinHash
// signatures: the features from which simidx fingerprints and compares
// documents.
//
// # Pipeline
//
// A [Tokenizer] canonicalizes text and cuts it into units:
//
//  1. markup removal: HTML and XML tags are dropped with a real HTML
//     tokenizer, the content of script and style elements is dropped and
//     character entities are decoded;
//  2. Unicode NFKC normalization (full-width and compatibility forms fold to
//     their plain forms); invalid UTF-8 never panics and acts as a separator;
//  3. tokens by word boundaries: a token is a run of letters, marks and digits
//     (an apostrophe between letters is dropped and the word kept whole, a
//     '.' or ',' between digits is kept, as in 3.14); punctuation, symbols and
//     white space separate tokens and are dropped; scripts written without
//     spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) give one
//     token per character (or overlapping n-grams of Options.Gram
//     characters);
//  4. full Unicode case folding, with Cyrillic ё folded to е;
//  5. Han characters folded to one form of their traditional, simplified and
//     variant spellings (a table generated from Unicode's Unihan data), and
//     the words that Taiwan and mainland Chinese write differently folded
//     to the mainland word (a table generated from OpenCC's dictionary).
//
// Each step is an [Options] field whose zero value is the default. The units
// are words (tokens) by default, or characters with [Chars].
//
// Each unit is hashed once with XXH64; a shingle is a window of consecutive
// units whose hash combines the unit hashes ([AppendShingles]), so overlapping
// shingles never rehash text. [MinHasher] derives a K-value signature from
// the shingle hashes, and [Estimate] compares two signatures. [Jaccard],
// [Containment] and [Dice] compare exact shingle sets for verification.
//
// # Stability
//
// Every hash in this package is persisted by simidx indexes. The hash
// functions, the canonical form and the combination rules are pinned by
// golden files in testdata/: a change to any of them is a format change.
package shingle
