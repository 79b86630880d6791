// Package gencorpus writes the generated corpus of simidx-beam's tests and
// figures: JSON lines of words of real texts drawn at random, with planted
// near duplicates, exact copies, repeated IDs, empty texts and a hot key.
// The same n and seed give the same bytes.
package gencorpus

import (
	"bufio"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/testcorpus"
)

// LicensesDir returns the directory of the licences, testdata/licenses
// of the source tree.
func LicensesDir() string {
	return filepath.Join(filepath.Dir(testcorpus.SamplePath()), "..", "..", "testdata", "licenses")
}

// words returns the words of the multilingual sample, then of the
// licences in lexical order of their files.
func words() ([]string, error) {
	var ws []string
	docs, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		ws = append(ws, strings.Fields(d.Text)...)
	}
	files, err := filepath.Glob(filepath.Join(LicensesDir(), "*.txt"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ws = append(ws, strings.Fields(string(b))...)
	}
	return ws, nil
}

// Write writes a corpus of n documents in JSON lines ({"id", "text"}) to
// w: words of real texts (the sample and the licences) drawn at random, a
// third of them with planted near duplicates (internal/eval edits), some
// exact copies, repeated IDs (and IDs such as x#2 that a rename would
// take), empty texts, and a boilerplate text edited into 200 versions (a
// hot key: a clique of 20,000 pairs whatever n). Memory: every text
// written (near duplicates are drawn from all earlier ones).
func Write(w io.Writer, n int, seed uint64) error {
	words, err := words()
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 23))
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	type doc struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	boiler := strings.Join(words[100:160], " ")
	var texts []string
	boilers := 0
	for i := range n {
		id := "d" + strconv.Itoa(i)
		var text string
		switch r := rng.IntN(100); {
		case r < 30 && len(texts) > 0: // a near duplicate of an earlier text
			e := eval.Edits[rng.IntN(len(eval.Edits))]
			text = eval.Apply(rng, texts[rng.IntN(len(texts))], e, 0.02+rng.Float64()*0.1)
		case r < 35 && len(texts) > 0: // an exact copy, or one with other spacing and case
			text = texts[rng.IntN(len(texts))]
			if rng.IntN(2) == 0 {
				text = strings.ToUpper(text) + "  "
			}
		case r < 40 && boilers < 200: // the boilerplate, edited a little: a hot key
			text = eval.Apply(rng, boiler, eval.Substitute, 0.02)
			boilers++
		case r < 41:
			text = "  ,. "
		default:
			// Real words drawn at random: windows of the texts would
			// overlap and pair with each other, a chain through the
			// whole corpus once it outgrows them.
			ws := make([]string, 5+rng.IntN(300))
			for j := range ws {
				ws[j] = words[rng.IntN(len(words))]
			}
			text = strings.Join(ws, " ")
		}
		texts = append(texts, text)
		switch r := rng.IntN(200); {
		case r == 0 && i > 0: // a repeated ID
			id = "d" + strconv.Itoa(rng.IntN(i))
		case r == 1 && i > 0: // the ID a rename would give
			id = "d" + strconv.Itoa(rng.IntN(i)) + "#2"
		}
		if err := enc.Encode(doc{ID: id, Text: text}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteFile writes the corpus of n documents and seed to path.
func WriteFile(path string, n int, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, n, seed); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
