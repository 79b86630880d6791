package index_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// setDoc is a document of the set-method tests with what brute force
// needs: its set, exact hash and fingerprint, computed with package shingle
// directly.
type setDoc struct {
	id    string
	text  []byte
	set   []uint64
	exact uint64
	fp    uint64
}

// setRule is a set method's rule, computed by brute force.
type setRule struct {
	method    index.Method
	minShared int
	threshold float64
	maxDist   int // the fingerprint rule too when > 0
}

// match returns whether a and b match by r and their similarity.
func (r setRule) match(a, b *setDoc) (bool, float64) {
	if empty := shingle.Combine(nil); a.exact == empty || b.exact == empty {
		return false, 0 // a text without words matches nothing
	}
	if a.exact == b.exact {
		return true, 1
	}
	fpMatch := r.maxDist > 0 && bits.OnesCount64(a.fp^b.fp) <= r.maxDist
	if len(a.set) == 0 || len(b.set) == 0 {
		return fpMatch, 0
	}
	shared := 0
	for _, h := range a.set {
		if _, ok := slices.BinarySearch(b.set, h); ok {
			shared++
		}
	}
	switch r.method {
	case index.MethodNshash:
		return fpMatch || shared >= 1, float64(shared) / float64(min(len(a.set), len(b.set)))
	default:
		sim := shingle.Overlap(a.set, b.set)
		return fpMatch || (shared >= r.minShared && sim >= r.threshold), sim
	}
}

