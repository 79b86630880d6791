package index_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/simidx/simidx/index"
)

// TestShortOneWordEdit checks the promise of the short-text layer: with
// the default settings, a text of 8 to 30 words with one word substituted,
// inserted or deleted anywhere is found by a query of the original, and
// Pairs reports the pair. The texts are runs of words of the licences.
func TestShortOneWordEdit(t *testing.T) {
	t.Parallel()
	// Plain words only, so that a text of n words has n units (no
	// markup such as <year>, no punctuation alone).
	var words []string
	for _, d := range licenseTexts(t) {
		for _, w := range strings.Fields(string(d.Text)) {
			if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
				words = append(words, w)
			}
		}
	}
	rng := rand.New(rand.NewPCG(8, 30))
	var docs []index.Doc
	pairs := map[string]string{}
	for i := range 400 {
		n := 8 + i%23
		start := rng.IntN(len(words) - n)
		orig := slices.Clone(words[start : start+n])
		edit := slices.Clone(orig)
		p := rng.IntN(n)
		kind := i % 3
		switch kind {
		case 0:
			edit[p] = fmt.Sprintf("zz%dqq", i)
		case 1:
			edit = slices.Insert(edit, p, fmt.Sprintf("zz%dqq", i))
		case 2:
			edit = slices.Delete(edit, p, p+1)
		}
		a, b := fmt.Sprintf("orig%d", i), fmt.Sprintf("edit%d-%d", i, kind)
		docs = append(docs, index.Doc{ID: a, Text: []byte(strings.Join(orig, " "))},
			index.Doc{ID: b, Text: []byte(strings.Join(edit, " "))})
		pairs[a] = b
	}
	// The classified ad of the issue that asked for the layer.
	docs = append(docs, index.Doc{ID: "ad", Text: []byte("Garden chairs, set of four, 40 euros")},
		index.Doc{ID: "ad-price", Text: []byte("Garden chairs, set of four, 45 euros")})
	pairs["ad"] = "ad-price"
	texts := map[string]string{}
	for _, d := range docs {
		texts[d.ID] = string(d.Text)
	}
	x := newIndex(t, nil)
	if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
		t.Fatal(err)
	}
	reported := map[[2]string]bool{}
	if err := x.Pairs(context.Background(), nil, func(p index.Pair) error {
		reported[[2]string{p.A, p.B}] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for a, b := range pairs {
		ms, err := x.QueryID(a, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == b }) {
			t.Errorf("query of %s (%q) misses %s (%q)", a, texts[a], b, texts[b])
		}
		k := [2]string{min(a, b), max(a, b)}
		if !reported[k] {
			t.Errorf("Pairs misses %s %s", a, b)
		}
	}
}

// TestShortLayerSettings checks the settings of the short-text layer: on
// by default with MinHash, off without it, refused without it, and absent
// from an index of an older schema, before and after its upgrade.
func TestShortLayerSettings(t *testing.T) {
	t.Parallel()
	if st := index.DefaultSettings(); st.ShortUnits != index.DefaultShortUnits || st.ShortBands != index.DefaultShortBands || st.ShortRows != index.DefaultShortRows {
		t.Errorf("default settings: short units %d, bands %d, rows %d", st.ShortUnits, st.ShortBands, st.ShortRows)
	}
	on := newIndex(t, &index.Settings{ShortUnits: 40})
	if st := on.Settings(); st.ShortUnits != 40 || st.ShortBands != index.DefaultShortBands || st.ShortRows != index.DefaultShortRows {
		t.Errorf("short units 40: %+v", st)
	}
	x := newIndex(t, &index.Settings{NoMinHash: true})
	if st := x.Settings(); st.ShortUnits != index.NoShortLayer {
		t.Errorf("without MinHash: short units %d", st.ShortUnits)
	}
	for _, s := range []index.Settings{
		{NoMinHash: true, ShortUnits: 20},
		{ShortUnits: index.MaxShortUnits + 1},
		{ShortBands: 250},
		{ShortRows: 17},
		{ShortUnits: index.NoShortLayer, ShortBands: 4},
		{ShortUnits: index.NoShortLayer, ShortBands: 4},
	} {
		if _, err := index.NewFingerprinter(&s); err == nil {
			t.Errorf("settings %+v accepted", s)
		}
	}
	off := newIndex(t, &index.Settings{ShortUnits: index.NoShortLayer})
	if st := off.Settings(); st.ShortUnits != index.NoShortLayer || st.ShortBands != 0 {
		t.Errorf("layer left out: %+v", st)
	}
	path := v3Copy(t)
	for _, ro := range []bool{true, false, true} {
		y, err := index.Open(path, &index.Options{ReadOnly: ro, Log: directLog})
		if err != nil {
			t.Fatal(err)
		}
		if st := y.Settings(); st.ShortUnits != index.NoShortLayer {
			t.Errorf("an index of schema 3 (read-only %v): short units %d", ro, st.ShortUnits)
		}
		if err := y.Check(); err != nil {
			t.Error(err)
		}
		y.Close()
	}
}
