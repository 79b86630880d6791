package index_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestLoadCancel cancels loads midway, into an empty and a non-empty
// index, and by a failing source: what was read before is committed, the
// error is returned, and the index is consistent.
func TestLoadCancel(t *testing.T) {
	errSource := errors.New("source broke")
	for _, tc := range []struct {
		name    string
		prefill bool
		fail    error // the source fails instead of the context being cancelled
	}{
		{name: "empty"},
		{name: "non-empty", prefill: true},
		{name: "source-error", fail: errSource},
		{name: "source-error-non-empty", prefill: true, fail: errSource},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newIndex(t, &index.Settings{ExpectedDocs: 10000})
			if tc.prefill {
				if err := x.AddFingerprint("pre", 1); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const stopAt = 5000
			src := func(yield func(index.Doc, error) bool) {
				for i := 0; ; i++ {
					if i == stopAt {
						if tc.fail != nil {
							yield(index.Doc{}, tc.fail)
							return
						}
						cancel()
					}
					if !yield(index.Doc{ID: "c" + strconv.Itoa(i), Text: []byte("document " + strconv.Itoa(i) + " has some words")}, nil) {
						return
					}
				}
			}
			st, err := x.Load(ctx, src, &index.LoadOptions{BatchSize: 1000})
			want := error(context.Canceled)
			if tc.fail != nil {
				want = tc.fail
			}
			if !errors.Is(err, want) {
				t.Fatalf("Load: %v, want %v", err, want)
			}
			if st.Committed < stopAt-256 || st.Committed > stopAt+256 || st.Committed != st.Docs {
				t.Fatalf("stats %+v", st)
			}
			pre := 0
			if tc.prefill {
				pre = 1
			}
			if x.Len() != int(st.Committed)+pre {
				t.Fatalf("Len %d, committed %d", x.Len(), st.Committed)
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			if ms, err := x.QueryID("c17", nil); err != nil {
				t.Fatal(err)
			} else {
				_ = ms
			}
		})
	}
}

func TestLoadSkipInvalid(t *testing.T) {
	x := newIndex(t, nil)
	docs := []index.Doc{{ID: "a", Text: []byte("x")}, {ID: "", Text: []byte("y")}, {ID: "b", Text: make([]byte, index.MaxDocSize+1)}, {ID: "c", Text: []byte("z")}}
	src := func(yield func(index.Doc, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}
	st, err := x.Load(context.Background(), src, &index.LoadOptions{SkipInvalid: true})
	if err != nil || st.Skipped != 2 || x.Len() != 2 {
		t.Fatalf("skip: %+v, %v, Len %d", st, err, x.Len())
	}
	y := newIndex(t, nil)
	st, err = y.Load(context.Background(), src, nil)
	if !errors.Is(err, index.ErrInvalidID) || y.Len() != 1 {
		t.Fatalf("no skip: %+v, %v, Len %d", st, err, y.Len())
	}
}
