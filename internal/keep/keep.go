// Package keep chooses the member of each cluster of near duplicates that
// dedup keeps, by a policy, and writes the input lines of the documents
// kept: a corpus filter that copies the kept lines byte for byte.
package keep

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/usage"
)

// Policies: which member of a cluster is kept.
const (
	First    = "first"    // the first in input order (the lowest Seq)
	Last     = "last"     // the last in input order
	Longest  = "longest"  // the longest text, the first of equals
	Shortest = "shortest" // the shortest text, the first of equals
	ID       = "id"       // the smallest ID
)

// Docs is what dedup remembers of the documents it reads: their sizes
// (for --keep longest and shortest) and, for --emit records, their lines
// as read, spooled to a file in reading order.
type Docs struct {
	sizes map[string]int64 // by ID, with sizes set

	spool   *os.File // with records set
	w       *bufio.Writer
	off     int64
	lines   []rawLine // in reading order
	noLines []string  // documents read as whole files (no line to write)
	err     error
}

// rawLine is where the line of document id is in the spool.
type rawLine struct {
	id     string
	off, n int64
}

// NewDocs returns the record of the documents read, keeping sizes when
// sizes is set and lines, spooled to an unlinked file in dir, when records
// is set. It must be closed.
func NewDocs(dir string, sizes, records bool) (*Docs, error) {
	rd := &Docs{}
	if sizes {
		rd.sizes = make(map[string]int64)
	}
	if records {
		f, err := os.CreateTemp(dir, "simidx-records-")
		if err != nil {
			return nil, err
		}
		os.Remove(f.Name()) // the open file is enough
		rd.spool, rd.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	return rd, nil
}

// Add records d, read as raw (nil for a whole file). It is called on the
// reading goroutine (as input.Reader.OnDoc), before the documents are
// read back.
func (rd *Docs) Add(d *index.Doc, raw []byte) {
	if rd.sizes != nil {
		rd.sizes[d.ID] = int64(len(d.Text))
	}
	if rd.spool == nil || rd.err != nil {
		return
	}
	if raw == nil {
		rd.noLines = append(rd.noLines, d.ID)
		return
	}
	if _, rd.err = rd.w.Write(raw); rd.err != nil {
		return
	}
	n := int64(len(raw))
	if raw[len(raw)-1] != '\n' { // the last line of an input: ended here
		if rd.err = rd.w.WriteByte('\n'); rd.err != nil {
			return
		}
		n++
	}
	rd.lines = append(rd.lines, rawLine{id: d.ID, off: rd.off, n: n})
	rd.off += n
}

// Sizes returns the text sizes of the documents read, by ID (nil unless
// kept).
func (rd *Docs) Sizes() map[string]int64 { return rd.sizes }

// Close removes the spool.
func (rd *Docs) Close() error {
	if rd.spool != nil {
		return rd.spool.Close()
	}
	return nil
}

// WriteRecords copies the lines of the documents read that are not in
// drop to w, in reading order, byte for byte. A document read as a whole
// file has no line to copy: that is a usage error.
func (rd *Docs) WriteRecords(w io.Writer, drop map[string]bool) error {
	if rd.err != nil {
		return fmt.Errorf("keeping the input lines: %w", rd.err)
	}
	if len(rd.noLines) > 0 {
		return usage.Errorf("--emit records writes input lines, and %s was read as a whole file (%d such documents); use --emit keep for files",
			strconv.Quote(rd.noLines[0]), len(rd.noLines))
	}
	if err := rd.w.Flush(); err != nil {
		return err
	}
	buf := make([]byte, 0, 64<<10)
	for _, l := range rd.lines {
		if drop[l.id] {
			continue
		}
		buf = slices.Grow(buf[:0], int(l.n))[:l.n]
		if _, err := rd.spool.ReadAt(buf, l.off); err != nil {
			return fmt.Errorf("reading the kept lines back: %w", err)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// Order returns the order of policy, one of the policies above, on the
// members of a cluster: negative if policy keeps a rather than b. It is
// the order of Kept, and the center order of center linkage
// (index.QueryOptions.CenterOrder), so that the member kept is the center.
// sizes are the text sizes of the documents read (for Longest and
// Shortest); a member without one counts as size 0 (Kept says it is an
// error). Ties (equal sizes) are left to Seq, the first first.
func Order(policy string, sizes map[string]int64) func(a, b index.Member) int {
	switch policy {
	case Last:
		return func(a, b index.Member) int { return cmp.Compare(b.Seq, a.Seq) }
	case ID:
		return func(a, b index.Member) int { return strings.Compare(a.ID, b.ID) }
	case Longest:
		return func(a, b index.Member) int { return cmp.Compare(sizes[b.ID], sizes[a.ID]) }
	case Shortest:
		return func(a, b index.Member) int { return cmp.Compare(sizes[a.ID], sizes[b.ID]) }
	}
	return func(a, b index.Member) int { return cmp.Compare(a.Seq, b.Seq) } // First
}

// Kept returns the member of c that policy, one of the policies above,
// keeps: the first of c.Members in Order, the first added of equals.
// sizes are the text sizes of the documents read in this run (for Longest
// and Shortest): a member without one is an error. Cost: one pass over
// the members.
func Kept(c index.Cluster, policy string, sizes map[string]int64) (index.Member, error) {
	if policy == Longest || policy == Shortest {
		for _, m := range c.Members {
			if _, ok := sizes[m.ID]; !ok {
				return index.Member{}, fmt.Errorf("--keep %s compares the sizes of the texts read in this run, and %s of cluster %d was not read in it (it was in the index before)",
					policy, strconv.Quote(m.ID), c.Number)
			}
		}
	}
	order := Order(policy, sizes)
	return slices.MinFunc(c.Members, func(a, b index.Member) int {
		return cmp.Or(order(a, b), cmp.Compare(a.Seq, b.Seq))
	}), nil
}

// Clusters calls fn for every cluster of x within opts, as x.Clusters
// does, with the member policy keeps (Kept), until fn returns an error.
// With center linkage (opts.Linkage) the centers are taken in the order
// of policy (Order), and the member kept is the center: every member
// dropped is a near duplicate of the one kept. Cost: what x.Clusters
// costs, and a pass over the members of each cluster.
func Clusters(ctx context.Context, x *index.Index, opts *index.QueryOptions, policy string, sizes map[string]int64, fn func(c index.Cluster, kept index.Member) error) error {
	center := opts != nil && opts.Linkage == index.CenterLinkage
	if center {
		o := *opts
		o.CenterOrder = Order(policy, sizes)
		opts = &o
	}
	return x.Clusters(ctx, opts, func(c index.Cluster) error {
		k, err := Kept(c, policy, sizes)
		if err != nil {
			return err
		}
		if center && k.ID != c.Representative {
			return fmt.Errorf("internal error: cluster %d keeps %s, not its center %s", c.Number, strconv.Quote(k.ID), strconv.Quote(c.Representative))
		}
		return fn(c, k)
	})
}

// Drops returns the IDs of the documents to drop: every member of every
// cluster of x within opts (with its linkage) but the one policy keeps,
// as Clusters gives them. Cost: what Clusters costs, and a map of the IDs
// dropped.
func Drops(ctx context.Context, x *index.Index, opts *index.QueryOptions, policy string, sizes map[string]int64) (map[string]bool, error) {
	drop := map[string]bool{}
	err := Clusters(ctx, x, opts, policy, sizes, func(c index.Cluster, k index.Member) error {
		for _, m := range c.Members {
			if m.Seq != k.Seq {
				drop[m.ID] = true
			}
		}
		return nil
	})
	return drop, err
}
