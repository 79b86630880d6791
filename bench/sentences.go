package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// brownSentences names the short-sentence corpus that the harness builds
// from the Brown corpus (brown.jsonl): every sentence of 8 to 60 words,
// then, for a fifth of them chosen at random, a copy with one or two
// words substituted, inserted or deleted (planted near duplicates of
// short texts). The same brown.jsonl gives the same corpus.
const brownSentences = "brown-sentences"

// corpusPath returns the path of the JSONL file of corpus name in dir,
// building the derived corpora (brownSentences) in dir's temporary
// sibling when needed.
func corpusPath(dir, name string) (string, error) {
	if name != brownSentences {
		return filepath.Join(dir, name+".jsonl"), nil
	}
	src := filepath.Join(dir, "brown.jsonl")
	if _, err := os.Stat(src); err != nil {
		return src, nil // reported missing by the caller
	}
	out := filepath.Join(os.TempDir(), "simidx-bench-"+brownSentences+".jsonl")
	return out, writeBrownSentences(src, out)
}

// writeBrownSentences writes the brownSentences corpus made from the Brown
// corpus at src into out.
func writeBrownSentences(src, out string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	var sents []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var d struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		// The corpus has a sentence a paragraph, tokens spaced.
		for _, s := range strings.Split(d.Text, "\n\n") {
			if w := strings.Fields(s); len(w) >= 8 && len(w) <= 60 {
				sents = append(sents, strings.Join(w, " "))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	g, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(g)
	enc := json.NewEncoder(w)
	put := func(id, text string) {
		enc.Encode(struct {
			ID   string `json:"id"`
			Lang string `json:"lang"`
			Text string `json:"text"`
		}{id, "en", text})
	}
	for i, s := range sents {
		put(fmt.Sprint("s", i), s)
	}
	rng := rand.New(rand.NewPCG(19, 61))
	for i := range len(sents) / 5 {
		o := rng.IntN(len(sents))
		ws := strings.Fields(sents[o])
		for range 1 + rng.IntN(2) {
			p := rng.IntN(len(ws))
			switch rng.IntN(3) {
			case 0:
				ws[p] = sents[rng.IntN(len(sents))][:1] + fmt.Sprint("x", rng.IntN(1000))
			case 1:
				ws = slices.Insert(ws, p, fmt.Sprint("w", rng.IntN(1000)))
			default:
				ws = slices.Delete(ws, p, p+1)
			}
		}
		put(fmt.Sprintf("s%d~edit%d", o, i), strings.Join(ws, " "))
	}
	if err := w.Flush(); err != nil {
		g.Close()
		return err
	}
	return g.Close()
}
