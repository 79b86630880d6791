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

// TestMapEachIgnoresStop checks that the first error of f is returned on
// one goroutine as on several when each wraps yield's error, and when it
// ignores it (out is then not called again).
func TestMapEachIgnoresStop(t *testing.T) {
	errF := errors.New("f")
	for _, workers := range []int{1, 3} {
		for _, ignore := range []bool{false, true} {
			var outs int
			err := Map(context.Background(), workers, func(yield func(int) error) error {
				for i := range 1000 {
					if err := yield(i); err != nil && !ignore {
						return fmt.Errorf("item %d: %w", i, err)
					}
				}
				return nil
			}, func(i int) (int, error) {
				if i == 10 {
					return 0, errF
				}
				return i, nil
			}, func(int) error {
				outs++
				return nil
			})
			if err != errF || outs != 10 {
				t.Errorf("workers %d, each ignoring errors %v: %v after %d outs, want %v after 10", workers, ignore, err, outs, errF)
			}
		}
	}
}

// TestMapPanics checks that a panic of f, of out or of each reaches the
// caller's goroutine.
func TestMapPanics(t *testing.T) {
	for _, workers := range []int{1, 2} {
		for _, where := range []string{"f", "out", "each"} {
			got := func() (v any) {
				defer func() { v = recover() }()
				_ = Map(context.Background(), workers, func(yield func(int) error) error {
					for i := range 100 {
						if where == "each" && i == 50 {
							panic("each")
						}
						if err := yield(i); err != nil {
							return err
						}
					}
					return nil
				}, func(i int) (int, error) {
					if where == "f" && i == 20 {
						panic("f")
					}
					return i, nil
				}, func(i int) error {
					if where == "out" && i == 30 {
						panic("out")
					}
					return nil
				})
				return nil
			}()
			if got != where {
				t.Errorf("workers %d: a panic of %s recovered as %v", workers, where, got)
			}
		}
	}
}
