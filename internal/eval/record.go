package eval

// CompareRecord is a Comparison as `simidx compare --format jsonl` and the
// server's POST /v1/compare write it: the ratios truncated to 4 decimals
// (never rounded up), the similarity only with the MinHash layer, and each
// passage with its byte offsets and its text in A.
type CompareRecord struct {
	Jaccard      float64         `json:"jaccard"`
	ContainmentA float64         `json:"containment_a"`
	ContainmentB float64         `json:"containment_b"`
	Distance     int             `json:"distance"`
	Similarity   *float64        `json:"similarity,omitempty"`
	Exact        bool            `json:"exact"`
	Passages     []PassageRecord `json:"passages"`
}

// PassageRecord is a shared passage of a CompareRecord: bytes [AStart,
// AEnd) of A and [BStart, BEnd) of B hold the same Words canonical words;
// Text is A's.
type PassageRecord struct {
	AStart int    `json:"a_start"`
	AEnd   int    `json:"a_end"`
	BStart int    `json:"b_start"`
	BEnd   int    `json:"b_end"`
	Words  int    `json:"words"`
	Text   string `json:"text"`
}

// Record returns c, the comparison of the texts a[fromA:] and b[fromB:],
// as a CompareRecord whose offsets count in a and b: fromA and fromB are
// where the texts start in the bytes read (after a byte order mark, which
// the offsets then count). Passages is never nil.
func (c Comparison) Record(a, b []byte, fromA, fromB int) CompareRecord {
	r := CompareRecord{Distance: c.Distance, Exact: c.Exact, Passages: []PassageRecord{},
		Jaccard: c.Jaccard.Float4(), ContainmentA: c.ContainmentA.Float4(), ContainmentB: c.ContainmentB.Float4()}
	if c.MinHash {
		s := c.Similarity.Float4()
		r.Similarity = &s
	}
	for _, p := range c.Passages {
		rec := PassageRecord{AStart: fromA + p.AStart, AEnd: fromA + p.AEnd, BStart: fromB + p.BStart, BEnd: fromB + p.BEnd, Words: p.Words}
		rec.Text = string(a[rec.AStart:rec.AEnd])
		r.Passages = append(r.Passages, rec)
	}
	return r
}
