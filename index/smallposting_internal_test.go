package index

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestSmallPosting checks that appendSmallPosting writes the bytes of a
// run-optimized roaring bitmap, for sets of 2 to 40 numbers, consecutive
// and scattered, within one block of 2^16 and across many, and that it
// declines a block of more than 3.
func TestSmallPosting(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	declined := 0
	for range 20_000 {
		spread := []uint32{4, 1 << 16, 1 << 20, 1 << 31}[rng.IntN(4)]
		start := rng.Uint32N(1<<32 - 1 - spread)
		var docs []uint32
		for range 2 + rng.IntN(39) {
			docs = append(docs, start+rng.Uint32N(spread))
		}
		slices.Sort(docs)
		docs = slices.Compact(docs)
		if len(docs) < 2 {
			continue
		}
		bm := roaring.BitmapOf(docs...)
		bm.RunOptimize()
		want, err := bm.ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendSmallPosting([]byte("x"), docs)
		if !ok {
			declined++
			if string(got) != "x" {
				t.Fatalf("%v: declined, but appended %x", docs, got)
			}
			continue
		}
		if !bytes.Equal(got[1:], want) {
			t.Fatalf("%v:\n got %x\nwant %x", docs, got[1:], want)
		}
		var back roaring.Bitmap
		if err := readPosting(&back, got[1:]); err != nil || !slices.Equal(back.ToArray(), docs) {
			t.Fatalf("%v: read back %v, %v", docs, back.ToArray(), err)
		}
	}
	if declined == 0 || declined == 20_000 {
		t.Errorf("%d of 20000 declined", declined)
	}
}
