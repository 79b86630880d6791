package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/journal"
)

// journalDir returns the directory of the journal of the index at db.
func journalDir(db string) string { return db + ".journal" }

// applyJournal applies a journal left beside x by a server that did not
// stop cleanly (operations acknowledged but not yet in the index), then
// removes it. It reports what it did on w. Replaying is idempotent: a
// journal whose operations are already in the index changes nothing. It
// costs a read of the journal and one synced commit per applyChunk
// documents.
func applyJournal(x *index.Index, w io.Writer) error {
	dir := journalDir(x.Path())
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	j, err := journal.Open(dir)
	if err != nil {
		return fmt.Errorf("opening the journal %s: %w", dir, err)
	}
	n, err := replayJournal(x, j)
	if err != nil {
		j.Close()
		return fmt.Errorf("applying the journal %s to %s: %w", dir, x.Path(), err)
	}
	// The journal goes only once its operations are on disk, also in an
	// index opened with --no-sync.
	if err := x.Sync(); err != nil {
		j.Close()
		return fmt.Errorf("syncing %s after applying the journal %s: %w", x.Path(), dir, err)
	}
	if err := j.Destroy(); err != nil {
		return fmt.Errorf("removing the journal %s (its %d operations are in the index): %w", dir, n, err)
	}
	if n > 0 && w != nil {
		fmt.Fprintf(w, "simidx: applied %d journaled operations left in %s to %s\n", n, dir, x.Path())
	}
	return nil
}

// applyChunk is how many documents a journal replay commits at once.
const applyChunk = 20_000

// replayJournal commits every operation of j to x, in order (the last
// operation on an ID wins), and returns how many there were.
func replayJournal(x *index.Index, j *journal.Journal) (int, error) {
	last := map[string]journal.Record{}
	var order []string
	n, err := j.Replay(func(r journal.Record) error {
		if _, ok := last[r.ID]; !ok {
			order = append(order, r.ID)
		}
		last[r.ID] = r
		return nil
	})
	if err != nil {
		return n, err
	}
	var docs []index.Doc
	var dels []string
	flush := func() error {
		if len(docs) > 0 {
			if err := x.Add(docs...); err != nil {
				return err
			}
		}
		if len(dels) > 0 {
			if _, err := x.Delete(dels...); err != nil {
				return err
			}
		}
		docs, dels = docs[:0], dels[:0]
		return nil
	}
	for _, id := range order {
		r := last[id]
		if r.Op == journal.OpDelete {
			dels = append(dels, id)
		} else {
			docs = append(docs, index.Doc{ID: id, Text: r.Text})
		}
		if len(docs)+len(dels) >= applyChunk {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}

// checkNoJournal fails if the index at db has a journal holding operations
// not yet in it: a read-only open would miss them.
func checkNoJournal(db string) error {
	dir := journalDir(db)
	n, err := journal.Count(dir)
	if err != nil {
		return fmt.Errorf("reading the journal %s: %w", dir, err)
	}
	if n > 0 {
		return fmt.Errorf("%s has %d acknowledged operations in its journal %s that are not yet in the index (simidx serve did not stop cleanly); open it for writing once to apply them, for example with simidx serve --db %s", db, n, dir, db)
	}
	return nil
}
