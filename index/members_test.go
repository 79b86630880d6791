package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/shingle"
)

// TestMembersCompare checks that Members lists every document in the
// order of addition, and Compare what the index knows of two documents
// against values computed here.
func TestMembersCompare(t *testing.T) {
	t.Parallel()
	docs := verifyCorpus(t)[:120]
	docs = append(docs, index.Doc{ID: "copy", Text: append([]byte("  "), docs[0].Text...)}, index.Doc{ID: "nothing", Text: []byte("...")})
	x := newIndex(t, &index.Settings{StoreShingles: true})
	if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
		t.Fatal(err)
	}
	var seq []string
	last := -1
	err := x.Members(context.Background(), func(m index.Member) error {
		if int(m.Seq) <= last {
			t.Fatalf("member %s out of order", m.ID)
		}
		last = int(m.Seq)
		seq = append(seq, m.ID)
		return nil
	})
	if err != nil || len(seq) != len(docs) {
		t.Fatalf("members: %d of %d, %v", len(seq), len(docs), err)
	}
	for i := range docs {
		if seq[i] != docs[i].ID {
			t.Fatalf("member %d is %s, want %s", i, seq[i], docs[i].ID)
		}
	}
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(docs); i += 3 {
		a, b := docs[i], docs[i+1]
		fa, sa, _ := f.Analyze(a.Text)
		sa = append([]uint64(nil), sa...)
		fb, sb, _ := f.Analyze(b.Text)
		setA := append([]uint64(nil), f.Shingles(a.Text)...)
		setB := f.Shingles(b.Text)
		p, err := x.Compare(a.ID, b.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		shA := append([]uint64(nil), f.Short(a.Text)...)
		shB := f.Short(b.Text)
		empty := len(setA) == 0 || len(setB) == 0
		want := layerSimilarity(sa, shA, sb, shB)
		if empty {
			want = 0
		}
		if p.Distance != bits.OnesCount64(fa^fb) || p.Similarity != want {
			t.Errorf("Compare(%s, %s) = %+v, want distance %d similarity %v", a.ID, b.ID, p, bits.OnesCount64(fa^fb), want)
		}
		v, err := x.Compare(a.ID, b.ID, &index.QueryOptions{Verify: true})
		want = shingle.Jaccard(setA, setB)
		if len(shA) > 0 && len(shB) > 0 {
			want = shingle.Jaccard(shA, shB) // two short texts: exact already
		}
		if empty {
			want = 0
		}
		if err != nil || v.Similarity != want {
			t.Errorf("verified Compare(%s, %s) = %+v, %v, want similarity %v", a.ID, b.ID, v, err, want)
		}
	}
	if p, err := x.Compare(docs[0].ID, "copy", nil); err != nil || !p.Exact || p.Similarity != 1 || p.Distance != 0 {
		t.Errorf("exact copy: %+v, %v", p, err)
	}
	if p, err := x.Compare("nothing", "nothing", nil); err != nil || p.Exact || p.Similarity != 0 {
		t.Errorf("an empty text against itself: %+v, %v", p, err)
	}
	if _, err := x.Compare("copy", "no such", nil); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("missing document: %v", err)
	}

	// CompareAll is Compare for each, in order, with and without Verify.
	var ids []string
	for _, d := range docs[:40] {
		ids = append(ids, d.ID)
	}
	ids = append(ids, "copy", "nothing", docs[0].ID)
	for _, o := range []*index.QueryOptions{nil, {Verify: true}} {
		ps, err := x.CompareAll(docs[0].ID, ids, o)
		if err != nil || len(ps) != len(ids) {
			t.Fatalf("CompareAll: %d pairs of %d, %v", len(ps), len(ids), err)
		}
		for i, b := range ids {
			if p, err := x.Compare(docs[0].ID, b, o); err != nil || ps[i] != p {
				t.Errorf("CompareAll(%s)[%d] = %+v, Compare = %+v, %v", docs[0].ID, i, ps[i], p, err)
			}
		}
	}
	if ps, err := x.CompareAll(docs[0].ID, nil, nil); err != nil || len(ps) != 0 {
		t.Errorf("CompareAll with no others: %v, %v", ps, err)
	}
	for _, c := range [][]string{{"no such"}, {"copy", "no such"}} {
		if _, err := x.CompareAll("copy", c, nil); !errors.Is(err, index.ErrNotFound) {
			t.Errorf("CompareAll with missing %q: %v", c, err)
		}
	}
	if _, err := x.CompareAll("no such", ids, nil); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("CompareAll of a missing document: %v", err)
	}

	// CompareMembers is CompareAll of the members' IDs, with Members that
	// are current and with some that the index has changed since: a
	// document replaced (same Seq, new text), one deleted and added again
	// (a new Seq), and one deleted.
	byID := map[string]index.Member{}
	if err := x.Members(context.Background(), func(m index.Member) error { byID[m.ID] = m; return nil }); err != nil {
		t.Fatal(err)
	}
	members := func(ids []string) []index.Member {
		var ms []index.Member
		for _, id := range ids {
			ms = append(ms, byID[id])
		}
		return ms
	}
	sameAsAll := func(when string) {
		t.Helper()
		for _, o := range []*index.QueryOptions{nil, {Verify: true}} {
			want, err := x.CompareAll(docs[0].ID, ids, o)
			if err != nil {
				t.Fatal(err)
			}
			got, err := x.CompareMembers(byID[docs[0].ID], members(ids), o)
			if err != nil {
				t.Fatalf("%s: CompareMembers: %v", when, err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s: CompareMembers[%d] = %+v, CompareAll = %+v", when, i, got[i], want[i])
				}
			}
		}
	}
	sameAsAll("members current")
	if err := x.Add(index.Doc{ID: docs[5].ID, Text: docs[9].Text}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Delete(docs[6].ID, docs[7].ID); err != nil {
		t.Fatal(err)
	}
	if err := x.Add(index.Doc{ID: docs[6].ID, Text: docs[6].Text}); err != nil {
		t.Fatal(err)
	}
	ids = slices.DeleteFunc(ids, func(id string) bool { return id == docs[7].ID })
	sameAsAll("members changed since")
	if _, err := x.CompareMembers(byID[docs[0].ID], members([]string{docs[7].ID}), nil); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("CompareMembers with a deleted member: %v", err)
	}
	if _, err := x.CompareMembers(byID[docs[7].ID], members(ids), nil); !errors.Is(err, index.ErrNotFound) {
		t.Errorf("CompareMembers of a deleted member: %v", err)
	}
}

