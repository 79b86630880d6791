package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/testcorpus"
)

// recentCorpus returns the licence texts and near copies of them (a word
// changed here and there), shuffled.
func recentCorpus(t *testing.T, rng *rand.Rand) []index.Doc {
	var docs []index.Doc
	for i, d := range licenseDocs(t) {
		docs = append(docs, index.Doc{ID: d.id, Text: d.text})
		if i%2 == 0 {
			ws := strings.Fields(string(d.text))
			for range 1 + rng.IntN(3) {
				ws[rng.IntN(len(ws))] = words[rng.IntN(len(words))]
			}
			docs = append(docs, index.Doc{ID: d.id + "~copy", Text: []byte(strings.Join(ws, " "))})
		}
	}
	rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	return docs
}

// answers returns the default query of every ID in ids and every pair of
// x, as comparable strings.
func answers(t *testing.T, x *index.Index, ids []string) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		ms, err := x.QueryID(id, nil)
		if err != nil {
			t.Fatalf("QueryID(%q): %v", id, err)
		}
		for _, m := range ms {
			out = append(out, fmt.Sprintf("%s: %s %d %.4f", id, m.ID, m.Distance, m.Similarity))
		}
	}
	var pairs []string
	err := x.Pairs(context.Background(), nil, func(p index.Pair) error {
		pairs = append(pairs, fmt.Sprintf("pair %s %s %d %.4f", p.A, p.B, p.Distance, p.Similarity))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pairs)
	return append(out, pairs...)
}

