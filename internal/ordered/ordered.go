// Package ordered applies a function to a stream of items on several
// goroutines and hands the results on in the stream's order, as a report
// written from a stream needs: the output is the same whatever the number
// of goroutines.
package ordered

import (
	"context"
	"errors"
	"sync"
)

// errStopped is what yield returns once Map is stopping because of an
// error of f or out; Map returns that error instead.
var errStopped = errors.New("ordered: stopped")

// Map calls each with a yield function, and f on up to workers goroutines
// for every item yielded; it calls out with f's results, one at a time, in
// the order of the items. It returns the first error of each, f or out:
// after an error of f or out, yield returns an error that each should
// return (Map returns the first error instead). With workers <= 1, f and
// out run on the caller's goroutine as each yields, with no goroutine
// started.
//
// Cost: with workers > 1, one goroutine per worker and one for out, a
// channel operation or three per item, and at most 4*workers+1 items in
// flight (yielded and not yet handed to out), which bounds the memory.
func Map[T, R any](parent context.Context, workers int, each func(yield func(T) error) error, f func(T) (R, error), out func(R) error) error {
	if workers <= 1 {
		return each(func(t T) error {
			if err := parent.Err(); err != nil {
				return err
			}
			r, err := f(t)
			if err != nil {
				return err
			}
			return out(r)
		})
	}
	type result struct {
		r   R
		err error
	}
	type job struct {
		t    T
		done chan result
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var (
		once     sync.Once
		firstErr error
	)
	fail := func(err error) {
		once.Do(func() { firstErr = err })
		cancel()
	}
	jobs := make(chan job, workers)
	queue := make(chan chan result, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				if ctx.Err() != nil {
					j.done <- result{err: ctx.Err()}
					continue
				}
				r, err := f(j.t)
				j.done <- result{r, err}
			}
		})
	}
	wg.Go(func() {
		for done := range queue {
			res := <-done
			if ctx.Err() != nil {
				continue // drain: the first error is kept
			}
			if res.err == nil {
				res.err = out(res.r)
			}
			if res.err != nil {
				fail(res.err)
			}
		}
	})
	err := each(func(t T) error {
		if ctx.Err() != nil {
			return errStopped
		}
		done := make(chan result, 1)
		select {
		case queue <- done:
		case <-ctx.Done():
			return errStopped
		}
		jobs <- job{t, done} // workers always receive until jobs closes
		return nil
	})
	close(jobs)
	close(queue)
	wg.Wait()
	switch {
	case firstErr != nil:
		return firstErr
	case parent.Err() != nil:
		return parent.Err()
	}
	return err
}
