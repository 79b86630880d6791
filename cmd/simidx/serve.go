package main

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/server"
	"github.com/spf13/pflag"
)

var serveCommand = &command{
	name:  "serve",
	args:  "--db PATH [--addr HOST:PORT] [flags]",
	short: "answer near-duplicate checks and adds over HTTP",
	long: `Serve opens the index at --db (creating it with the settings flags if it does
not exist) and answers JSON requests over HTTP at --addr, by default on the
loopback interface only:

	POST   /v1/documents                add or replace documents (JSON array or JSON lines
	                                    of {"id", "text"}); with ?if_unique=true a document
	                                    that has a near duplicate is refused (409)
	POST   /v1/query                    the near duplicates of a text or a fingerprint
	POST   /v1/compare                  the measures and shared passages of two texts
	GET    /v1/documents/{id}           a stored document's fingerprint
	GET    /v1/documents/{id}/similar   the near duplicates of a stored document
	DELETE /v1/documents/{id}           remove a document
	GET    /v1/stats                    describe the index
	GET    /healthz                     liveness
	GET    /metrics                     Prometheus metrics
	GET    /                            a page for people: check a text, see its
	                                    matches and the passages it shares with a
	                                    text given, a stored document's neighbours,
	                                    the index's figures

The page only reads unless --page-writes is given: then it can also add the
text checked and delete a stored document. (The API takes writes from any
client either way: the page is one of them.)

Queries take the parameters k, min_similarity and limit, as the -k,
--min-similarity and --limit flags of simidx query. Concurrent adds and
deletes are appended together to the index's write-ahead journal
(PATH.journal/) with one fdatasync (group commit); a request is answered
only after that, so an answered add survives a crash. In the background
the index commits the journaled operations to its file in large batches
(every --apply-interval) and then deletes them from the journal. Queries
see the journaled documents at once, and never wait for writes.

On SIGINT or SIGTERM the server stops accepting connections, finishes the
requests in flight, commits every journaled operation to the index,
removes the journal, closes the index and exits 0. After a crash, the next
command that opens the index for writing applies the journal first.
See docs/server.md for the request and response formats.

Example:

	simidx serve --db ads.db
	curl -s localhost:8080/v1/documents?if_unique=true -d '{"id":"ad1","text":"..."}'`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		var (
			db     string
			addr   string
			sf     indexflag.Settings
			noSync bool
			f      serveFlags
		)
		fs.StringVar(&db, "db", "", "index file `PATH` (created if it does not exist)")
		fs.StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0 picks a free port)")
		sf.AddIndex(fs, true)
		sf.AddText(fs)
		fs.BoolVar(&noSync, "no-sync", false, "do not fsync the journal or the index (faster; a machine crash may lose acknowledged adds)")
		fs.BoolVar(&f.srv.PageWrites, "page-writes", false, "let the page at / add the text checked and delete documents (the API takes writes either way)")
		fs.StringVar(&f.srv.IDField, "id-field", "id", "JSON `field` of an added document's ID (other fields are ignored)")
		fs.StringVar(&f.srv.TextField, "text-field", "text", "JSON `field` of an added document's text")
		fs.Int64Var(&f.srv.MaxBody, "max-body", server.DefaultMaxBody, "largest request body in `bytes`")
		fs.IntVar(&f.srv.MaxDocs, "max-docs", server.DefaultMaxDocs, "most documents in one add request")
		fs.IntVar(&f.srv.MaxDocBytes, "max-doc-bytes", server.DefaultMaxDocBytes, "largest document text in `bytes`")
		fs.IntVar(&f.log.GroupDocs, "group-docs", defaultGroupDocs, "most documents committed together (a request is never split)")
		fs.DurationVar(&f.log.GroupDelay, "group-delay", 0, "longest wait for more adds before a commit")
		fs.DurationVar(&f.log.ApplyInterval, "apply-interval", defaultApplyInterval, "longest time between commits of the journal to the index")
		fs.IntVar(&f.log.ApplyDocs, "apply-docs", defaultApplyDocs, "journaled operations that start a commit to the index at once")
		fs.IntVar(&f.log.MaxPending, "max-pending", defaultMaxPending, "journaled operations not yet in the index at which adds wait")
		fs.BoolVar(&f.log.Salvage, "salvage-journal", false, "apply what can be read of a damaged journal left by a crash, keeping the journal aside in PATH.journal.damaged")
		fs.DurationVar(&f.srv.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "longest time to read a request, its body included (a client that stalls is answered 400)")
		fs.DurationVar(&f.srv.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "longest time from a request's headers to the end of its answer (a client that stops reading loses its connection)")
		fs.IntVar(&f.srv.MaxConnections, "max-connections", 0, "most connections open at once (0: the limit of open files less 128)")
		fs.Int64Var(&f.srv.MaxBodyInFlight, "max-body-in-flight", 0, "most `bytes` of request bodies held at once (0: 4 times --max-body)")
		fs.DurationVar(&f.srv.ShutdownTimeout, "shutdown-timeout", server.DefaultShutdownTimeout, "longest wait for requests in flight on shutdown")
		return func(ctx context.Context, e *env, args []string) error {
			if db == "" {
				return usagef("--db PATH is required")
			}
			if len(args) > 0 {
				return usagef("serve takes no arguments, got %q", args)
			}
			if err := f.check(); err != nil {
				return err
			}
			s, err := sf.Build()
			if err != nil {
				return err
			}
			// A long-running server keeps the band filter and the table
			// mirror: most band lookups of a query are then skipped, and
			// the tables are read from memory. Its writes go through the
			// index's write-ahead log, whose commits and applies the
			// metrics count; a failed apply is retried by the index.
			met := server.NewMetrics()
			met.SetErrorLog(e.stderr)
			f.srv.Metrics = met
			f.log.Events = met.LogEvents()
			x, err := openCreate(db, s, index.Options{NoSync: noSync, BandFilter: true, TableMirror: true, Log: &f.log})
			if err != nil {
				return err
			}
			defer tuneRuntime()()
			srv, err := server.New(x, &f.srv)
			if err != nil {
				x.Close()
				return err
			}
			err = srv.ListenAndServe(ctx, addr, func(a net.Addr) {
				fmt.Fprintf(e.stderr, "simidx serve: listening on http://%s (%s, %d documents)\n", a, db, x.Len())
			})
			// Closing the index logs the writes still queued, commits every
			// logged operation to the index file and removes the log; if
			// the commit fails, the log stays for the next open to apply.
			if cerr := x.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				fmt.Fprintf(e.stderr, "simidx serve: stopped; %s closed with %d documents\n", db, x.Len())
			}
			return err
		}
	},
}