// analyzeSetDocs fills in the sets, exact hashes and fingerprints.
func analyzeSetDocs(t *testing.T, m index.Method, docs []setDoc) {
	t.Helper()
	tok, err := shingle.NewTokenizer(nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := index.NewFingerprinter(&index.Settings{Text: index.TextSettings{Method: m}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		d := &docs[i]
		switch m {
		case index.MethodNshash:
			d.set = shingle.Set(tok.AppendLongestSentences(nil, d.text, index.DefaultSentences, ""))
		case index.MethodShort:
			d.set = tok.AppendLongestWords(nil, d.text, shingle.DefaultLongestWords, shingle.DefaultMinLetters)
		}
		d.exact = shingle.Combine(tok.AppendUnits(nil, d.text))
		d.fp = f.Sum64(d.text)
		if got := f.Set(d.text); !slices.Equal(got, d.set) {
			t.Fatalf("%s: Fingerprinter.Set %x, want %x", d.id, got, d.set)
		}
	}
}

// checkSetIndex compares QueryID, Query, Pairs, Clusters and SimilarID of x
// with brute force over docs under rule r (opts selecting the fingerprint
// rule when r.maxDist > 0). It returns the number of matching pairs.
func checkSetIndex(t *testing.T, x *index.Index, docs []setDoc, r setRule, opts *index.QueryOptions) int {
	t.Helper()
	want := map[[2]string]float64{}
	dist := map[[2]string]int{}
	byID := map[string]*setDoc{}
	ids := make([]string, len(docs))
	for i := range docs {
		byID[docs[i].id] = &docs[i]
		ids[i] = docs[i].id
		for j := i + 1; j < len(docs); j++ {
			if ok, sim := r.match(&docs[i], &docs[j]); ok {
				a, b := docs[i].id, docs[j].id
				if b < a {
					a, b = b, a
				}
				want[[2]string{a, b}] = sim
				dist[[2]string{a, b}] = bits.OnesCount64(docs[i].fp ^ docs[j].fp)
			}
		}
	}
	key := func(a, b string) [2]string {
		if b < a {
			a, b = b, a
		}
		return [2]string{a, b}
	}
	// Pairs.
	got := map[[2]string]float64{}
	err := x.Pairs(context.Background(), opts, func(p index.Pair) error {
		k := [2]string{p.A, p.B}
		if p.A >= p.B {
			t.Fatalf("pair %v not ordered", k)
		}
		if _, dup := got[k]; dup {
			t.Fatalf("pair %v reported twice", k)
		}
		if p.Distance != dist[k] {
			t.Errorf("pair %v distance %d, want %d", k, p.Distance, dist[k])
		}
		got[k] = p.Similarity
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, sim := range want {
		if g, ok := got[k]; !ok || g != sim {
			t.Errorf("pair %v similarity %v: got %v, %v", k, sim, g, ok)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("pair %v reported, not a match", k)
		}
	}
	// QueryID, and Query of the text.
	for i := range docs {
		d := &docs[i]
		var wantM []string
		for j := range docs {
			if j != i {
				if _, ok := want[key(d.id, docs[j].id)]; ok {
					wantM = append(wantM, docs[j].id)
				}
			}
		}
		slices.Sort(wantM)
		ms, err := x.QueryID(d.id, opts)
		if err != nil {
			t.Fatal(err)
		}
		var gotM []string
		for k, m := range ms {
			gotM = append(gotM, m.ID)
			if w := want[key(d.id, m.ID)]; m.Similarity != w {
				t.Errorf("QueryID(%s): %s similarity %v, want %v", d.id, m.ID, m.Similarity, w)
			}
			if k > 0 && ms[k-1].Similarity < m.Similarity {
				t.Errorf("QueryID(%s): not sorted by similarity: %v", d.id, ms)
			}
		}
		slices.Sort(gotM)
		if !slices.Equal(gotM, wantM) {
			t.Errorf("QueryID(%s) = %v, want %v", d.id, gotM, wantM)
		}
		if i%7 == 0 {
			ms, err := x.Query(d.text, opts)
			if err != nil {
				t.Fatal(err)
			}
			gotM = gotM[:0]
			for _, m := range ms {
				if m.ID != d.id {
					gotM = append(gotM, m.ID)
				}
			}
			slices.Sort(gotM)
			if len(ms) != len(gotM)+1 || !slices.Equal(gotM, wantM) {
				t.Errorf("Query(text of %s) = %v, want itself and %v", d.id, ms, wantM)
			}
		}
	}
	// Clusters and SimilarID.
	wantPairs := map[[2]string]int{}
	for k := range want {
		wantPairs[k] = 0
	}
	wantC := bruteClusters(ids, wantPairs)
	var gotC [][]string
	err = x.Clusters(context.Background(), opts, func(cl index.Cluster) error {
		gotC = append(gotC, cl.IDs)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(gotC, wantC, slices.Equal) {
		t.Errorf("clusters %v, want %v", gotC, wantC)
	}
	largest := 0
	for _, c := range wantC {
		largest = max(largest, len(c))
	}
	t.Logf("%d pairs, %d clusters, the largest of %d", len(want), len(wantC), largest)
	if opts == nil {
		rep := map[string]string{}
		size := map[string]int{}
		for _, c := range wantC {
			for _, id := range c {
				rep[id] = c[0]
				size[id] = len(c)
			}
		}
		for i, d := range docs {
			if i%4 != 0 || size[d.id] > 50 { // SimilarID walks the cluster
				continue
			}
			w := rep[d.id]
			if w == "" {
				w = d.id
			}
			if g, err := x.SimilarID(d.id); err != nil || g != w {
				t.Errorf("SimilarID(%s) = %q, %v; want %q", d.id, g, err, w)
			}
		}
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	return len(want)
}

// TestNshash checks the nshash method against brute force on the licences
// with planted near copies and on news-like texts sharing long sentences,
// loaded in bulk and added online.
func TestNshash(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	docs := licenseDocs(t)
	n := len(docs)
	for i := 0; i < n; i += 5 { // near copies: a word changed near the start
		d := docs[i]
		text := strings.Replace(string(d.text), "the", "a", 1)
		docs = append(docs, setDoc{id: "copy-" + d.id, text: []byte("Preamble. " + text)})
	}
	var long []string
	for range 12 {
		long = append(long, sentence(rng, 30))
	}
	for i := range 150 { // news: short sentences, sometimes one long one shared
		var b strings.Builder
		for range 3 + rng.IntN(6) {
			b.WriteString(sentence(rng, 4+rng.IntN(8)) + " ")
		}
		if rng.IntN(3) == 0 {
			b.WriteString(long[rng.IntN(len(long))] + "\n")
		}
		for range rng.IntN(3) {
			b.WriteString(sentence(rng, 4+rng.IntN(8)) + "\n")
		}
		docs = append(docs, setDoc{id: fmt.Sprintf("news%03d", i), text: []byte(b.String())})
	}
	docs = append(docs,
		setDoc{id: "empty1"}, setDoc{id: "empty2", text: []byte("  ...  ")},
		setDoc{id: "dup1", text: []byte("Just one sentence here.")}, setDoc{id: "dup2", text: []byte("just ONE sentence, here")})
	analyzeSetDocs(t, index.MethodNshash, docs)
	rule := setRule{method: index.MethodNshash}

	x := newIndex(t, &index.Settings{ExpectedDocs: 1000, Text: index.TextSettings{Method: index.MethodNshash}})
	if _, err := x.Load(context.Background(), seqDocs(textDocs(docs)), nil); err != nil {
		t.Fatal(err)
	}
	if np := checkSetIndex(t, x, docs, rule, nil); np < 60 {
		t.Fatalf("only %d matching pairs; plant more", np)
	}
	st, err := x.Stats()
	if err != nil || st.Method != index.MethodNshash || st.SetHashes == 0 || st.SetBytes == 0 {
		t.Fatalf("stats %+v, %v", st, err)
	}

	// Online: half loaded in batches into a non-empty index, the rest
	// added one by one.
	y := newIndex(t, &index.Settings{ExpectedDocs: 1000, Text: index.TextSettings{Method: index.MethodNshash}})
	if err := y.Add(index.Doc{ID: docs[0].id, Text: docs[0].text}); err != nil {
		t.Fatal(err)
	}
	half := len(docs) / 2
	if _, err := y.Load(context.Background(), seqDocs(textDocs(docs[1:half])), &index.LoadOptions{BatchSize: 50}); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs[half:] {
		if err := y.Add(index.Doc{ID: d.id, Text: d.text}); err != nil {
			t.Fatal(err)
		}
	}
	checkSetIndex(t, y, docs, rule, nil)
}

// TestShort checks the short-document method against brute force on short
// ads, with and without the fingerprint rule.
func TestShort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	items := strings.Fields(`sofa table wardrobe bicycle stroller fridge washer laptop
		guitar piano camera scooter mattress bookshelf armchair dresser`)
	adjs := strings.Fields(`beautiful spacious modern vintage wooden leather electric
		folding comfortable excellent original genuine portable sturdy`)
	places := strings.Fields(`downtown uptown riverside northside eastgate westfield
		harbourview lakeside`)
	var docs []setDoc
	ad := func() string {
		s := fmt.Sprintf("%s %s for sale, %s condition, %s. %s Price %d, call %d",
			adjs[rng.IntN(len(adjs))], items[rng.IntN(len(items))], adjs[rng.IntN(len(adjs))],
			places[rng.IntN(len(places))], sentence(rng, 4+rng.IntN(5)), 10+rng.IntN(500), 5550000+rng.IntN(9999))
		return s
	}
	for i := range 260 {
		text := ad()
		docs = append(docs, setDoc{id: fmt.Sprintf("ad%03d", i), text: []byte(text)})
		if rng.IntN(2) == 0 { // a repost: the case and up to 3 words changed
			f := strings.Fields(text)
			f[rng.IntN(len(f))] = strings.ToUpper(f[rng.IntN(len(f))])
			for range rng.IntN(4) {
				f[rng.IntN(len(f))] = words[rng.IntN(len(words))]
			}
			docs = append(docs, setDoc{id: fmt.Sprintf("ad%03d-re", i), text: []byte(strings.Join(f, " "))})
		}
	}
	docs = append(docs,
		setDoc{id: "tiny1", text: []byte("car")}, setDoc{id: "tiny2", text: []byte("Car!")},
		setDoc{id: "one1", text: []byte("motorcycle 2010")}, setDoc{id: "one2", text: []byte("MOTORCYCLE 2010")},
		setDoc{id: "none"})
	analyzeSetDocs(t, index.MethodShort, docs)

	x := newIndex(t, &index.Settings{ExpectedDocs: 1000, Text: index.TextSettings{Method: index.MethodShort}})
	if _, err := x.Load(context.Background(), seqDocs(textDocs(docs)), nil); err != nil {
		t.Fatal(err)
	}
	rule := setRule{method: index.MethodShort, minShared: 2, threshold: 0.8}
	if np := checkSetIndex(t, x, docs, rule, nil); np < 50 {
		t.Fatalf("only %d matching pairs; plant more", np)
	}
	// Candidates that fail the threshold exist, so the rule is tested.
	below := 0
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			if ok, sim := rule.match(&docs[i], &docs[j]); !ok && sim > 0.3 {
				below++
			}
		}
	}
	if below < 50 {
		t.Fatalf("only %d pairs below the threshold", below)
	}
	// The fingerprint rule added.
	rule.maxDist = 3
	checkSetIndex(t, x, docs, rule, &index.QueryOptions{MaxDistance: 3})

	// Other settings: 3 shared words and 0.6.
	y := newIndex(t, &index.Settings{ExpectedDocs: 1000, Text: index.TextSettings{Method: index.MethodShort, MinShared: 3, Threshold: 0.6}})
	if _, err := y.Load(context.Background(), seqDocs(textDocs(docs)), nil); err != nil {
		t.Fatal(err)
	}
	checkSetIndex(t, y, docs, setRule{method: index.MethodShort, minShared: 3, threshold: 0.6}, nil)
}

// TestSetLifecycle replaces and deletes documents of set-method indexes,
// with Check after each step, reopens them and tries conflicting settings.
func TestSetLifecycle(t *testing.T) {
	for _, m := range []index.Method{index.MethodNshash, index.MethodShort} {
		t.Run(string(m), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.simidx")
			s := &index.Settings{ExpectedDocs: 1000, Text: index.TextSettings{Method: m}}
			x, err := index.Open(path, &index.Options{Settings: s, NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			a := "Breaking news tonight. The regional council approved the new harbour bridge budget after a long debate."
			b := "Weather. The regional council approved the new harbour bridge budget after a long debate."
			c := "Something else entirely, about orchestras and museums and their volunteers."
			if err := x.Add(index.Doc{ID: "a", Text: []byte(a)}, index.Doc{ID: "b", Text: []byte(b)}, index.Doc{ID: "c", Text: []byte(c)}); err != nil {
				t.Fatal(err)
			}
			ms, err := x.QueryID("a", nil)
			if err != nil || len(ms) != 1 || ms[0].ID != "b" || ms[0].Similarity <= 0 {
				t.Fatalf("QueryID(a) = %v, %v", ms, err)
			}
			// Replace b: a has no match any more; its postings moved.
			if err := x.Add(index.Doc{ID: "b", Text: []byte(c + " Plus a few more words here.")}); err != nil {
				t.Fatal(err)
			}
			if ms, _ := x.QueryID("a", nil); len(ms) != 0 {
				t.Fatalf("after replace: %v", ms)
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			if n, err := x.Delete("c", "nope"); err != nil || n != 1 {
				t.Fatalf("Delete = %d, %v", n, err)
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			if rep, err := x.SimilarID("a"); err != nil || rep != "a" {
				t.Fatalf("SimilarID(a) = %q, %v", rep, err)
			}
			if _, err := x.SimilarID("c"); !errors.Is(err, index.ErrNotFound) {
				t.Fatalf("SimilarID(deleted) = %v", err)
			}
			if err := x.AddFingerprint("fp", 1); !errors.Is(err, index.ErrSettings) {
				t.Fatalf("precomputed fingerprint: %v", err)
			}
			// Fingerprint queries apply the fingerprint rule.
			fp, _ := x.Fingerprint("a")
			if ms, err := x.QueryFingerprint(fp, nil); err != nil || len(ms) != 1 || ms[0].ID != "a" {
				t.Fatalf("QueryFingerprint = %v, %v", ms, err)
			}
			// Delete all, then a bulk load with a repeated ID (the first
			// one's postings are dropped).
			if _, err := x.Delete("a", "b"); err != nil {
				t.Fatal(err)
			}
			docs := []index.Doc{{ID: "a", Text: []byte(a)}, {ID: "b", Text: []byte(b)}, {ID: "a", Text: []byte(c)}}
			st, err := x.Load(context.Background(), seqDocs(docs), nil)
			if err != nil || st.Replaced != 1 || x.Len() != 2 {
				t.Fatalf("load: %+v, %v, Len %d", st, err, x.Len())
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			if ms, _ := x.QueryID("b", nil); len(ms) != 0 {
				t.Fatalf("dropped document still matches: %v", ms)
			}
			want := x.Settings()
			x.Close()

			// Reopen: the method is kept; conflicting settings fail.
			x, err = index.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := x.Settings(); got.Text.Method != m || !reflect.DeepEqual(got, want) {
				t.Fatalf("reopened settings %+v, want %+v", got, want)
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			x.Close()
			if x, err = index.Open(path, &index.Options{Settings: s}); err != nil {
				t.Fatalf("same settings: %v", err)
			}
			x.Close()
			other := index.MethodShort
			if m == other {
				other = index.MethodNshash
			}
			for _, bad := range []index.TextSettings{{Method: other}, {Method: index.MethodSimhash}, {Method: m, Sentences: 3, Words: 3}} {
				if bad.Method == index.MethodNshash {
					bad.Words = 0
				} else if bad.Method == index.MethodShort {
					bad.Sentences = 0
				}
				if _, err := index.Open(path, &index.Options{Settings: &index.Settings{Text: bad}}); !errors.Is(err, index.ErrSettings) {
					t.Fatalf("conflicting %+v: %v", bad, err)
				}
			}
		})
	}
}

// TestSetSettings checks the validation of the set methods' settings.
func TestSetSettings(t *testing.T) {
	for _, s := range []index.Settings{
		{MinHash: true, Text: index.TextSettings{Method: index.MethodNshash}},
		{Text: index.TextSettings{Method: index.MethodNshash, Words: 3}},
		{Text: index.TextSettings{Method: index.MethodSimhash, Sentences: 3}},
		{Text: index.TextSettings{Method: index.MethodNshash, Sentences: 256}},
		{Text: index.TextSettings{Method: index.MethodShort, Threshold: 1.5}},
		{Text: index.TextSettings{Method: index.MethodShort, Words: 5, MinShared: 6}},
		{MinHash: true, MinBands: 15},
		{MinHash: true, NoMinHash: true},
		{NoMinHash: true, MinHashK: 42},
		{Bands: 7, Text: index.TextSettings{Method: index.MethodShort}},
	} {
		if _, err := index.NewFingerprinter(&s); !errors.Is(err, index.ErrSettings) {
			t.Errorf("%+v accepted: %v", s, err)
		}
	}
	f, err := index.NewFingerprinter(&index.Settings{Text: index.TextSettings{Method: index.MethodShort}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Set([]byte("one two three four five sixes seven eights 2024 2025"))); got != 6 {
		t.Errorf("short set of %d words, want 6 (three, four, five, sixes, seven, eights)", got)
	}
	d := index.DefaultSettings()
	if !d.MinHash || d.MinBands != 1 || d.Text.Sentences != 0 {
		t.Errorf("defaults %+v", d)
	}
}

// TestMinBands checks the "share at least 2 of 14 supershingles" rule of
// the MinHash layer against brute force.
func TestMinBands(t *testing.T) {
	t.Parallel()
	docs := licenseDocs(t)
	n := len(docs)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < n; i++ { // copies with a share of their words replaced
		f := strings.Fields(string(docs[i].text))
		for range len(f) * (1 + rng.IntN(25)) / 100 {
			f[rng.IntN(len(f))] = words[rng.IntN(len(words))]
		}
		docs = append(docs, setDoc{id: "edit-" + docs[i].id, text: []byte(strings.Join(f, " "))})
	}
	s := &index.Settings{ExpectedDocs: 1000, MinHash: true, MinBands: 2}
	fpr, err := index.NewFingerprinter(s)
	if err != nil {
		t.Fatal(err)
	}
	sigs := make([][]uint64, len(docs))
	shorts := make([][]uint64, len(docs))
	bands := make([][]uint64, len(docs))
	fps := make([]uint64, len(docs))
	for i := range docs {
		fp, sig, b := fpr.Analyze(docs[i].text)
		fps[i], sigs[i], bands[i] = fp, slices.Clone(sig), slices.Clone(b)
		shorts[i] = slices.Clone(fpr.Short(docs[i].text))
	}
	x := newIndex(t, s)
	if _, err := x.Load(context.Background(), seqDocs(textDocs(docs)), nil); err != nil {
		t.Fatal(err)
	}
	const minSim = 0.3
	opts := &index.QueryOptions{MinSimilarity: minSim}
	want := map[[2]string]bool{}
	oneBand := 0
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			shared := sharedBands(bands[i], bands[j])
			sim := layerSimilarity(sigs[i], shorts[i], sigs[j], shorts[j])
			d := bits.OnesCount64(fps[i] ^ fps[j])
			if sim >= minSim && (d <= 3 || shared >= 2) {
				a, b := docs[i].id, docs[j].id
				if b < a {
					a, b = b, a
				}
				want[[2]string{a, b}] = true
			} else if sim >= minSim && shared == 1 && d > 3 {
				oneBand++
			}
		}
	}
	got := map[[2]string]bool{}
	if err := x.Pairs(context.Background(), opts, func(p index.Pair) error {
		got[[2]string{p.A, p.B}] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) < 20 || !maps.Equal(got, want) {
		t.Fatalf("pairs: %d, want %d", len(got), len(want))
	}
	byQuery := map[[2]string]bool{}
	for _, d := range docs {
		ms, err := x.QueryID(d.id, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			a, b := d.id, m.ID
			if b < a {
				a, b = b, a
			}
			byQuery[[2]string{a, b}] = true
		}
	}
	if !maps.Equal(byQuery, want) {
		t.Fatalf("QueryID: %d pairs, want %d", len(byQuery), len(want))
	}
	t.Logf("%d pairs, %d pairs with one band only left out", len(want), oneBand)
}
