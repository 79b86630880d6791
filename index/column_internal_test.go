package index

import (
	"slices"
	"testing"
)

// TestColumn checks a column against a slice through appends across
// blocks, truncations inside a block, at a block's end and to zero, and
// appends after them.
func TestColumn(t *testing.T) {
	var c column[uint64]
	var want []uint64
	check := func(step string) {
		t.Helper()
		if c.len() != len(want) {
			t.Fatalf("%s: length %d, want %d", step, c.len(), len(want))
		}
		var got []uint64
		for i, v := range c.all {
			if i != len(got) {
				t.Fatalf("%s: position %d yielded as %d", step, len(got), i)
			}
			got = append(got, v)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: values differ from the slice's", step)
		}
		for _, i := range []int{0, len(want) / 3, len(want) - 1} {
			if i >= 0 && i < len(want) && c.at(i) != want[i] {
				t.Fatalf("%s: value %d is %d, want %d", step, i, c.at(i), want[i])
			}
		}
	}
	add := func(n int) {
		for range n {
			v := uint64(len(want))*0x9e3779b97f4a7c15 + 1
			c.append(v)
			want = append(want, v)
		}
	}
	add(2*columnBlock + 10)
	check("appended")
	c.set(columnBlock+1, 7)
	want[columnBlock+1] = 7
	check("set")
	for _, n := range []int{2*columnBlock + 3, 2 * columnBlock, columnBlock - 1, 0} {
		c.truncate(n)
		want = want[:n]
		check("truncated")
		add(columnBlock + 5)
		check("appended after truncating")
	}
	c.truncate(c.len() + 1) // no-op
	check("truncated past the end")
}
