package main

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/spf13/pflag"
)

var deleteCommand = &command{
	name:  "delete",
	args:  "--db PATH ID...",
	short: "remove documents from an index",
	long: `Delete removes the documents with the given IDs from the index at --db, in one
atomic transaction. An ID of - reads IDs from standard input, one per line.
IDs that are not in the index are counted and skipped; a line on standard
error says how many documents were deleted.

Example:

	simidx delete --db licenses.db MIT.txt X11.txt
	simidx query --db licenses.db --id MIT.txt --format jsonl | jq -r .id | simidx delete --db licenses.db -`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		var (
			db    string
			quiet bool
		)
		fs.StringVar(&db, "db", "", "index file `PATH`")
		fs.BoolVarP(&quiet, "quiet", "q", false, "print nothing on success")
		return func(ctx context.Context, e *env, args []string) error {
			if db == "" {
				return usagef("--db PATH is required")
			}
			if len(args) == 0 {
				return usagef("no ID given (IDs as arguments, or - to read them from standard input)")
			}
			var ids []string
			for _, a := range args {
				if a != "-" {
					ids = append(ids, a)
					continue
				}
				sc := bufio.NewScanner(e.stdin)
				sc.Buffer(make([]byte, 64<<10), index.MaxIDLen+16)
				for sc.Scan() {
					if id := strings.TrimRight(sc.Text(), "\r"); id != "" {
						ids = append(ids, id)
					}
				}
				if err := sc.Err(); err != nil {
					return fmt.Errorf("reading IDs from standard input: %v", err)
				}
			}
			slices.Sort(ids)
			ids = slices.Compact(ids)
			x, err := openExisting(db, false)
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
			if !quiet {
				fmt.Fprintf(e.stderr, "deleted %d of %d %s", n, len(ids), plural(int64(len(ids)), "document", "documents"))
				if miss := len(ids) - n; miss > 0 {
					fmt.Fprintf(e.stderr, " (%d not in the index)", miss)
				}
				fmt.Fprintln(e.stderr)
			}
			return nil
		}
	},
}
