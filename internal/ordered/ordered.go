// Package ordered applies a function to a stream of items on several
// goroutines and hands the results on in the stream's order, as a report
// written from a stream needs: the output is the same whatever the number
// of goroutines.
package ordered

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// errStopped is what yield returns once Map is stopping because of an
// error of f or out; Map returns that error instead.
var errStopped = errors.New("ordered: stopped")

// Map calls each with a yield function, and f on up to workers goroutines
// for every item yielded; it calls out with f's results, one at a time, in
// the order of the items. It returns the first error of f or out, else
// each's: after an error of f or out, yield returns an error that each
// should return, and f and out are called no more (on the items yielded
// before, f may be). Cancelling parent stops it the same way, with
// parent.Err(), unless every item was handed to out. A panic of f or out
// goes on in the caller's goroutine once the others have stopped. With
// workers <= 1, f and out run on the caller's goroutine as each yields,
// with no goroutine started.
//
// Cost: with workers > 1, one goroutine per worker and one for out, a
// channel operation or three per item, and at most 4*workers+1 items in
// flight (yielded and not yet handed to out), which bounds the memory.
func Map[T, R any](parent context.Context, workers int, each func(yield func(T) error) error, f func(T) (R, error), out func(R) error) error {
	if workers <= 1 {
		var first error
		err := each(func(t T) error {
			if first != nil {
				return errStopped
			}
			first = parent.Err()
			if first == nil {
				var r R
				if r, first = f(t); first == nil {
					first = out(r)
				}
			}
			return first
		})
		if first != nil {
			return first
		}
		return err
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
		skipped  bool // an item not handed to out for a cancel
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
				r, err := catch(func() (R, error) { return f(j.t) })
				j.done <- result{r, err}
			}
		})
	}
	wg.Go(func() {
		for done := range queue {
			res := <-done
			if ctx.Err() != nil {
				skipped = true
				continue // drain: the first error is kept
			}
			if res.err == nil {
				_, res.err = catch(func() (struct{}, error) { return struct{}{}, out(res.r) })
			}
			if res.err != nil {
				fail(res.err)
			}
		}
	})
	// The goroutines end whether each returns or panics; after a panic,
	// the items yielded are not handed to out.
	ended := false
	defer func() {
		if !ended {
			cancel()
			close(jobs)
			close(queue)
			wg.Wait()
		}
	}()
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
	ended = true
	close(jobs)
	close(queue)
	wg.Wait()
	var p *panicked
	switch {
	case errors.As(firstErr, &p):
		panic(p.v)
	case firstErr != nil:
		return firstErr
	case parent.Err() != nil && (skipped || errors.Is(err, errStopped)):
		return parent.Err()
	}
	return err
}

// panicked is a panic of f or out, on its way to the caller's goroutine.
type panicked struct{ v any }

func (p *panicked) Error() string { return fmt.Sprint("ordered: panic: ", p.v) }

// catch returns fn's results, or a panic of fn as a *panicked error.
func catch[R any](fn func() (R, error)) (r R, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicked{v}
		}
	}()
	return fn()
}
