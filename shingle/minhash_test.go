package shingle_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/simidx/simidx/shingle"
)

// plantedSets returns two sets of random hashes with exactly the Jaccard
// similarity inter/union.
func plantedSets(rng *rand.Rand, union, inter int) (a, b []uint64) {
	onlyA := (union - inter) / 2
	for i := range union {
		h := rng.Uint64()
		switch {
		case i < inter:
			a, b = append(a, h), append(b, h)
		case i < inter+onlyA:
			a = append(a, h)
		default:
			b = append(b, h)
		}
	}
	return a, b
}

// TestMinHashEstimate checks both schemes against sets of known Jaccard
// similarity from 0.1 to 1.0, for small sets (fewer shingles than values,
// where densification matters) and large ones: the mean estimate is within
// three standard errors of the truth, and at most 1% of single estimates are
// more than three standard errors off. The measured error is logged.
func TestMinHashEstimate(t *testing.T) {
	const trials = 300
	for _, scheme := range []shingle.Scheme{shingle.OnePermutation, shingle.Mixes} {
		mh, err := shingle.NewMinHasher(shingle.DefaultK, scheme)
		if err != nil {
			t.Fatal(err)
		}
		for _, union := range []int{60, 1000} {
			rng := rand.New(rand.NewPCG(uint64(union), uint64(scheme)))
			for tenths := 1; tenths <= 10; tenths++ {
				inter := union * tenths / 10
				j := float64(inter) / float64(union)
				se := math.Sqrt(j * (1 - j) / shingle.DefaultK)
				var sum, sq float64
				outside := 0
				for range trials {
					a, b := plantedSets(rng, union, inter)
					est := shingle.Estimate(mh.Append(nil, a), mh.Append(nil, b))
					sum += est
					sq += (est - j) * (est - j)
					if math.Abs(est-j) > 3*se+1e-9 {
						outside++
					}
				}
				mean, rmse := sum/trials, math.Sqrt(sq/trials)
				t.Logf("scheme %d |A∪B|=%4d J=%.1f mean %.4f rmse %.4f (binomial se %.4f) outside 3se: %d/%d",
					scheme, union, j, mean, rmse, se, outside, trials)
				if math.Abs(mean-j) > 3*se/math.Sqrt(trials)+1e-9 {
					t.Errorf("scheme %d |A∪B|=%d J=%.1f: mean estimate %.4f, more than 3 standard errors off",
						scheme, union, j, mean)
				}
				if outside > trials/100 {
					t.Errorf("scheme %d |A∪B|=%d J=%.1f: %d of %d estimates more than 3 standard errors off",
						scheme, union, j, outside, trials)
				}
			}
		}
	}
}

func TestMinHashEdges(t *testing.T) {
	mh, _ := shingle.NewMinHasher(0, shingle.OnePermutation)
	empty := mh.Append(nil, nil)
	if len(empty) != shingle.DefaultK || empty[0] != shingle.Empty {
		t.Errorf("empty signature: %x", empty)
	}
	one := mh.Append(nil, []uint64{42})
	for _, v := range one {
		if v != one[0] {
			t.Fatal("a one-element set must densify to one value")
		}
	}
	if shingle.Estimate(one, empty) != 0 || shingle.Estimate(empty, empty) != 1 {
		t.Error("estimates with empty sets")
	}
	if shingle.Estimate(one, one[:10]) != 0 {
		t.Error("signatures of different lengths must give 0")
	}
	if _, err := shingle.NewMinHasher(shingle.MaxK+1, shingle.OnePermutation); err == nil {
		t.Error("K over MaxK accepted")
	}
	if _, err := shingle.NewMinHasher(0, 7); err == nil {
		t.Error("unknown scheme accepted")
	}
	bands := shingle.AppendBands(nil, one, 14, 6)
	if len(bands) != 14 || bands[0] == bands[1] {
		t.Error("equal rows in different bands must hash differently")
	}
}

func TestSharedBands(t *testing.T) {
	for _, c := range []struct {
		a, b []uint64
		want int
	}{
		{[]uint64{1, 2, 3}, []uint64{1, 5, 3}, 2},
		{[]uint64{1, 2, 3}, []uint64{4, 5, 6}, 0},
		{[]uint64{1, 2}, []uint64{1, 2, 3}, 2}, // the shorter list
		{nil, []uint64{1}, 0},
		{[]uint64{0, 2, 0}, []uint64{0, 2, 3}, 1}, // 0 is no band
	} {
		if got := shingle.SharedBands(c.a, c.b); got != c.want {
			t.Errorf("SharedBands(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestMinHashRepeats checks that a signature counts a repeated hash once
// and does not depend on the order of the hashes, for both schemes: the
// index hashes a text's shingles as they come, repeats and all, and its
// stored signatures must equal those of the set.
func TestMinHashRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, scheme := range []shingle.Scheme{shingle.OnePermutation, shingle.Mixes} {
		mh, err := shingle.NewMinHasher(shingle.DefaultK, scheme)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 5, 60, 500} {
			var hs []uint64
			for range n {
				hs = append(hs, rng.Uint64())
			}
			want := mh.Append(nil, shingle.Set(slices.Clone(hs)))
			// Each hash repeated up to three times, shuffled.
			var bag []uint64
			for _, h := range hs {
				for range 1 + rng.IntN(3) {
					bag = append(bag, h)
				}
			}
			rng.Shuffle(len(bag), func(i, j int) { bag[i], bag[j] = bag[j], bag[i] })
			if got := mh.Append(nil, bag); !slices.Equal(got, want) {
				t.Errorf("scheme %d, %d hashes: signature of the repeated, shuffled hashes differs from the set's", scheme, n)
			}
		}
	}
}