// TestCompareMembersShapes compares, in turn, each document of a mix of
// short texts (with a short set), long ones (without) and an empty one
// with all the others through CompareMembers, whose records are decoded
// into the same pooled records from one comparison to the next: every
// result is Compare's, with and without Verify.
func TestCompareMembersShapes(t *testing.T) {
	t.Parallel()
	long := verifyCorpus(t)[:8]
	var docs []index.Doc
	for i, s := range []string{
		"the quick brown fox jumps over the lazy dog",
		"the quick brown fox jumped over the lazy dog",
		"a stitch in time saves nine, as the old saying goes",
		"a stitch in time saves nine as the saying goes",
		"...",
	} {
		docs = append(docs, index.Doc{ID: fmt.Sprint("short", i), Text: []byte(s)}, long[i])
	}
	docs = append(docs, long[5:]...)
	x := newIndex(t, &index.Settings{StoreShingles: true})
	if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
		t.Fatal(err)
	}
	var ms []index.Member
	if err := x.Members(context.Background(), func(m index.Member) error { ms = append(ms, m); return nil }); err != nil {
		t.Fatal(err)
	}
	f, err := index.NewFingerprinter(nil)
	if err != nil {
		t.Fatal(err)
	}
	shorts := 0
	for _, d := range docs {
		if len(f.Short(d.Text)) > 0 {
			shorts++
		}
	}
	if shorts < 4 || shorts == len(docs) {
		t.Fatalf("%d of %d texts have a short set: want both kinds", shorts, len(docs))
	}
	for _, o := range []*index.QueryOptions{nil, {Verify: true}} {
		for i, k := range ms {
			others := append(slices.Clone(ms[:i]), ms[i+1:]...)
			ps, err := x.CompareMembers(k, others, o)
			if err != nil || len(ps) != len(others) {
				t.Fatalf("CompareMembers(%s): %d pairs of %d, %v", k.ID, len(ps), len(others), err)
			}
			for j, m := range others {
				if p, err := x.Compare(k.ID, m.ID, o); err != nil || ps[j] != p {
					t.Errorf("CompareMembers(%s)[%s] = %+v, Compare = %+v, %v", k.ID, m.ID, ps[j], p, err)
				}
			}
		}
	}
}
