package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/indexflag"
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
	GET    /v1/documents/{id}           a stored document's fingerprint
	GET    /v1/documents/{id}/similar   the near duplicates of a stored document
	DELETE /v1/documents/{id}           remove a document
	GET    /v1/stats                    describe the index
	GET    /healthz                     liveness
	GET    /metrics                     Prometheus metrics

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
			db      string
			addr    string
			sf      indexflag.Settings
			noSync  bool
			lim     serveLimits
			timeout time.Duration
		)
		fs.StringVar(&db, "db", "", "index file `PATH` (created if it does not exist)")
		fs.StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0 picks a free port)")
		sf.AddIndex(fs, true)
		sf.AddText(fs)
		fs.BoolVar(&noSync, "no-sync", false, "do not fsync the journal or the index (faster; a machine crash may lose acknowledged adds)")
		fs.StringVar(&lim.idField, "id-field", "id", "JSON `field` of an added document's ID (other fields are ignored)")
		fs.StringVar(&lim.textField, "text-field", "text", "JSON `field` of an added document's text")
		fs.Int64Var(&lim.maxBody, "max-body", defaultMaxBody, "largest request body in `bytes`")
		fs.IntVar(&lim.maxDocs, "max-docs", defaultMaxDocs, "most documents in one add request")
		fs.IntVar(&lim.maxDocBytes, "max-doc-bytes", defaultMaxDocBytes, "largest document text in `bytes`")
		fs.IntVar(&lim.groupDocs, "group-docs", defaultGroupDocs, "most documents committed together (a request is never split)")
		fs.DurationVar(&lim.groupDelay, "group-delay", defaultGroupDelay, "longest wait for more adds before a commit")
		fs.DurationVar(&lim.applyInterval, "apply-interval", defaultApplyInterval, "longest time between commits of the journal to the index")
		fs.IntVar(&lim.applyDocs, "apply-docs", defaultApplyDocs, "journaled operations that start a commit to the index at once")
		fs.IntVar(&lim.maxPending, "max-pending", defaultMaxPending, "journaled operations not yet in the index at which adds wait")
		fs.DurationVar(&lim.readTimeout, "read-timeout", defaultReadTimeout, "longest time to read a request, its body included (a client that stalls is answered 400)")
		fs.DurationVar(&timeout, "shutdown-timeout", 30*time.Second, "longest wait for requests in flight on shutdown")
		return func(ctx context.Context, e *env, args []string) error {
			if db == "" {
				return usagef("--db PATH is required")
			}
			if len(args) > 0 {
				return usagef("serve takes no arguments, got %q", args)
			}
			if err := lim.check(); err != nil {
				return err
			}
			if timeout <= 0 {
				return usagef("--shutdown-timeout must be positive, not %s", timeout)
			}
			s, err := sf.Build()
			if err != nil {
				return err
			}
			// A long-running server keeps the band filter: most band
			// lookups of a query are then skipped. Its writes go through
			// the index's write-ahead log, whose commits and applies the
			// metrics count.
			met := newMetrics()
			x, err := openCreate(db, s, index.Options{NoSync: noSync, BandFilter: true, TableMirror: true, Log: lim.logOptions(met.logEvents(e.stderr))})
			if err != nil {
				return err
			}
			defer tuneRuntime()()
			srv, err := newServer(x, db, lim, met)
			if err != nil {
				x.Close()
				return err
			}
			err = srv.listenAndServe(ctx, addr, timeout, func(a net.Addr) {
				fmt.Fprintf(e.stderr, "simidx serve: listening on http://%s (%s, %d documents)\n", a, db, x.Len())
			})
			if cerr := srv.close(); err == nil {
				err = cerr
			}
			if err == nil {
				fmt.Fprintf(e.stderr, "simidx serve: stopped; %s closed with %d documents\n", db, srv.docsAtClose)
			}
			return err
		}
	},
}

// Default limits of serve.
const (
	defaultMaxBody     = 32 << 20
	defaultMaxDocs     = 10_000
	defaultMaxDocBytes = 16 << 20 // index.MaxDocSize
	defaultGroupDocs   = 10_000
	defaultGroupDelay  = 0

	defaultApplyInterval = 200 * time.Millisecond
	defaultApplyDocs     = 4096
	defaultMaxPending    = 65536
	defaultReadTimeout   = time.Minute
)

// listenAndServe serves HTTP on addr until ctx is cancelled, then shuts
// down gracefully: no new connections, requests in flight finished (within
// timeout). ready is called with the address once listening.
func (s *server) listenAndServe(ctx context.Context, addr string, timeout time.Duration, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %v", addr, err)
	}
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.lim.readTimeout,
		IdleTimeout:       2 * time.Minute,
	}
	if s.lim.readTimeout > 0 {
		hs.ReadHeaderTimeout = min(hs.ReadHeaderTimeout, s.lim.readTimeout)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	ready(ln.Addr())
	select {
	case err := <-served:
		return fmt.Errorf("serving on %s: %v", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err = hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		return fmt.Errorf("requests still running after %s were cut off; every acknowledged add is committed", timeout)
	}
	<-served
	return err
}
