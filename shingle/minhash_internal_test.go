package shingle

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// probeReference is probe without its table: the probe sequence computed
// in full, as the persisted signatures were made.
func probeReference(k, i int, filled []bool) int {
	for a := uint64(1); a <= 64*uint64(k); a++ {
		j, _ := bits.Mul64(Mix64(uint64(i)<<32^a^densSeed), uint64(k))
		if filled[j] {
			return int(j)
		}
	}
	for j := 1; ; j++ {
		if b := (i + j) % k; filled[b] {
			return b
		}
	}
}

// TestProbeTable checks that probe with its table picks the bin the full
// probe sequence picks, for sizes of signature and fillings from one bin
// (past the table's depth) to most bins.
func TestProbeTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(84, 6))
	for _, k := range []int{1, 2, 7, 60, 84, 200, MaxK} {
		m, err := NewMinHasher(k, OnePermutation)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			filled := make([]bool, k)
			for range 1 + rng.IntN(max(1, k/2)) {
				filled[rng.IntN(k)] = true
			}
			var set binSet
			for i, f := range filled {
				if f {
					set.add(i)
				}
			}
			for i := range k {
				if filled[i] {
					continue
				}
				if got, want := m.probe(i, &set), probeReference(k, i, filled); got != want {
					t.Fatalf("k %d, bin %d: probe %d, the full sequence %d", k, i, got, want)
				}
			}
		}
	}
}

// appendReference is the one-permutation signature of Append computed
// plainly, with a flag per bin and the full probe sequence.
func appendReference(k int, shingles []uint64) []uint64 {
	sig := make([]uint64, k)
	for i := range sig {
		sig[i] = Empty
	}
	if len(shingles) == 0 {
		return sig
	}
	filled := make([]bool, k)
	for _, h := range shingles {
		v := Mix64(h ^ ophSeed)
		bin, _ := bits.Mul64(v, uint64(k))
		if v < sig[bin] || !filled[bin] {
			sig[bin] = v
			filled[bin] = true
		}
	}
	for i := range sig {
		if !filled[i] {
			sig[i] = sig[probeReference(k, i, filled)]
		}
	}
	return sig
}

// TestAppendReference checks one-permutation signatures against
// appendReference, for sets from empty to several times the signature,
// with repeats, appended after other values.
func TestAppendReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 84))
	for _, k := range []int{1, 2, 7, 60, 63, 64, 65, 84, 200, MaxK} {
		m, err := NewMinHasher(k, OnePermutation)
		if err != nil {
			t.Fatal(err)
		}
		for range 30 {
			hs := make([]uint64, rng.IntN(3*k+2))
			for i := range hs {
				if i > 0 && rng.IntN(4) == 0 {
					hs[i] = hs[rng.IntN(i)]
				} else {
					hs[i] = rng.Uint64()
				}
			}
			got := m.Append([]uint64{42}, hs)
			want := append([]uint64{42}, appendReference(k, hs)...)
			if !slices.Equal(got, want) {
				t.Fatalf("k %d, %d shingles: signature\n%x\nwant\n%x", k, len(hs), got, want)
			}
		}
	}
}

// TestEstimateLow32 checks that Estimate compares values by their low 32
// bits, so that a signature stored with 32 bits a value compares with one
// computed in full.
func TestEstimateLow32(t *testing.T) {
	full := []uint64{1<<40 | 5, 6, 7<<33 | 8, 9}
	stored := []uint64{5, 6, 8, 10}
	if got := Estimate(full, stored); got != 0.75 {
		t.Errorf("Estimate = %v, want 0.75", got)
	}
}

// TestDensifyWays checks each way of densify (and densify, which picks
// one) against the full probe sequence, with 1 to 40 filled bins and with
// about a seventh of them, the least with which densify goes by depth, so
// that some empty bins search past the probe table.
func TestDensifyWays(t *testing.T) {
	rng := rand.New(rand.NewPCG(1024, 7))
	deep := 0
	for _, k := range []int{1, 7, 60, 64, 65, 84, 128, 129, 1024} {
		m, err := NewMinHasher(k, OnePermutation)
		if err != nil {
			t.Fatal(err)
		}
		if (m.hits != nil) != (k <= maxHitK) {
			t.Fatalf("k %d: hit table %v", k, m.hits != nil)
		}
		ways := map[string]func([]uint64){"densify": m.densify, "probe": m.densifyByProbe, "depth": m.densifyByDepth}
		if m.hits != nil {
			ways["hits"] = m.densifyByHits
		}
		least := (k + byDepthShare - 1) / byDepthShare
		var ns []int
		for n := 1; n <= min(k, 40); n++ {
			ns = append(ns, n)
		}
		ns = append(ns, max(1, least-1), least)
		for _, n := range ns {
			for range 10 {
				filled := make([]bool, k)
				sig := make([]uint64, k)
				clear(m.filled[:])
				for _, i := range rng.Perm(k)[:n] {
					filled[i] = true
					m.filled.add(i)
					sig[i] = rng.Uint64()
				}
				want := slices.Clone(sig)
				for i := range k {
					if !filled[i] {
						j := probeReference(k, i, filled)
						want[i] = sig[j]
						if !slices.Contains(m.probes[i*probeDepth:(i+1)*probeDepth], uint16(j)) {
							deep++
						}
					}
				}
				for name, densify := range ways {
					got := slices.Clone(sig)
					densify(got)
					if !slices.Equal(got, want) {
						t.Fatalf("k %d, %d filled bins, %s: densify gives\n%x\nwant\n%x", k, n, name, got, want)
					}
				}
			}
		}
	}
	if deep == 0 {
		t.Error("no bin searched past the probe table")
	}
}
