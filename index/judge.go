package index

import (
	"fmt"
	"math/bits"

	"github.com/simidx/simidx/shingle"
	bolt "go.etcd.io/bbolt"
)

// judgeHits returns the candidates hits of tx (in document order, each
// once) that match the probe pr under q, in that order, leaving out the
// probe's own document and the empty texts: it reads each one's record
// and, with q.verify, its stored shingle set, and applies judge. exactSet
// holds the exact copies of pr among them. docs is the docs bucket. Cost:
// a seek and a decoding of what the rule reads per candidate.
func (x *Index) judgeHits(tx *bolt.Tx, docs *bolt.Bucket, hits []hit, pr *probe, q queryParams, exactSet map[uint32]bool) ([]found, error) {
	// One cursor for every record: a bbolt Get makes a new cursor each time.
	dc := docs.Cursor()
	// The candidates' signatures are decoded into one buffer, on the
	// stack for the usual sizes.
	var sigBuf [128]uint64
	sig, set, short := sigBuf[:0], []uint64(nil), []uint64(nil)
	var cand []uint64 // a candidate's shingle set, with q.verify
	var shb *bolt.Bucket
	if q.verify && pr.text {
		shb = tx.Bucket(bucketShingles)
	}
	out := make([]found, 0, len(hits))
	for _, h := range hits {
		if int64(h.n) == pr.self {
			continue
		}
		v := seekRecord(dc, h.n)
		if len(v) < 9 {
			return nil, fmt.Errorf("%w: document %d in a table or posting has no record", ErrCorrupt, h.n)
		}
		if x.isEmpty(v) {
			continue
		}
		d := bits.OnesCount64(fpOf(v) ^ pr.fp)
		// Decode only what the rule reads.
		sig, set, short = sig[:0], set[:0], short[:0]
		switch {
		case x.lay.sets && pr.text:
			set = recordSet(set, v, x.lay)
		case !x.lay.sets && pr.sig != nil:
			sig = sigOf(sig, v, x.settings.MinHashK)
			if len(pr.short) > 0 {
				short = shortOf(short, v, x.lay)
			}
		}
		has := false
		if q.verify && pr.text {
			var err error
			if cand, has, err = storedShingles(shb, cand, h.n); err != nil {
				return nil, err
			}
		}
		m, ok := x.judge(q, q.fp, pr, d, sig, set, short, cand, has, exactSet[h.n])
		if !ok {
			continue
		}
		out = append(out, found{n: h.n, m: m, rec: v})
	}
	return out, nil
}

// judge applies the match rule of q to a candidate found for the probe pr
// (through the tables, the exact keys, the bands or the set postings) at
// distance d, whose signature, set and short set are sig, set and short
// (empty when it has none, or the rule does not read them), whose shingle
// set is shingles if hasShingles (read with q.verify only) and which is an
// exact copy of the probe's text if exact. fpRule says the fingerprint
// rule applies. It is the one rule of Query and matcher.
func (x *Index) judge(q queryParams, fpRule bool, pr *probe, d int, sig, set, short, shingles []uint64, hasShingles, exact bool) (Match, bool) {
	m := Match{Distance: d}
	keep := fpRule && d <= q.maxDist
	switch {
	case len(pr.short) > 0 && len(short) > 0:
		// Two short texts: their exact similarity, verified or not.
		m.Similarity, _ = textSimilarity(pr.sig, pr.short, sig, short)
		if q.minSim > 0 {
			keep = m.Similarity >= q.minSim
		}
	case q.verify && pr.text && hasShingles:
		m.Similarity = setJaccard(pr.shingles, shingles)
		if q.minSim > 0 {
			keep = m.Similarity >= q.minSim
		}
	case x.lay.sets:
		if pr.text {
			var ok bool
			m.Similarity, ok = x.setMatch(pr.set, set)
			keep = keep || ok
		}
		if exact {
			m.Similarity = 1
		}
		if q.minSim > 0 && m.Similarity < q.minSim {
			return m, false // the method's similarity is below the threshold
		}
	case pr.sig != nil:
		// A document added by fingerprint has no signature: it keeps the
		// fingerprint rule's answer.
		if sim, ok := textSimilarity(pr.sig, nil, sig, nil); ok {
			m.Similarity = sim
			if q.minSim > 0 {
				keep = m.Similarity >= q.minSim
			}
		}
	}
	m.Exact = exact
	return m, keep || exact
}

// setMatch returns the similarity of two sets under the index's set
// method, |a ∩ b| / min(|a|, |b|) (0 if either is empty), and whether they
// match by its rule.
func (x *Index) setMatch(a, b []uint64) (float64, bool) {
	if len(a) == 0 || len(b) == 0 {
		return 0, false
	}
	shared := shingle.Intersection(a, b)
	sim := float64(shared) / float64(min(len(a), len(b)))
	if x.settings.Text.Method == MethodShort {
		return sim, shared >= x.settings.Text.MinShared && sim >= x.settings.Text.Threshold
	}
	return sim, shared >= 1
}

// TextSimilarity returns the similarity that an index with MinHash gives
// two texts, from their signatures and short sets as a Fingerprinter
// computes them (Analyze, Short): the exact Jaccard similarity of the short
// sets when both texts have one, else the estimate from the signatures;
// false when either has no signature. Measurements outside the index
// apply the index's rule with it. Cost: as textSimilarity.
func TextSimilarity(sigA, shortA, sigB, shortB []uint64) (float64, bool) {
	return textSimilarity(sigA, shortA, sigB, shortB)
}

// textSimilarity returns the similarity of two texts of an index with
// MinHash, given their signatures and short sets (nil when a text has
// none): the exact Jaccard similarity of the short sets when both are
// short texts (Settings.ShortUnits), else the Jaccard similarity of their
// shingle sets estimated from the signatures; false when either has no
// signature (added by fingerprint). It is the one similarity of the
// MinHash layer: of Query, Pairs, Clusters and Compare. Cost: a merge of
// two sets of at most ShortUnits+1 hashes, or a pass over two signatures.
func textSimilarity(sigA, shortA, sigB, shortB []uint64) (float64, bool) {
	if len(shortA) > 0 && len(shortB) > 0 {
		return setJaccard(shortA, shortB), true
	}
	if len(sigA) == 0 || len(sigA) != len(sigB) {
		return 0, false
	}
	return estimateJaccard(sigA, sigB), true
}
