package index

// TextHash returns the hash of the canonical text of text: its units (see
// shingle.Tokenizer.AppendUnits) combined in order, the key by which an
// index finds exact copies (Match.Exact, Pair.Exact). Two texts with the
// same canonical text have the same hash, and two with different ones
// have different hashes but with a probability of 2^-64. Every text
// without units has the same hash, and matches nothing in an index. Cost:
// that of Analyze, O(len(text)).
func (f *Fingerprinter) TextHash(text []byte) uint64 { return f.a.analyze(text).exact }

// AnalyzeText returns, from one analysis of text, what Analyze, TextHash
// and Short return: the fingerprint, the canonical-text hash, and with the
// MinHash layer the signature, the short set and the band hashes, valid
// until the next call. For computing an index's records outside an index
// (a distributed dedup) at the cost of one analysis, O(len(text)).
func (f *Fingerprinter) AnalyzeText(text []byte) (fp, exact uint64, sig, short, bands []uint64) {
	r := f.a.analyze(text)
	return r.fp, r.exact, r.sig, r.short, r.bands
}
