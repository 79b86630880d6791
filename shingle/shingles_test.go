package shingle_test

import (
	"testing"

	"github.com/simidx/simidx/shingle"
)

func TestAppendShingles(t *testing.T) {
	units := []uint64{1, 2, 3, 4, 5}
	if got := shingle.AppendShingles(nil, units, 3, 1); len(got) != 3 ||
		got[0] != shingle.Combine(units[0:3]) || got[2] != shingle.Combine(units[2:5]) {
		t.Errorf("overlapping: %x", got)
	}
	if got := shingle.AppendShingles(nil, units, 2, 2); len(got) != 2 || got[1] != shingle.Combine(units[2:4]) {
		t.Errorf("disjoint: %x", got)
	}
	if got := shingle.AppendShingles(nil, units[:2], 5, 1); len(got) != 1 || got[0] != shingle.Combine(units[:2]) {
		t.Errorf("short: %x", got)
	}
	if got := shingle.AppendShingles(nil, nil, 5, 1); len(got) != 0 {
		t.Errorf("empty: %x", got)
	}
	if shingle.Combine([]uint64{1, 2}) == shingle.Combine([]uint64{2, 1}) {
		t.Error("Combine ignores order")
	}
	if shingle.Combine([]uint64{7}) == shingle.Combine([]uint64{7, 7}) {
		t.Error("Combine ignores length")
	}
}

func TestSetMeasures(t *testing.T) {
	a := shingle.Set([]uint64{5, 1, 2, 3, 3, 4})
	b := shingle.Set([]uint64{3, 4, 5, 6, 7, 8})
	// a = {1..5}, b = {3..8}: |a∩b| = 3, |a∪b| = 8.
	if got := shingle.Jaccard(a, b); got != 3.0/8 {
		t.Errorf("Jaccard = %v", got)
	}
	if got := shingle.Containment(a, b); got != 3.0/5 {
		t.Errorf("Containment = %v", got)
	}
	if got := shingle.Dice(a, b); got != 6.0/11 {
		t.Errorf("Dice = %v", got)
	}
	if shingle.Jaccard(nil, nil) != 1 || shingle.Jaccard(a, nil) != 0 || shingle.Containment(nil, b) != 1 {
		t.Error("empty-set conventions")
	}
}

func TestShinglerAllocs(t *testing.T) {
	docs := loadSample(t)
	sh, _ := shingle.NewShingler(nil)
	mh, _ := shingle.NewMinHasher(0, shingle.OnePermutation)
	var texts [][]byte
	for _, d := range docs {
		texts = append(texts, []byte(d.Text))
	}
	var buf, sig []uint64
	run := func() {
		for _, text := range texts {
			buf = sh.AppendHashes(buf[:0], text)
			sig = mh.Append(sig[:0], buf)
		}
	}
	run()
	if a := testing.AllocsPerRun(20, run); a != 0 {
		t.Errorf("steady state: %v allocs per pass, want 0", a)
	}
}