// TestRecentBands checks the in-memory band level against an index that
// writes every band posting at each commit (RecentBands < 0): through
// adds, replacements and deletes, merges at several sizes, the band filter
// and a reopen (which rebuilds the level from the records), every query,
// every pair and Check agree.
func TestRecentBands(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	docs := recentCorpus(t, rng)
	dir := t.TempDir()
	configs := []struct {
		name string
		opts index.Options
	}{
		{"every commit", index.Options{Log: directLog, RecentBands: -1}},
		{"in memory", index.Options{Log: directLog, RecentBands: 1 << 30}},
		{"small level", index.Options{Log: directLog, RecentBands: 5}},
		{"small level, filter", index.Options{Log: directLog, RecentBands: 9, BandFilter: true}},
	}
	xs := make([]*index.Index, len(configs))
	open := func(i int) {
		o := configs[i].opts
		o.NoSync = true
		x, err := index.Open(filepath.Join(dir, fmt.Sprint(i)), &o)
		if err != nil {
			t.Fatal(err)
		}
		xs[i] = x
	}
	for i := range configs {
		open(i)
	}
	defer func() {
		for _, x := range xs {
			x.Close()
		}
	}()
	live := map[string]bool{}
	compare := func(step string) {
		t.Helper()
		var ids []string
		for id := range live {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		want := answers(t, xs[0], ids)
		for i, x := range xs {
			if err := x.Check(); err != nil {
				t.Fatalf("%s, %s: Check: %v", step, configs[i].name, err)
			}
			if i == 0 {
				continue
			}
			if got := answers(t, x, ids); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %s: answers differ from %s:\ngot  %q\nwant %q", step, configs[i].name, configs[0].name, got, want)
			}
		}
	}
	pairs := 0
	for step := 0; len(docs) > 0; step++ {
		n := min(len(docs), 1+rng.IntN(8))
		batch := docs[:n]
		docs = docs[n:]
		// Now and then a replacement: an ID stored before, with the text
		// of another document.
		if step%3 == 2 && len(live) > 0 {
			for id := range live {
				batch = append(batch, index.Doc{ID: id, Text: batch[0].Text})
				break
			}
		}
		for _, x := range xs {
			if err := x.Add(batch...); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range batch {
			live[d.ID] = true
		}
		if step%4 == 3 {
			var del []string
			for id := range live {
				if len(del) < 2 {
					del = append(del, id)
				}
			}
			for _, x := range xs {
				if _, err := x.Delete(del...); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range del {
				delete(live, id)
			}
		}
		compare(fmt.Sprint("step ", step))
		if step == 6 {
			// A reopen rebuilds the level from the records.
			for i := 1; i < len(xs); i++ {
				xs[i].Close()
				open(i)
			}
			compare("after reopen")
		}
	}
	for _, a := range answers(t, xs[0], nil) {
		if strings.HasPrefix(a, "pair ") {
			pairs++
		}
	}
	if pairs == 0 {
		t.Fatal("no pairs: the test planted none")
	}
	st, err := xs[1].Stats()
	if err != nil || st.RecentBands == 0 || st.SchemaVersion != index.SchemaVersion {
		t.Fatalf("stats of the in-memory index: %+v, %v", st, err)
	}
	if st, _ := xs[0].Stats(); st.RecentBands != 0 {
		t.Fatalf("the index that merges at every commit has %d recent documents", st.RecentBands)
	}
}

// TestRecentBandsConcurrent queries while a writer adds and merges often:
// a document whose add returned before a query began is found by it (an
// exact copy always matches), whether its bands are in memory, in the
// level a merge is retiring, or in the bucket.
func TestRecentBandsConcurrent(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	docs := recentCorpus(t, rng)
	x, err := index.Open(filepath.Join(t.TempDir(), "c.simidx"), &index.Options{Log: directLog, NoSync: true, RecentBands: 4, BandFilter: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	// Every fourth add runs with no query in flight (gate), so that the
	// merges, which start and retire levels only when no reader holds the
	// index, get their turn however busy the machine; the other adds and
	// the merge slices run among the queries.
	var gate sync.RWMutex
	var added atomic.Int64 // docs[:added] are committed
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(uint64(r), 9))
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := int(added.Load())
				if n == 0 {
					continue
				}
				d := docs[rr.IntN(n)]
				gate.RLock()
				ms, err := x.Query(d.Text, nil)
				gate.RUnlock()
				if err != nil {
					errs <- err
					return
				}
				found := false
				for _, m := range ms {
					found = found || m.ID == d.ID
				}
				if !found {
					errs <- fmt.Errorf("query of %q does not find it: %v", d.ID, ms)
					return
				}
			}
		}()
	}
	for i := range docs {
		if i%4 == 3 {
			gate.Lock()
		}
		err := x.Add(docs[i])
		if i%4 == 3 {
			gate.Unlock()
		}
		if err != nil {
			t.Fatal(err)
		}
		added.Store(int64(i + 1))
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	if st, err := x.Stats(); err != nil || st.RecentBands >= len(docs)/2 {
		t.Errorf("%d of %d documents still in the band level (%v): the merges did not run", st.RecentBands, len(docs), err)
	}
}

// TestUpgradeVersion1 opens a copy of the version 1 file for writing: it
// becomes a file of the current version that still answers as before and
// takes adds.
func TestUpgradeVersion1(t *testing.T) {
	t.Parallel()
	path := v1Copy(t)
	x, err := index.Open(path, &index.Options{Log: directLog})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Add(index.Doc{ID: "copy", Text: []byte("Пример текста, который будет добавлен в индекс после обновления версии файла.")}); err != nil {
		t.Fatal(err)
	}
	x.Close()
	x, err = index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	st, err := x.Stats()
	if err != nil || st.SchemaVersion != index.SchemaVersion || st.Docs != 13 || st.RecentBands != 1 {
		t.Fatalf("stats after the upgrade: %+v, %v", st, err)
	}
	ms, err := x.QueryID("fortune:ru/2001.06:78", &index.QueryOptions{MinSimilarity: 0.5})
	if err != nil || len(ms) == 0 || ms[0].ID != "fortune:ru/2001.09:26" {
		t.Fatalf("query of the upgraded file: %v, %v", ms, err)
	}
	ms, err = x.Query([]byte("Пример текста, который будет добавлен в индекс после обновления версии файла."), nil)
	if err != nil || len(ms) != 1 || ms[0].ID != "copy" {
		t.Fatalf("query of the document added after the upgrade: %v, %v", ms, err)
	}
}

// TestUpgradeVersion2 reads a copy of the version 2 file, whose online adds
// have their table entries in the tables bucket, read-only and then for
// writing: it becomes a file of the current version, whose new documents'
// entries go to the in-memory table level, and answers as before through
// adds, a merge of the levels and a reopen.
func TestUpgradeVersion2(t *testing.T) {
	t.Parallel()
	docs, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	path := v2Copy(t)
	fpRule := &index.QueryOptions{MinSimilarity: index.NoMinSimilarity}
	check := func(x *index.Index, when string, version int, extra ...string) {
		t.Helper()
		if err := x.Check(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		st, err := x.Stats()
		if err != nil || st.SchemaVersion != version || st.Docs != 12+len(extra) {
			t.Fatalf("%s: stats %+v, %v", when, st, err)
		}
		// The copy and the first document find each other by fingerprint
		// and by bands; the deleted and replaced documents are gone.
		for _, q := range [][2]string{{"copy", docs[0].ID}, {docs[0].ID, "copy"}} {
			for _, o := range []*index.QueryOptions{fpRule, nil} {
				ms, err := x.QueryID(q[0], o)
				if err != nil || len(ms) == 0 || ms[0].ID != q[1] {
					t.Fatalf("%s: query of %s (%+v): %v, %v, want %s", when, q[0], o, ms, err, q[1])
				}
			}
		}
		if _, err := x.Get(docs[2].ID); !errors.Is(err, index.ErrNotFound) {
			t.Fatalf("%s: the deleted document: %v", when, err)
		}
		ms, err := x.Query([]byte(docs[1].Text), fpRule)
		if err != nil || slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == docs[1].ID }) {
			t.Fatalf("%s: the replaced text still finds its old ID: %v, %v", when, ms, err)
		}
		for _, id := range extra {
			ms, err := x.QueryID(id, fpRule)
			if err != nil || len(ms) == 0 || ms[0].ID != docs[3].ID {
				t.Fatalf("%s: query of %s: %v, %v", when, id, ms, err)
			}
		}
	}
	x, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "version 2, read-only", 2)
	x.Close()

	x, err = index.Open(path, &index.Options{Log: directLog})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "upgraded", index.SchemaVersion)
	if err := x.Add(index.Doc{ID: "copy3", Text: []byte(docs[3].Text + " Again.")}); err != nil {
		t.Fatal(err)
	}
	check(x, "after an add", index.SchemaVersion, "copy3")
	x.Close()

	// A merge of the levels after every commit.
	x, err = index.Open(path, &index.Options{Log: directLog, RecentBands: -1})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "reopened", index.SchemaVersion, "copy3")
	if err := x.Add(index.Doc{ID: "copy3b", Text: []byte(docs[3].Text + " Once more.")}); err != nil {
		t.Fatal(err)
	}
	check(x, "after a merge", index.SchemaVersion, "copy3", "copy3b")
	x.Close()
	x, err = index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	check(x, "merged, read-only", index.SchemaVersion, "copy3", "copy3b")
}

