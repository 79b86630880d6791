package index

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

func TestDesignTable(t *testing.T) {
	if testing.Verbose() {
		for k := 0; k <= MaxMaxDistance; k++ {
			for _, n := range []int{1e5, 1e6, 1e7, 1e8, 1e9} {
				d := DesignFor(k, n)
				lo, hi := d.PrefixBits(k)
				fmt.Printf("k=%d n=%.0e m=%d tables=%d p=%d..%d q=%d cand=%.1f\n", k, float64(n), len(d.Blocks), d.Tables(k), lo, hi, d.KeyBits, d.Candidates(k, n))
			}
		}
	}
}

// TestDesignExact checks by brute force that every pair of fingerprints
// within k bits shares the whole prefix of at least one table, and that
// permutations are bijections that put the leading blocks first.
func TestDesignExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k <= MaxMaxDistance; k++ {
		for _, n := range []int{1e3, 1e6, 1e9} {
			d := DesignFor(k, n)
			if err := d.validate(k); err != nil {
				t.Fatalf("k=%d n=%d: %v", k, n, err)
			}
			ts := d.tables(k)
			if len(ts) != d.Tables(k) {
				t.Fatalf("k=%d: %d tables, want %d", k, len(ts), d.Tables(k))
			}
			for i := 0; i < 2000; i++ {
				a := rng.Uint64()
				b := a
				// Flip exactly k distinct bits.
				for bits.OnesCount64(a^b) < k {
					b ^= 1 << rng.IntN(64)
				}
				found := 0
				for _, tb := range ts {
					pa, pb := tb.permute(a), tb.permute(b)
					if tb.unpermute(pa) != a {
						t.Fatalf("k=%d: unpermute(permute(%x)) = %x", k, a, tb.unpermute(pa))
					}
					if bits.OnesCount64(pa^pb) != bits.OnesCount64(a^b) {
						t.Fatalf("permutation changed the distance")
					}
					if (pa^pb)>>(64-tb.prefix) == 0 {
						found++
					}
				}
				if found == 0 {
					t.Fatalf("k=%d n=%d: %x and %x (distance %d) share no table prefix", k, n, a, b, k)
				}
			}
		}
	}
}

// TestDesignBlocksNotRotations checks a case that rotations by multiples of
// 16 bits would miss: differences in blocks 0, 1 and 3 leave only block 2
// equal, and the table led by block 2 must find them.
func TestDesignBlocksNotRotations(t *testing.T) {
	d := Design{Blocks: []int{16, 16, 16, 16}, KeyBits: 16}
	a := uint64(0)
	b := uint64(1)<<63 | 1<<47 | 1
	ok := false
	for _, tb := range d.tables(3) {
		if (tb.permute(a)^tb.permute(b))>>(64-tb.prefix) == 0 {
			ok = true
		}
	}
	if !ok {
		t.Fatal("not found")
	}
}

func TestEvenCandidates(t *testing.T) {
	for k := 0; k <= MaxMaxDistance; k++ {
		for m := k + 1; m <= 14; m++ {
			d := Design{Blocks: evenBlocks(m)}
			a, b := d.Candidates(k, 1e6), evenCandidates(m, k, 1e6)
			if a-b > 1e-9*a || b-a > 1e-9*a {
				t.Fatalf("m=%d k=%d: %v != %v", m, k, a, b)
			}
		}
	}
}
