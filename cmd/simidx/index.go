package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/input"
	"github.com/spf13/pflag"
)

var indexCommand = &command{
	name:  "index",
	args:  "--db PATH [flags] INPUT...",
	short: "add documents to an index, creating it if needed",
	long: `Index adds the documents of each INPUT to the index at --db, creating it with
the settings flags if it does not exist. An INPUT is a file, a directory (read
recursively, one document per file, the ID being the path relative to the
directory) or - for standard input.

The --input format says what a file holds: one document (files); one JSON
object per line with an ID and a text field (jsonl); one document per line,
the ID being the line number, prefixed with the file name when there are
several inputs (lines); or a precomputed 64-bit fingerprint in hexadecimal
and an ID per line (hashes; such documents have no MinHash signature and
match by fingerprint distance alone): "HEX  ID" when the line starts with 16
hex digits and two spaces, as simidx fingerprint prints it ("\HEX  ID" with
an ID escaped as md5sum escapes names), otherwise "ID HEX", the fingerprint
being the last word. With auto, files named *.jsonl or *.ndjson are JSON
lines, standard input is JSON lines if it starts with '{', and anything else
is one document.

When nothing is read (an empty standard input, an empty directory), nothing
is added, a new index is not created, and a line says so.

A document whose ID is already stored replaces it. Binary files (holding a
NUL byte) are reported, skipped and counted; files that cannot be read are reported and
counted, and indexing goes on (the exit status is then 1). Documents are
analysed on all cores and committed in large atomic batches. On an interrupt
(Ctrl-C or SIGTERM) what was read is committed, the index stays consistent,
and simidx exits with status 130.

The settings flags apply only when the index is created; given for an
existing index, they must match its settings.

Example:

	simidx index --db licenses.db testdata/licenses
	simidx index --db mail.db --input jsonl --text-field body mail.jsonl`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &indexOptions{}
		fs.StringVar(&o.db, "db", "", "index file `PATH` (created if it does not exist)")
		o.in.Add(fs)
		o.sf.AddIndex(fs, true)
		o.sf.AddText(fs)
		o.memory.add(fs)
		fs.BoolVar(&o.noSync, "no-sync", false, "do not fsync each commit (faster; a machine crash may lose the index)")
		fs.BoolVar(&o.salvage, "salvage-journal", false, "apply what can be read of a damaged journal left by a crash, keeping the journal aside in PATH.journal.damaged")
		fs.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress and no summary")
		return func(ctx context.Context, e *env, args []string) error { return runIndex(ctx, e, o, args) }
	},
}

// indexOptions are the flags of simidx index.
type indexOptions struct {
	db     string
	in     input.Flags
	sf     indexflag.Settings
	quiet  bool
	noSync bool
	memory loadMemory
	// salvage applies a damaged journal (index.LogOptions.Salvage).
	salvage bool
}

// runIndex runs simidx index: add the documents of args to --db.
func runIndex(ctx context.Context, e *env, o *indexOptions, args []string) error {
	if o.db == "" {
		return usagef("--db PATH is required")
	}
	if !o.in.Given(args) {
		return usagef("no INPUT given (a file, a directory, or - for standard input)")
	}
	if err := o.in.Check(); err != nil {
		return err
	}
	s, err := o.sf.Build()
	if err != nil {
		return err
	}
	con := console.New(e.stderr, "index")
	r, err := input.Open(args, o.in, e.stdin, con)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(o.db)
	created := errors.Is(statErr, os.ErrNotExist)
	x, err := openCreate(o.db, s, index.Options{NoSync: o.noSync, Log: &index.LogOptions{Direct: true, Salvage: o.salvage}})
	if err != nil {
		return err
	}
	res, err := load(ctx, x, r, con, e.stderr, o.quiet, o.memory)
	if cerr := x.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if errors.Is(err, errInterrupted) {
		con.Messagef("simidx index: interrupted; committed %d documents to %s, which is consistent; run the command again to add the rest",
			res.stats.Committed, o.db)
		return err
	}
	if r.Docs() == 0 && res.stats.Committed == 0 {
		// Nothing read adds nothing, not even a new index.
		if created {
			if rerr := os.Remove(o.db); rerr != nil && err == nil {
				err = rerr
			}
			con.Messagef("simidx index: %s; %s not created", noDocuments(r), o.db)
		} else {
			con.Messagef("simidx index: %s; nothing added to %s", noDocuments(r), o.db)
		}
	}
	return err
}

// loadMemory is the --memory flag of the commands that load documents.
type loadMemory struct{ size input.ByteSize }

func (m *loadMemory) add(fs *pflag.FlagSet) {
	m.size = index.DefaultLoadMemory
	fs.Var(&m.size, "memory", "memory for sorting the postings of a new index; beyond it they are sorted in runs in temporary files next to the index (`SIZE`: 64M, 1G)")
}

// unreadError says that some inputs could not be read, the others being
// indexed: the index is complete for what was read.
type unreadError struct{ error }

// loadResult is what load did.
type loadResult struct {
	stats   index.LoadStats
	elapsed time.Duration
}

