package eval_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/shingle"
)

const text = "The quick brown fox jumps over the lazy dog. It barked! Then it slept? " +
	"A second sentence follows here, with more words in it. And a last one."

func jac(t *testing.T, a, b string) float64 {
	s, _ := shingle.NewShingler(&shingle.Options{Size: 1})
	return shingle.Jaccard(shingle.Set(s.AppendHashes(nil, []byte(a))), shingle.Set(s.AppendHashes(nil, []byte(b))))
}

func TestApply(t *testing.T) {
	for _, e := range eval.Edits {
		rng := rand.New(rand.NewPCG(1, 2))
		if got := eval.Apply(rng, text, e, 0); got != text && e != eval.Wrap {
			t.Errorf("%v at rate 0 changed the text: %q", e, got)
		}
		a := eval.Apply(rand.New(rand.NewPCG(3, 4)), text, e, 0.3)
		b := eval.Apply(rand.New(rand.NewPCG(3, 4)), text, e, 0.3)
		if a != b {
			t.Errorf("%v is not deterministic", e)
		}
		if e != eval.Shuffle && e != eval.Swap && e != eval.Wrap && a == text {
			t.Errorf("%v at rate 0.3 changed nothing", e)
		}
		if s := jac(t, text, a); s < 0.3 {
			t.Errorf("%v at rate 0.3: word Jaccard %.2f", e, s)
		}
		if back, err := eval.ParseEdit(e.String()); err != nil || back != e {
			t.Errorf("ParseEdit(%q) = %v, %v", e, back, err)
		}
	}
	wrapped := eval.Apply(rand.New(rand.NewPCG(1, 1)), text, eval.Wrap, 0.2)
	if !strings.Contains(wrapped, "<nav>") || jac(t, text, wrapped) > 0.95 {
		t.Errorf("Wrap: %q", wrapped)
	}
	cjk := "日本語のテキストを書く。二つ目の文です。"
	if got := eval.Apply(rand.New(rand.NewPCG(1, 1)), cjk, eval.Delete, 0.3); len(got) >= len(cjk) || len(got) == 0 {
		t.Errorf("Delete on Japanese works on characters: %q", got)
	}
	if _, err := eval.ParseEdit("nope"); err == nil {
		t.Error("unknown edit accepted")
	}
}

func TestScore(t *testing.T) {
	truth := map[eval.Pair]float64{{0, 1}: 0.95, {0, 2}: 0.85, {1, 2}: 0.6, {3, 4}: 0.9}
	reported := map[eval.Pair]bool{{0, 1}: true, {1, 2}: true, {5, 6}: true}
	c := eval.Score(truth, reported, 0.8, 0.5)
	// True: (0,1), (0,2), (3,4); found (0,1); (1,2) is grey; (5,6) is false.
	if c.TP != 1 || c.FN != 2 || c.FP != 1 {
		t.Errorf("Score = %+v", c)
	}
	if strict := eval.Score(truth, reported, 0.8, 0.8); strict.FP != 2 {
		t.Errorf("strict Score = %+v", strict)
	}
	bins := eval.Bins(0.5, 0.1)
	found, total := eval.RecallByBin(truth, reported, bins)
	if len(bins) != 5 || total[4] != 2 || found[4] != 1 || total[1] != 1 || found[1] != 1 {
		t.Errorf("RecallByBin: bins %v found %v total %v", bins, found, total)
	}
	if bs := eval.Bins(0, 0.1); len(bs) != 10 || !bs[9].Contains(1) || !bs[0].Contains(0) || bs[3].Contains(0.3) == bs[2].Contains(0.3) {
		t.Errorf("Bins(0, 0.1) = %v", bs)
	}
	if eval.MakePair(3, 1) != (eval.Pair{1, 3}) {
		t.Error("MakePair order")
	}
}
