package eval

import (
	"context"
	"iter"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// MaxK is the largest Hamming distance a RecallRow reports the share of
// pairs within.
const MaxK = 12

// Sample returns a uniform sample of up to n documents of docs with at
// least minShingles shingles under f (reservoir sampling: one pass, n
// documents in memory). It stops at the first error of docs.
func Sample(docs iter.Seq2[index.Doc, error], f *index.Fingerprinter, rng *rand.Rand, n, minShingles int) []index.Doc {
	r := Reservoir{N: n}
	for d, err := range docs {
		if err != nil {
			break
		}
		if len(f.Shingles(d.Text)) < minShingles {
			continue
		}
		r.Offer(d, rng)
	}
	return r.Docs
}

// Reservoir is a uniform sample of up to N of the documents offered to it
// (reservoir sampling: one pass, N documents in memory).
type Reservoir struct {
	N    int
	Docs []index.Doc // the sample
	Seen int         // the documents offered
}

// Offer offers d to the sample, drawing from rng once the sample is full.
func (r *Reservoir) Offer(d index.Doc, rng *rand.Rand) {
	r.Seen++
	switch {
	case len(r.Docs) < r.N:
		r.Docs = append(r.Docs, d)
	default:
		if j := rng.IntN(r.Seen); j < r.N {
			r.Docs[j] = d
		}
	}
}

// Measured is one measured pair: a document and an edited copy of it (or
// two unrelated documents, Edit -1).
type Measured struct {
	Edit     Edit
	Rate     float64
	Jaccard  float64 // of the shingle sets
	Distance int     // between the fingerprints
	Band     bool    // shares a MinHash band
	Found    bool    // reported by a default query (with MinHash)
}

// Recall holds every measured pair of MeasureRecall.
type Recall struct {
	MinHash   bool // the settings have the MinHash layer
	Planted   []Measured
	Unrelated []Measured
}

// MeasureRecall plants each edit of kinds at each of rates in each of
// docs and measures each document against its edited copy under f (Found:
// within f's k or sharing a band, and an estimate of at least minSim; with
// minSim 0, within k), then up to unrelated pairs of different documents
// of docs whose Jaccard similarity is below 0.3. It returns what it measured so far when ctx is
// done. The same rng state gives the same figures. Cost: an analysis of
// each document and of each edited copy, O(len(docs) × edits × rates).
func MeasureRecall(ctx context.Context, f *index.Fingerprinter, docs []index.Doc, kinds []Edit, rates []float64, minSim float64, unrelated int, rng *rand.Rand) *Recall {
	type prepared struct {
		set   []uint64
		fp    uint64
		sig   []uint64
		bands []uint64
		short []uint64
	}
	prep := func(text []byte) prepared {
		set := slices.Clone(f.Shingles(text))
		fp, _, sig, short, bands := f.AnalyzeText(text)
		return prepared{set, fp, slices.Clone(sig), slices.Clone(bands), slices.Clone(short)}
	}
	st := f.Settings()
	k := max(st.MaxDistance, 0) // ZeroDistance is 0
	res := &Recall{}
	base := make([]prepared, len(docs))
	for i, d := range docs {
		base[i] = prep(d.Text)
		res.MinHash = base[i].bands != nil
	}
	compare := func(a, b prepared, ed Edit, rate float64) Measured {
		p := Measured{
			Edit: ed, Rate: rate,
			Jaccard:  shingle.Jaccard(a.set, b.set),
			Distance: bits.OnesCount64(a.fp ^ b.fp),
			Band:     shingle.SharedBands(a.bands, b.bands) > 0,
		}
		switch {
		case a.sig != nil && minSim > 0:
			// The rule of a default query (index.QueryOptions).
			cand := p.Distance <= k || shingle.SharedBands(a.bands, b.bands) >= max(st.MinBands, 1)
			sim, _ := index.TextSimilarity(a.sig, a.short, b.sig, b.short)
			p.Found = cand && sim >= minSim
		case a.sig != nil:
			p.Found = p.Distance <= k // no threshold: the fingerprint rule alone
		}
		return p
	}
	for i, d := range docs {
		if ctx.Err() != nil {
			return res
		}
		for _, ed := range kinds {
			for _, rate := range rates {
				edited := Apply(rng, string(d.Text), ed, rate)
				res.Planted = append(res.Planted, compare(base[i], prep([]byte(edited)), ed, rate))
			}
		}
	}
	for range unrelated * 4 {
		if len(res.Unrelated) == unrelated || ctx.Err() != nil {
			break
		}
		i, j := rng.IntN(len(docs)), rng.IntN(len(docs))
		if i == j {
			continue
		}
		if p := compare(base[i], base[j], -1, 0); p.Jaccard < 0.3 {
			res.Unrelated = append(res.Unrelated, p)
		}
	}
	return res
}

// RecallRow sums up a group of measured pairs: a band of Jaccard
// similarity, an edit at a rate, or the unrelated pairs. It is a line of
// simidx bench --format jsonl.
type RecallRow struct {
	Group         string    `json:"group"`
	Edit          string    `json:"edit,omitempty"`
	Rate          float64   `json:"rate,omitempty"`
	JaccardLo     *float64  `json:"jaccard_lo,omitempty"`
	JaccardHi     *float64  `json:"jaccard_hi,omitempty"`
	Pairs         int       `json:"pairs"`
	MeanJaccard   float64   `json:"mean_jaccard"`
	DistanceP50   int       `json:"distance_p50"`
	DistanceP90   int       `json:"distance_p90"`
	WithinK       []float64 `json:"within_k"` // the share within k bits, for k from 0 to MaxK
	MinHashWithin *float64  `json:"minhash_found,omitempty"`
	QueryFound    *float64  `json:"query_found,omitempty"`
}

func summarize(group string, ps []Measured, minhash bool) RecallRow {
	row := RecallRow{Group: group, Pairs: len(ps), WithinK: make([]float64, MaxK+1)}
	if len(ps) == 0 {
		return row
	}
	ds := make([]int, len(ps))
	band, found := 0, 0
	for i, p := range ps {
		if p.Found {
			found++
		}
		ds[i] = p.Distance
		row.MeanJaccard += p.Jaccard / float64(len(ps))
		if p.Band {
			band++
		}
		for k := range row.WithinK {
			if p.Distance <= k {
				row.WithinK[k]++
			}
		}
	}
	for k := range row.WithinK {
		row.WithinK[k] /= float64(len(ps))
	}
	slices.Sort(ds)
	row.DistanceP50, row.DistanceP90 = ds[len(ds)/2], ds[len(ds)*9/10]
	if minhash {
		v := float64(band) / float64(len(ps))
		row.MinHashWithin = &v
		q := float64(found) / float64(len(ps))
		row.QueryFound = &q
	}
	return row
}

// Rows sums up r: a row per band of Jaccard similarity of the planted
// pairs (0.1 wide, the highest first, empty bands left out), with byEdit
// a row per edit and rate (in the order measured), and last the unrelated
// pairs.
func (r *Recall) Rows(byEdit bool) []RecallRow {
	var rows []RecallRow
	for _, b := range slices.Backward(Bins(0, 0.1)) {
		var ps []Measured
		for _, p := range r.Planted {
			if b.Contains(p.Jaccard) {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		row := summarize("jaccard "+b.String(), ps, r.MinHash)
		lo, hi := b.Lo, b.Hi
		row.JaccardLo, row.JaccardHi = &lo, &hi
		rows = append(rows, row)
	}
	if byEdit {
		type key struct {
			e Edit
			r float64
		}
		groups := map[key][]Measured{}
		var order []key
		for _, p := range r.Planted {
			k := key{p.Edit, p.Rate}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], p)
		}
		for _, k := range order {
			row := summarize("edit", groups[k], r.MinHash)
			row.Edit, row.Rate = k.e.String(), k.r
			rows = append(rows, row)
		}
	}
	rows = append(rows, summarize("unrelated", r.Unrelated, r.MinHash))
	return rows
}
