package ordered

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// count yields 0 to n-1 until yield fails.
func count(n int) func(yield func(int) error) error {
	return func(yield func(int) error) error {
		for i := range n {
			if err := yield(i); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestMapOrder(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 8} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			var got []int
			// Items of uneven cost finish out of order on several workers.
			err := Map(context.Background(), workers, count(2000), func(i int) (int, error) {
				for range (i % 7) * 100 {
					runtime.Gosched()
				}
				return i * i, nil
			}, func(r int) error {
				got = append(got, r)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int, 2000)
			for i := range want {
				want[i] = i * i
			}
			if !slices.Equal(got, want) {
				t.Fatalf("results out of order or missing: %d of %d", len(got), len(want))
			}
		})
	}
}

func TestMapErrors(t *testing.T) {
	errF, errOut, errEach := errors.New("f"), errors.New("out"), errors.New("each")
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			// f fails at item 500: out sees exactly the items before it.
			var outs int
			err := Map(context.Background(), workers, count(10000), func(i int) (int, error) {
				if i == 500 {
					return 0, errF
				}
				return i, nil
			}, func(r int) error {
				if r != outs {
					return fmt.Errorf("out got %d, want %d", r, outs)
				}
				outs++
				return nil
			})
			if !errors.Is(err, errF) || outs != 500 {
				t.Errorf("f failing: %v after %d outs, want %v after 500", err, outs, errF)
			}

			// out fails: f is not called for long after, and each stops.
			var fs atomic.Int64
			err = Map(context.Background(), workers, count(1e6), func(i int) (int, error) {
				fs.Add(1)
				return i, nil
			}, func(r int) error {
				if r == 100 {
					return errOut
				}
				return nil
			})
			if !errors.Is(err, errOut) || fs.Load() > 100+1+5*int64(workers) {
				t.Errorf("out failing: %v after %d calls of f", err, fs.Load())
			}

			// each's own error.
			err = Map(context.Background(), workers, func(yield func(int) error) error {
				if err := yield(1); err != nil {
					return err
				}
				return errEach
			}, func(i int) (int, error) { return i, nil }, func(int) error { return nil })
			if !errors.Is(err, errEach) {
				t.Errorf("each failing: %v, want %v", err, errEach)
			}
		})
	}
}

func TestMapCancel(t *testing.T) {
	for _, workers := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		var outs int
		err := Map(ctx, workers, count(1e6), func(i int) (int, error) { return i, nil }, func(r int) error {
			if outs++; outs == 10 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) || outs > 10+5*workers {
			t.Errorf("workers %d: %v after %d outs, want %v soon after 10", workers, err, outs, context.Canceled)
		}
	}
}
