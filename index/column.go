package index

// column is a sequence of values appended one by one, held in blocks of
// columnBlock values, so that appending never copies the values held (a
// slice grown by append copies them at each growth, 4 times over in all at
// Go's growth of large slices, and faults in new memory each time): the
// per-document hashes of a bulk load of 10^7 documents take 80 MB each.
// Its memory is its values and a slice header per block.
type column[T any] struct {
	blocks [][]T
	n      int
}

// columnShift is log2 of columnBlock.
const columnShift = 16

// columnBlock is the number of values of a block: 512 kB of uint64.
const columnBlock = 1 << columnShift

// len returns the number of values.
func (c *column[T]) len() int { return c.n }

// append adds v at the end.
func (c *column[T]) append(v T) {
	if c.n&(columnBlock-1) == 0 && c.n>>columnShift == len(c.blocks) {
		c.blocks = append(c.blocks, make([]T, 0, columnBlock))
	}
	b := &c.blocks[c.n>>columnShift]
	*b = append(*b, v)
	c.n++
}

// at returns value i.
func (c *column[T]) at(i int) T { return c.blocks[i>>columnShift][i&(columnBlock-1)] }

// set replaces value i.
func (c *column[T]) set(i int, v T) { c.blocks[i>>columnShift][i&(columnBlock-1)] = v }

// truncate keeps the first n values (n <= len), and the memory of the
// blocks they use.
func (c *column[T]) truncate(n int) {
	if n >= c.n {
		return
	}
	keep := (n + columnBlock - 1) >> columnShift
	clear(c.blocks[keep:])
	c.blocks = c.blocks[:keep]
	if keep > 0 {
		c.blocks[keep-1] = c.blocks[keep-1][:n-(keep-1)<<columnShift]
	}
	c.n = n
}

// all yields the values in order with their positions.
func (c *column[T]) all(yield func(int, T) bool) {
	for b, blk := range c.blocks {
		base := b << columnShift
		for j, v := range blk {
			if !yield(base+j, v) {
				return
			}
		}
	}
}