// Defaults of the flags of the index's write-ahead log: those of
// index.LogOptions, shown in the help.
const (
	defaultGroupDocs     = 10_000
	defaultApplyInterval = 200 * time.Millisecond
	defaultApplyDocs     = 4096
	defaultMaxPending    = 65536
)

// serveFlags are the flags of serve that tune the server and the index's
// write-ahead log.
type serveFlags struct {
	srv server.Options
	log index.LogOptions
}

// check returns a usage error for a flag out of range. (Zero, which the
// options read as their default, is refused as a value of a flag.)
func (f *serveFlags) check() error {
	switch {
	case f.srv.MaxBody <= 0:
		return usagef("--max-body must be positive, not %d", f.srv.MaxBody)
	case f.srv.MaxDocs <= 0:
		return usagef("--max-docs must be positive, not %d", f.srv.MaxDocs)
	case f.srv.MaxDocBytes <= 0 || f.srv.MaxDocBytes > index.MaxDocSize:
		return usagef("--max-doc-bytes must be 1 to %d, not %d", index.MaxDocSize, f.srv.MaxDocBytes)
	case f.log.GroupDocs <= 0:
		return usagef("--group-docs must be positive, not %d", f.log.GroupDocs)
	case f.log.GroupDelay < 0:
		return usagef("--group-delay must not be negative, not %s", f.log.GroupDelay)
	case f.log.ApplyInterval <= 0:
		return usagef("--apply-interval must be positive, not %s", f.log.ApplyInterval)
	case f.log.ApplyDocs <= 0:
		return usagef("--apply-docs must be positive, not %d", f.log.ApplyDocs)
	case f.log.MaxPending <= 0:
		return usagef("--max-pending must be positive, not %d", f.log.MaxPending)
	case f.srv.ReadTimeout <= 0:
		return usagef("--read-timeout must be positive, not %s", f.srv.ReadTimeout)
	case f.srv.WriteTimeout <= 0:
		return usagef("--write-timeout must be positive, not %s", f.srv.WriteTimeout)
	case f.srv.MaxConnections < 0 || f.srv.MaxBodyInFlight < 0:
		return usagef("--max-connections and --max-body-in-flight must not be negative")
	case f.srv.MaxBodyInFlight > 0 && f.srv.MaxBodyInFlight < f.srv.MaxBody:
		return usagef("--max-body-in-flight must be at least --max-body (%d), not %d", f.srv.MaxBody, f.srv.MaxBodyInFlight)
	case f.srv.ShutdownTimeout <= 0:
		return usagef("--shutdown-timeout must be positive, not %s", f.srv.ShutdownTimeout)
	}
	return nil
}
