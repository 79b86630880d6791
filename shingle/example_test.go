package shingle_test

import (
	"fmt"

	"github.com/simidx/simidx/shingle"
)

func ExampleTokenizer_AppendCanonical() {
	t, _ := shingle.NewTokenizer(nil)
	fmt.Printf("%s\n", t.AppendCanonical(nil, []byte("<p>Don&rsquo;t PANIC!</p> Ｇｏ言語, 3.14")))
	// Output: dont panic go 言 語 3.14
}

func ExampleShingler() {
	s, _ := shingle.NewShingler(&shingle.Options{Size: 3})
	a := shingle.Set(s.AppendHashes(nil, []byte("the quick brown fox jumps over the lazy dog")))
	b := shingle.Set(s.AppendHashes(nil, []byte("The quick brown fox jumped over the lazy dog.")))
	fmt.Printf("%d and %d shingles, Jaccard %.2f, Dice %.2f\n", len(a), len(b), shingle.Jaccard(a, b), shingle.Dice(a, b))
	// 4 of the 7 shingles are shared: Jaccard 4/10, Dice 8/14.

	// Output: 7 and 7 shingles, Jaccard 0.40, Dice 0.57
}

func ExampleMinHasher() {
	s, _ := shingle.NewShingler(&shingle.Options{Size: 1})
	m, _ := shingle.NewMinHasher(shingle.DefaultK, shingle.OnePermutation)
	var words []string
	for i := range 200 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	text := func(from, to int) []byte { return fmt.Appendf(nil, "%v", words[from:to]) }
	a := m.Append(nil, s.AppendHashes(nil, text(0, 150)))
	b := m.Append(nil, s.AppendHashes(nil, text(50, 200)))
	// True Jaccard: 100 shared words of 200.
	fmt.Printf("estimated Jaccard %.2f\n", shingle.Estimate(a, b))
	bands := shingle.AppendBands(nil, a, 14, 6)
	fmt.Println(len(bands), "band hashes")
	// Output:
	// estimated Jaccard 0.49
	// 14 band hashes
}

func ExamplePassages() {
	t, _ := shingle.NewTokenizer(nil)
	a := []byte("Copyright 2020 Foo Inc. All rights reserved.")
	b := []byte("(C) COPYRIGHT 2021 Bar Ltd.\nAll Rights Reserved")
	wa, wb := t.AppendWords(nil, a), t.AppendWords(nil, b)
	hashes := func(ws []shingle.Word) []uint64 {
		var hs []uint64
		for _, w := range ws {
			hs = append(hs, w.Hash)
		}
		return hs
	}
	for _, p := range shingle.Passages(hashes(wa), hashes(wb), -1) {
		pa, pb := wa[p.A:p.A+p.Words], wb[p.B:p.B+p.Words]
		fmt.Printf("words %d: %q in a, %q in b\n", p.Words, a[pa[0].Start:pa[len(pa)-1].End], b[pb[0].Start:pb[len(pb)-1].End])
	}
	// Output:
	// words 3: "All rights reserved" in a, "All Rights Reserved" in b
	// words 1: "Copyright" in a, "COPYRIGHT" in b
}
