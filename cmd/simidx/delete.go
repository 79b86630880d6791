package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/input"
	"github.com/spf13/pflag"
)

var deleteCommand = &command{
	name:  "delete",
	args:  "--db PATH ID...",
	short: "remove documents from an index",
	long: `Delete removes the documents with the given IDs from the index at --db, in one
atomic transaction. An ID of - reads IDs from standard input, one per line;
a line longer than an ID can be (512 bytes) is reported by its number and
skipped. IDs that are not in the index are counted and skipped; a line on
standard error says how many documents were deleted.

Example:

	simidx delete --db licenses.db MIT.txt X11.txt
	simidx query --db licenses.db --id MIT.txt --format jsonl | jq -r .id | simidx delete --db licenses.db -`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &deleteOptions{}
		fs.StringVar(&o.db, "db", "", "index file `PATH`")
		fs.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing on success")
		fs.BoolVar(&o.salvage, "salvage-journal", false, "apply what can be read of a damaged journal left by a crash, keeping the journal aside in PATH.journal.damaged")
		return func(ctx context.Context, e *env, args []string) error { return runDelete(ctx, e, o, args) }
	},
}

// deleteOptions are the flags of simidx delete.
type deleteOptions struct {
	db      string
	quiet   bool
	salvage bool // apply a damaged journal (index.LogOptions.Salvage)
}

// runDelete runs simidx delete: remove the IDs args from --db.
func runDelete(ctx context.Context, e *env, o *deleteOptions, args []string) error {
	if o.db == "" {
		return usagef("--db PATH is required")
	}
	if len(args) == 0 {
		return usagef("no ID given (IDs as arguments, or - to read them from standard input)")
	}
	var ids []string
	con := console.New(e.stderr, "delete")
	long := 0
	for _, a := range args {
		if a != "-" {
			ids = append(ids, a)
			continue
		}
		var err error
		var n int
		ids, n, err = readIDs(ids, e.stdin, con)
		long += n
		if err != nil {
			return fmt.Errorf("reading IDs from standard input: %v", err)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	x, err := openExisting(o.db, false, o.salvage)
	if err != nil {
		return err
	}
	n, err := x.Delete(ids...)
	if cerr := x.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if !o.quiet {
		fmt.Fprintf(e.stderr, "deleted %d of %d %s", n, len(ids), plural(int64(len(ids)), "document", "documents"))
		if miss := len(ids) - n; miss > 0 {
			fmt.Fprintf(e.stderr, " (%d not in the index)", miss)
		}
		if long > 0 {
			fmt.Fprintf(e.stderr, "; %d %s longer than an ID skipped", long, plural(int64(long), "line", "lines"))
		}
		fmt.Fprintln(e.stderr)
	}
	return nil
}

// readIDs appends to ids the IDs read from rd, one a line (a trailing
// carriage return dropped, blank lines skipped), and returns how many
// lines were longer than an ID can be (index.MaxIDLen bytes): each is
// reported by its line number on con and skipped without being held in
// memory, and reading goes on.
func readIDs(ids []string, rd io.Reader, con *console.Console) ([]string, int, error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	long := 0
	for n := 1; ; n++ {
		line, tooLong, read, err := input.ReadLine(br, index.MaxIDLen+len("\r\n"))
		if tooLong {
			long++
			if err == nil {
				read-- // the newline
			}
			con.Warnf("standard input:%d: line of %d bytes, longer than an ID (at most %d bytes), skipped", n, read, index.MaxIDLen)
		} else if id := strings.TrimRight(string(line), "\r\n"); id != "" {
			ids = append(ids, id)
		}
		if err == io.EOF {
			return ids, long, nil
		}
		if err != nil {
			return ids, long, err
		}
	}
}
