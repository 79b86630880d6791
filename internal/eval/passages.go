package eval

import "github.com/simidx/simidx/shingle"

// SharedPassages returns the longest passages that the texts whose words
// are wa and wb share (words as [shingle.Tokenizer.AppendWords] returns
// them, with their byte offsets in their texts), at most n of them (all
// when n < 0), longest first: runs of consecutive canonical words found in
// both, each as long as it can be (see [shingle.Passages]). CompareTexts
// finds its passages so; a caller that compares one text with many
// tokenizes it once. Cost: shingle.Passages over the word hashes.
func SharedPassages(wa, wb []shingle.Word, n int) []Passage {
	var out []Passage
	for _, p := range shingle.Passages(wordHashes(wa), wordHashes(wb), n) {
		pa, pb := wa[p.A:p.A+p.Words], wb[p.B:p.B+p.Words]
		out = append(out, Passage{
			AStart: pa[0].Start, AEnd: pa[len(pa)-1].End,
			BStart: pb[0].Start, BEnd: pb[len(pb)-1].End,
			Words: p.Words,
		})
	}
	return out
}

func wordHashes(ws []shingle.Word) []uint64 {
	hs := make([]uint64, len(ws))
	for i, w := range ws {
		hs[i] = w.Hash
	}
	return hs
}
