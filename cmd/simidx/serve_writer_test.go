package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupLatest checks groupLatest against a scan of the group, through
// appends, cuts back (a failed request) and appends after them.
func TestGroupLatest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var gl groupLatest
	var ops []*pendingOp
	for step := range 3000 {
		switch r := rng.IntN(10); {
		case r == 0 && len(ops) > 0:
			ops = ops[:rng.IntN(len(ops))]
		default:
			ops = append(ops, &pendingOp{id: fmt.Sprint("d", rng.IntN(50)), del: rng.IntN(4) == 0})
		}
		id := fmt.Sprint("d", rng.IntN(60))
		var want *pendingOp
		for _, op := range slices.Backward(ops) {
			if op.id == id {
				want = op
				break
			}
		}
		if got := gl.latest(ops, id); got != want {
			t.Fatalf("step %d, %d operations: latest(%s) = %p, want %p", step, len(ops), id, got, want)
		}
	}
}