// load adds the documents of r to x, drawing a progress line on stderr when
// it is a terminal and printing a summary line unless quiet. It returns
// errInterrupted if ctx was cancelled (after committing what was read), and
// an error if inputs could not be read (after committing the others).
func load(ctx context.Context, x *index.Index, r *input.Reader, con *console.Console, stderr io.Writer, quiet bool, memory loadMemory) (loadResult, error) {
	start := time.Now()
	r.Store = true
	if !quiet && isTerminal(stderr) {
		stop := con.StartProgress(func() string {
			return progressLine(r.Docs(), r.Bytes(), r.Total(), time.Since(start))
		})
		defer stop()
	}
	var empty, replaced []string
	limit := startHeapLimit(int64(memory.size))
	defer limit.stop()
	stats, err := x.Load(ctx, r.All(ctx), &index.LoadOptions{
		SkipInvalid: true,
		Memory:      int64(memory.size),
		Progress:    func(s index.LoadStats) { limit.update(s.Docs) },
		Empty: func(id string) {
			if len(empty) < maxNamed {
				empty = append(empty, id)
			}
		},
		Replaced: func(id string) {
			if r.Verbose() {
				con.Messagef("simidx %s: replaced %s", con.Cmd(), cell(id))
			} else if len(replaced) < maxNamed {
				replaced = append(replaced, id)
			}
		},
	})
	res := loadResult{stats: stats, elapsed: time.Since(start)}
	if ctx.Err() != nil {
		return res, errInterrupted
	}
	if err != nil {
		return res, err
	}
	if !quiet {
		con.Messagef("%s", summary(r, stats, res.elapsed))
	}
	if stats.Empty > 0 && !quiet {
		con.Messagef("simidx %s: %d %s no words and %s nothing: %s", con.Cmd(), stats.Empty,
			plural(stats.Empty, "document has", "documents have"), plural(stats.Empty, "matches", "match"), names(empty, stats.Empty))
	}
	if len(replaced) > 0 && r.Unique {
		// dedup keeps the documents it reads apart: these replaced
		// documents stored in the index before.
		con.Messagef("simidx %s: %d %s the stored %s of the same ID: %s", con.Cmd(), stats.Replaced,
			plural(stats.Replaced, "document replaced", "documents replaced"), plural(stats.Replaced, "document", "documents"), names(replaced, stats.Replaced))
	}
	if n := r.Unread(); n > 0 {
		return res, unreadError{fmt.Errorf("%d %s could not be read (see above); indexed the rest", n, plural(n, "input", "inputs"))}
	}
	return res, nil
}

// noDocuments says that r read no document, and why when it knows.
func noDocuments(r *input.Reader) string {
	if r.EmptyStdin() {
		return "no documents read (standard input was empty)"
	}
	return "no documents read"
}

// maxNamed is how many documents a message names before it only counts
// the rest.
const maxNamed = 5

// names lists the IDs of ids, of n in all, as table cells: "a, b and 3
// more".
func names(ids []string, n int64) string {
	cells := make([]string, len(ids))
	for i, id := range ids {
		cells[i] = cell(id)
	}
	s := strings.Join(cells, ", ")
	if more := n - int64(len(ids)); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// summary is the line printed after indexing.
func summary(r *input.Reader, s index.LoadStats, elapsed time.Duration) string {
	var b strings.Builder
	secs := elapsed.Seconds()
	fmt.Fprintf(&b, "indexed %d %s, %s in %.2fs", s.Committed, plural(s.Committed, "document", "documents"), formatBytes(r.Bytes()), secs)
	if secs > 0 {
		fmt.Fprintf(&b, " (%s/s)", formatBytes(int64(float64(r.Bytes())/secs)))
	}
	fmt.Fprintf(&b, "; %d exact %s", s.ExactDuplicates, plural(s.ExactDuplicates, "duplicate", "duplicates"))
	if s.Replaced > 0 {
		fmt.Fprintf(&b, "; %d replaced", s.Replaced)
	}
	if n := r.Renamed(); n > 0 {
		fmt.Fprintf(&b, "; %d repeated %s kept apart", n, plural(n, "ID", "IDs"))
	}
	if s.Empty > 0 {
		fmt.Fprintf(&b, "; %d empty", s.Empty)
	}
	skipped := r.Skipped() + r.Filtered() + s.Skipped
	fmt.Fprintf(&b, "; %d skipped", skipped)
	if skipped > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(r.SkipReasons(s.Skipped), ", "))
	}
	return b.String()
}

// progressLine is the progress line after elapsed: docs documents read, n
// bytes, the speed and, when the input size total is known (above 0), the
// time left.
func progressLine(docs, n, total int64, elapsed time.Duration) string {
	rate := float64(n) / max(elapsed.Seconds(), 1e-3)
	line := fmt.Sprintf("indexing: %d documents, %s, %s/s", docs, formatBytes(n), formatBytes(int64(rate)))
	if total > 0 && rate > 0 && n <= total {
		left := time.Duration(float64(total-n) / rate * float64(time.Second))
		line += fmt.Sprintf(", %d%%, ETA %s", n*100/total, left.Round(time.Second))
	}
	return line
}
