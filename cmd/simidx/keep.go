package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/simidx/simidx/index"
)

// Keep policies: which member of a cluster dedup keeps.
const (
	keepFirst    = "first"    // the first in input order (the lowest Seq)
	keepLast     = "last"     // the last in input order
	keepLongest  = "longest"  // the longest text, the first of equals
	keepShortest = "shortest" // the shortest text, the first of equals
	keepID       = "id"       // the smallest ID
)

// What dedup writes (--emit).
const (
	emitClusters = "clusters"
	emitPairs    = "pairs"
	emitKeep     = "keep"
	emitDrop     = "drop"
	emitRecords  = "records"
)

func checkKeep(policy string) error {
	switch policy {
	case keepFirst, keepLast, keepLongest, keepShortest, keepID:
		return nil
	}
	return usagef("--keep must be first, last, longest, shortest or id, not %q", policy)
}

func checkEmit(what string) error {
	switch what {
	case emitClusters, emitPairs, emitKeep, emitDrop, emitRecords:
		return nil
	}
	return usagef("--emit must be clusters, pairs, keep, drop or records, not %q", what)
}

// runDocs is what dedup remembers of the documents it reads: their sizes
// (for --keep longest and shortest) and, for --emit records, their lines
// as read, spooled to a file in reading order.
type runDocs struct {
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

// newRunDocs returns the record of the documents read, keeping sizes when
// sizes is set and lines, spooled in dir, when records is set.
func newRunDocs(dir string, sizes, records bool) (*runDocs, error) {
	rd := &runDocs{}
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

// add records d, read as raw (nil for a whole file). It runs on the
// reading goroutine (input.Reader.OnDoc).
func (rd *runDocs) add(d *index.Doc, raw []byte) {
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

// Close removes the spool.
func (rd *runDocs) Close() error {
	if rd.spool != nil {
		return rd.spool.Close()
	}
	return nil
}

// writeRecords copies the lines of the documents read that are not in
// drop to w, in reading order, byte for byte.
func (rd *runDocs) writeRecords(w io.Writer, drop map[string]bool) error {
	if rd.err != nil {
		return fmt.Errorf("keeping the input lines: %w", rd.err)
	}
	if len(rd.noLines) > 0 {
		return usagef("--emit records writes input lines, and %s was read as a whole file (%d such documents); use --emit keep for files",
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

// kept returns the member of c that policy keeps. sizes are the text sizes
// of the documents read in this run (for longest and shortest): a member
// without one is an error.
func kept(c index.Cluster, policy string, sizes map[string]int64) (index.Member, error) {
	ms := c.Members
	var best index.Member
	switch policy {
	case keepFirst:
		best = slices.MinFunc(ms, func(a, b index.Member) int { return cmp.Compare(a.Seq, b.Seq) })
	case keepLast:
		best = slices.MaxFunc(ms, func(a, b index.Member) int { return cmp.Compare(a.Seq, b.Seq) })
	case keepID:
		best = slices.MinFunc(ms, func(a, b index.Member) int { return strings.Compare(a.ID, b.ID) })
	default:
		for _, m := range ms {
			if _, ok := sizes[m.ID]; !ok {
				return best, fmt.Errorf("--keep %s compares the sizes of the texts read in this run, and %s of cluster %d was not read in it (it was in the index before)",
					policy, strconv.Quote(m.ID), c.Number)
			}
		}
		sign := int64(1)
		if policy == keepShortest {
			sign = -1
		}
		// The longest (shortest), the first of equals.
		best = slices.MinFunc(ms, func(a, b index.Member) int {
			return cmp.Or(cmp.Compare(sign*sizes[b.ID], sign*sizes[a.ID]), cmp.Compare(a.Seq, b.Seq))
		})
	}
	return best, nil
}

// dropSet returns the IDs of the documents to drop: every member of every
// cluster but the one policy keeps.
func dropSet(ctx context.Context, x *index.Index, opts *index.QueryOptions, policy string, sizes map[string]int64) (map[string]bool, error) {
	drop := map[string]bool{}
	err := x.Clusters(ctx, opts, func(c index.Cluster) error {
		k, err := kept(c, policy, sizes)
		if err != nil {
			return err
		}
		for _, m := range c.Members {
			if m.Seq != k.Seq {
				drop[m.ID] = true
			}
		}
		return nil
	})
	return drop, err
}

// memberRecord is a member of a cluster in --format jsonl: the kept one,
// or another with its distance, similarity and exactness to the kept one.
type memberRecord struct {
	ID         string   `json:"id"`
	Keep       bool     `json:"keep"`
	Distance   *int     `json:"distance,omitempty"`
	Similarity *float64 `json:"similarity,omitempty"`
	Exact      *bool    `json:"exact,omitempty"`
}

// idRecord is an ID of --emit keep or drop in --format jsonl.
type idRecord struct {
	ID string `json:"id"`
}

// showSimilarity formats a similarity for a table with two decimals,
// truncated, so that it never shows a value across a threshold it does
// not reach (0.5952 is 0.59, not 0.60).
func showSimilarity(s float64) string {
	return strconv.FormatFloat(math.Floor(s*100+1e-9)/100, 'f', 2, 64)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
