package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestConcurrentQueriesWhileAdding runs queries on several goroutines while
// one goroutine adds, deletes and loads. Every query must see a consistent
// snapshot: a document it finds has its stored fingerprint.
func TestConcurrentQueriesWhileAdding(t *testing.T) {
	x := newIndex(t, &index.Settings{ExpectedDocs: 10000})
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for !stop.Load() {
				i := rng.IntN(3000)
				ms, err := x.QueryFingerprint(childFP(i), nil)
				if err != nil {
					errs <- err
					return
				}
				for _, m := range ms {
					if m.ID == fmt.Sprint("c", i) && m.Distance != 0 {
						errs <- fmt.Errorf("%s at distance %d", m.ID, m.Distance)
						return
					}
				}
				if _, err := x.QueryID(fmt.Sprint("c", i), nil); err != nil && !isNotFound(err) {
					errs <- err
					return
				}
				x.Len()
			}
		}()
	}
	for b := range 30 {
		var docs []index.Doc
		for i := b * 100; i < b*100+100; i++ {
			docs = append(docs, index.Doc{ID: fmt.Sprint("c", i), Fingerprint: childFP(i), Precomputed: true})
		}
		if err := x.Add(docs...); err != nil {
			t.Fatal(err)
		}
		if b%5 == 4 {
			if _, err := x.Delete(fmt.Sprint("c", b*100)); err != nil {
				t.Fatal(err)
			}
		}
	}
	more := &corpus{}
	for i := range 2000 {
		more.add(childFP(i + 5000))
	}
	if _, err := x.Load(context.Background(), more.docs(), &index.LoadOptions{BatchSize: 500}); err != nil {
		t.Fatal(err)
	}
	stop.Store(true)
	waitErrs(t, &wg, errs)
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
}

func isNotFound(err error) bool { return errors.Is(err, index.ErrNotFound) }