// TestUpgradeVersion3 opens a schema 3 file read-only, then for writing,
// which upgrades it to schema 4: its exact keys from the band watermark on
// stay in the exact bucket, where schema 4 keeps them in the band level.
// A replace of "copy" by another text must remove its old key (Check counts
// every key of the bucket against the records), an exact copy of a text in
// the level is found, and the file checks after a merge and a reopen.
func TestUpgradeVersion3(t *testing.T) {
	t.Parallel()
	docs, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	path := v3Copy(t)
	check := func(x *index.Index, when string, version int) {
		t.Helper()
		if err := x.Check(); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if st, err := x.Stats(); err != nil || st.SchemaVersion != version || st.Docs != 12 {
			t.Fatalf("%s: stats %+v, %v", when, st, err)
		}
	}
	x, err := index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "version 3, read-only", 3)
	if ms, err := x.QueryID("copy", nil); err != nil || len(ms) == 0 || ms[0].ID != docs[0].ID {
		t.Fatalf("version 3: query of copy: %v, %v", ms, err)
	}
	x.Close()

	x, err = index.Open(path, &index.Options{Log: directLog})
	if err != nil {
		t.Fatal(err)
	}
	check(x, "upgraded", index.SchemaVersion)
	copyText := []byte(docs[0].Text + " And one more sentence.")
	if ms, err := x.Query(copyText, nil); err != nil || !slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == "copy" && m.Similarity == 1 }) {
		t.Fatalf("upgraded: the text of copy: %v, %v", ms, err)
	}
	if err := x.Add(index.Doc{ID: "copy", Text: []byte(docs[3].Text + " Again.")}); err != nil {
		t.Fatal(err)
	}
	check(x, "copy replaced", index.SchemaVersion)
	if ms, err := x.Query(copyText, nil); err != nil || slices.ContainsFunc(ms, func(m index.Match) bool { return m.ID == "copy" }) {
		t.Fatalf("copy replaced: its old text still finds it: %v, %v", ms, err)
	}
	// An exact copy of a text added after the upgrade, in the level only.
	if st, err := x.Load(context.Background(), func(yield func(index.Doc, error) bool) {
		yield(index.Doc{ID: "copy2", Text: []byte(docs[3].Text + " Again.")}, nil)
	}, nil); err != nil || st.ExactDuplicates != 1 {
		t.Fatalf("an exact copy of the new copy: %+v, %v", st, err)
	}
	x.Close()

	// A merge of the levels after every commit (an add's), which writes
	// the exact keys of the level into the bucket.
	x, err = index.Open(path, &index.Options{Log: directLog, RecentBands: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Delete("copy2"); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(index.Doc{ID: "copy3", Text: []byte(docs[4].Text + " Once more.")}); err != nil {
		t.Fatal(err)
	}
	if st, err := x.Stats(); err != nil || st.RecentBands != 0 {
		t.Fatalf("after an add that merges: %+v, %v", st, err)
	}
	if _, err := x.Delete("copy3"); err != nil {
		t.Fatal(err)
	}
	check(x, "after a merge", index.SchemaVersion)
	x.Close()
	x, err = index.Open(path, &index.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	check(x, "merged, read-only", index.SchemaVersion)
	if ms, err := x.QueryID("copy", nil); err != nil || len(ms) == 0 || ms[0].ID != docs[3].ID {
		t.Fatalf("merged: query of copy: %v, %v", ms, err)
	}
}

// TestMergeSlices checks the merge of the levels a slice (a table or a
// band) per commit against an index that merges at once: after every
// commit, with replaces and deletes between slices and a reopen after
// every commit (which finds the merge under way in the file and goes on
// with it), every query, every pair and Check agree, and the levels empty
// once a merge is over.
func TestMergeSlices(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	docs := recentCorpus(t, rng)
	dir := t.TempDir()
	ref, err := index.Open(filepath.Join(dir, "ref"), &index.Options{Log: directLog, NoSync: true, RecentBands: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	path := filepath.Join(dir, "sliced")
	open := func() *index.Index {
		x, err := index.Open(path, &index.Options{Log: directLog, NoSync: true, RecentBands: 12})
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x := open()
	defer func() { x.Close() }()
	live := map[string]bool{}
	merged := false // a merge ran to its end
	prev := 0
	for step := 0; len(docs) > 0; step++ {
		n := min(len(docs), 1+rng.IntN(4))
		batch := docs[:n]
		docs = docs[n:]
		if step%3 == 1 && len(live) > 0 {
			for id := range live {
				batch = append(batch, index.Doc{ID: id, Text: batch[0].Text})
				break
			}
		}
		for _, y := range []*index.Index{ref, x} {
			if err := y.Add(batch...); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range batch {
			live[d.ID] = true
		}
		if step%4 == 2 {
			for id := range live {
				for _, y := range []*index.Index{ref, x} {
					if _, err := y.Delete(id); err != nil {
						t.Fatal(err)
					}
				}
				delete(live, id)
				break
			}
		}
		var ids []string
		for id := range live {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if err := x.Check(); err != nil {
			t.Fatalf("step %d: Check: %v", step, err)
		}
		if got, want := answers(t, x, ids), answers(t, ref, ids); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: answers differ:\ngot  %q\nwant %q", step, got, want)
		}
		st, err := x.Stats()
		if err != nil {
			t.Fatal(err)
		}
		merged = merged || st.RecentTables < prev
		prev = st.RecentTables
		x.Close()
		x = open()
	}
	if !merged {
		t.Fatal("no merge ran to its end: the test merged nothing")
	}
}
