package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/internal/eval"
)

// TestPairScorer checks that scoring pairs as they come gives what score
// gives on the whole set of reported pairs.
func TestPairScorer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	truth := map[eval.Pair]float64{}
	for range 300 {
		truth[eval.MakePair(rng.IntN(100), 100+rng.IntN(100))] = 0.5 + 0.5*rng.Float64()
	}
	reported := map[eval.Pair]bool{}
	for p := range truth {
		if rng.IntN(3) > 0 {
			reported[p] = true
		}
	}
	for range 200 {
		reported[eval.MakePair(rng.IntN(200), 200+rng.IntN(100))] = true
	}
	sc := newPairScorer(truth)
	for p := range reported {
		sc.add(p)
	}
	got, want := sc.result("m", "p"), score("m", "p", truth, reported)
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("streaming score\n%+v\nwant\n%+v", got, want)
	}
}

// writeMethodsCorpus writes a small corpus: random documents, near copies
// (one word changed) of a third of them, two exact copies and three
// Cyrillic documents.
func writeMethodsCorpus(t *testing.T, path string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 11))
	vocab := make([]string, 2000)
	for i := range vocab {
		w := make([]byte, 4+rng.IntN(9))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		vocab[i] = string(w)
	}
	// Sentences of 12 words, for nshash.
	join := func(ws []string) string {
		var s strings.Builder
		for j, w := range ws {
			s.WriteString(w)
			if j%12 == 11 {
				s.WriteString(". ")
			} else {
				s.WriteString(" ")
			}
		}
		return s.String()
	}
	var b bytes.Buffer
	add := func(id, text string) {
		line, _ := json.Marshal(map[string]string{"id": id, "text": text})
		b.Write(append(line, '\n'))
	}
	for i := range 45 {
		ws := make([]string, 60+rng.IntN(60))
		for j := range ws {
			ws[j] = vocab[rng.IntN(len(vocab))]
		}
		add(fmt.Sprint(i), join(ws))
		if i%3 == 0 {
			ws[rng.IntN(len(ws))] = "changed"
			add(fmt.Sprint(i, "b"), join(ws))
		}
		if i < 2 {
			add(fmt.Sprint(i, "c"), join(ws))
		}
	}
	for i, s := range []string{"Мороз и солнце, день чудесный, ещё ты дремлешь, друг прелестный", "Вечор, ты помнишь, вьюга злилась, на мутном небе мгла носилась", "Луна, как бледное пятно, сквозь тучи мрачные желтела"} {
		add(fmt.Sprint("ru", i), s)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunMethods(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl")
	writeMethodsCorpus(t, path)
	res, err := runMethods(corpusSpec{"c", "words", 5}, false, path, 0, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, m := range methodSpecs {
		want += max(1, len(m.Sims))
	}
	if len(res.Runs) != want {
		t.Fatalf("%d runs, want %d", len(res.Runs), want)
	}
	if res.Docs != 65 || res.Pairs < 16 {
		t.Errorf("%d documents, %d true pairs; want 65 and at least 16", res.Docs, res.Pairs)
	}
	if strings.Contains(res.Check, "**") {
		t.Errorf("default's pairs differ from brute force: %s", res.Check)
	}
	for _, r := range res.Runs {
		if r.Stopped || r.Load <= 0 || r.BytesPerDoc <= 0 || r.Res.Reported == 0 {
			t.Errorf("%s %s: %+v", r.Method, r.Param, r)
		}
		// The near copies share all their long sentences but the one
		// changed, and all their words but one: the set methods and the
		// MinHash layer at t=0.6 find them.
		if (r.Param == "its rule" || strings.HasPrefix(r.Param, "t=0.6")) && r.Res.Hi.Recall() < 0.9 {
			t.Errorf("%s %s: recall (J>=0.8) %.3f, want >= 0.9", r.Method, r.Param, r.Res.Hi.Recall())
		}
		if r.Method == "mfonda" && r.EmptyFP != 3 {
			t.Errorf("mfonda: %d documents with the empty fingerprint, want the 3 Cyrillic ones", r.EmptyFP)
		}
	}

	// A cap below what a method reports stops its Pairs, and the run is
	// not scored.
	defer func(n int) { maxMethodPairs = n }(maxMethodPairs)
	maxMethodPairs = 2
	capped, err := runMethods(corpusSpec{"c", "words", 5}, false, path, 0, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !capped.Runs[0].Stopped || capped.Runs[0].Res.Reported != 3 {
		t.Errorf("capped run: stopped %v after %d pairs, want true after 3", capped.Runs[0].Stopped, capped.Runs[0].Res.Reported)
	}

	var b bytes.Buffer
	r := &report{Methods: []*methodsCorpus{res, capped}}
	r.markdown(&b)
	md := b.String()
	for _, s := range []string{"## Methods side by side", "#### c (methods)", "| simhash + MinHash, 2 of 14 bands | t=0.6 |",
		"| nshash | its rule |", "With mfonda, 3 documents", "not scored: over 2 pairs"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
}
