package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simidx/simidx/index"
)

// Defaults of Options.
const (
	DefaultMaxBody         = 32 << 20         // bytes of a request body
	DefaultMaxDocs         = 10_000           // documents in one add request
	DefaultMaxDocBytes     = index.MaxDocSize // bytes of a document's text
	DefaultReadTimeout     = time.Minute
	DefaultWriteTimeout    = 2 * time.Minute
	DefaultShutdownTimeout = 30 * time.Second
	DefaultMaxHeaderBytes  = 64 << 10
	// A Server keeps this many of the process's file descriptors out of
	// the reach of its connections, for the index, its log and the rest
	// of the process (see Options.MaxConnections).
	reservedFiles = 128
)

// Options configure a Server. A nil *Options means the zero Options, whose
// fields all select the documented defaults. They bound what one request
// may hold; how writes are grouped, logged and committed is the index's
// (index.LogOptions, given to index.Open).
//
// The error messages of the limits name them by the flags of simidx serve
// (--max-body, --max-docs, --max-doc-bytes).
type Options struct {
	// IDField and TextField name the JSON fields of an added document's ID
	// and text; other fields are ignored, so that a corpus's records can
	// be posted as they are. Empty means "id" and "text".
	IDField, TextField string

	// MaxBody is the largest request body in bytes; a larger one is
	// answered 413. Zero means DefaultMaxBody. A body is held in memory
	// whole while its request runs.
	MaxBody int64

	// MaxDocs is the most documents one add request may hold. Zero means
	// DefaultMaxDocs.
	MaxDocs int

	// MaxDocBytes is the largest text of a document added or queried, in
	// bytes. Zero means DefaultMaxDocBytes, which is also the most it may
	// be.
	MaxDocBytes int

	// ReadTimeout is the longest time Serve gives a request to arrive, its
	// body included: a client that stalls in the middle of a body is
	// answered 400 and its connection closed. Zero means
	// DefaultReadTimeout; a negative value, no limit. It applies to Serve
	// and ListenAndServe only: a program that serves the Server with an
	// http.Server of its own sets that one's timeouts.
	ReadTimeout time.Duration

	// MaxBodyInFlight bounds the bytes of request bodies held at once,
	// whatever the number of requests: a request takes the length it
	// announces (MaxBody if it announces none) before it reads its body,
	// and waits while the others hold the rest. Zero means 4 times
	// MaxBody; it must be at least MaxBody.
	MaxBodyInFlight int64

	// WriteTimeout is the longest time Serve gives a request from the end
	// of its headers to the end of its answer: a client that stops reading
	// its answers loses its connection then. Zero means
	// DefaultWriteTimeout; a negative value, no limit. Serve and
	// ListenAndServe only, as ReadTimeout.
	WriteTimeout time.Duration

	// MaxHeaderBytes bounds the headers of a request (431 beyond). Zero
	// means DefaultMaxHeaderBytes. Serve and ListenAndServe only.
	MaxHeaderBytes int

	// MaxConnections is the most connections Serve holds open at once;
	// the next ones wait in the kernel's queue. Zero means the process's
	// limit of open files less 128 (for the index, its log and the rest of
	// the process), at least 16, or 4,096 where the limit is unknown.
	// Serve and ListenAndServe only.
	MaxConnections int

	// ShutdownTimeout is the longest Serve waits for the requests in
	// flight once its context is cancelled. Zero means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration

	// PageWrites shows the write actions on the page at GET / (add the
	// text checked, delete a stored document); without it the page only
	// reads. The API takes writes either way: the page is a client of it,
	// with no rights of its own.
	PageWrites bool

	// Metrics collects what GET /metrics reports. To count the group
	// commits and applies of the index's write-ahead log too, open the
	// index with Metrics.LogEvents in index.LogOptions.Events. Nil means a
	// Metrics of the Server's own, whose commit and apply metrics stay
	// zero. A Metrics serves one Server.
	Metrics *Metrics
}

// Server answers the HTTP API of simidx serve (docs/server.md) over an
// open index. It is an http.Handler, safe for concurrent use.
//
// Each add or delete request is one call of the index's Add, AddIfUnique
// or Delete: with the index's write-ahead log (the default), durable when
// it is answered, and seen by every query that starts after. Queries
// never wait for writes. GET /v1/stats commits the pending operations to
// the index file and reads every table page, a time that grows with the
// index; GET /healthz costs nothing.
type Server struct {
	x       *index.Index
	path    string // the index's path, as in its answers
	opts    Options
	maxK    int  // the index's k
	minHash bool // the index reports a similarity (MinHash, a set method)
	sets    bool // the index stores shingle sets: verify=true works
	met     *Metrics
	mux     *http.ServeMux
	budget  *bodyBudget                   // of Options.MaxBodyInFlight
	ln      atomic.Pointer[limitListener] // of the last Serve, for tests
	// fingerprinters are the index's, for POST /v1/compare (a
	// Fingerprinter serves one goroutine at a time).
	fingerprinters sync.Pool
	page           []byte // the page of GET /
}

// New returns a Server that answers from x, an index open for writing
// (see index.Options: BandFilter and TableMirror speed up the queries of a
// long-running server). The Server does not own x: the caller closes it
// once the Server is done (after Serve returns), which commits every
// logged operation to the index file. New returns an error for options
// out of range or for settings of x that fingerprint no text.
func New(x *index.Index, opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.MaxBody < 0:
		return nil, fmt.Errorf("server: MaxBody must not be negative, not %d", o.MaxBody)
	case o.MaxDocs < 0:
		return nil, fmt.Errorf("server: MaxDocs must not be negative, not %d", o.MaxDocs)
	case o.MaxDocBytes < 0 || o.MaxDocBytes > index.MaxDocSize:
		return nil, fmt.Errorf("server: MaxDocBytes must be 0 to %d, not %d", index.MaxDocSize, o.MaxDocBytes)
	case o.ShutdownTimeout < 0:
		return nil, fmt.Errorf("server: ShutdownTimeout must not be negative, not %s", o.ShutdownTimeout)
	case o.MaxBodyInFlight < 0 || o.MaxHeaderBytes < 0 || o.MaxConnections < 0:
		return nil, fmt.Errorf("server: MaxBodyInFlight, MaxHeaderBytes and MaxConnections must not be negative")
	}
	o.IDField = cmp.Or(o.IDField, "id")
	o.TextField = cmp.Or(o.TextField, "text")
	o.MaxBody = cmp.Or(o.MaxBody, DefaultMaxBody)
	o.MaxDocs = cmp.Or(o.MaxDocs, DefaultMaxDocs)
	o.MaxDocBytes = cmp.Or(o.MaxDocBytes, DefaultMaxDocBytes)
	o.ReadTimeout = cmp.Or(o.ReadTimeout, DefaultReadTimeout)
	o.ShutdownTimeout = cmp.Or(o.ShutdownTimeout, DefaultShutdownTimeout)
	o.WriteTimeout = cmp.Or(o.WriteTimeout, DefaultWriteTimeout)
	o.MaxHeaderBytes = cmp.Or(o.MaxHeaderBytes, DefaultMaxHeaderBytes)
	o.MaxBodyInFlight = cmp.Or(o.MaxBodyInFlight, 4*o.MaxBody)
	if o.MaxBodyInFlight < o.MaxBody {
		return nil, fmt.Errorf("server: MaxBodyInFlight (%d) must be at least MaxBody (%d)", o.MaxBodyInFlight, o.MaxBody)
	}
	if o.MaxConnections == 0 {
		o.MaxConnections = 4096
		if n := openFilesLimit(); n > 0 {
			o.MaxConnections = max(n-reservedFiles, 16)
		}
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	st := x.Settings()
	f, err := index.NewFingerprinter(&st)
	if err != nil {
		return nil, err
	}
	s := &Server{x: x, path: x.Path(), opts: o, maxK: max(st.MaxDistance, 0), minHash: st.MinHash || st.Text.Method.IsSet(),
		sets: st.StoreShingles && !st.Text.Method.IsSet(), met: o.Metrics}
	s.fingerprinters.Put(f)
	s.fingerprinters.New = func() any {
		f, _ := index.NewFingerprinter(&st) // the settings made one above
		return f
	}
	if s.page, err = renderPage(o.PageWrites); err != nil {
		return nil, err
	}
	s.mux = s.routes()
	s.budget = newBodyBudget(o.MaxBodyInFlight)
	return s, nil
}

// ServeHTTP answers a request of the API; errors are answered as
// {"error": "..."} with their status. Each request is counted in the
// metrics by method, route and status.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	s.met.inFlight.Add(1)
	defer s.met.inFlight.Add(-1)
	rec := &recorder{ResponseWriter: w, status: http.StatusOK, route: routeOther}
	s.mux.ServeHTTP(rec, r)
	s.met.request(r.Method, rec.route, rec.status, time.Since(start))
}

// recorder remembers the status written and the route of the request
// (set by the endpoint that answers it).
type recorder struct {
	http.ResponseWriter
	status int
	route  string
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap returns the ResponseWriter, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// ListenAndServe listens on the TCP address addr (port 0 picks a free
// port), calls ready, if not nil, with the address listened on, and
// serves as Serve does until ctx is cancelled.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %v", addr, err)
	}
	return s.serve(ctx, ln, addr, ready)
}

// Serve serves HTTP on ln until ctx is cancelled, then shuts down
// gracefully: it closes ln and the idle connections, waits for the
// requests in flight (at most Options.ShutdownTimeout, after which it
// closes their connections and returns an error) and returns nil. It
// returns an error at once if ln fails. It does not close the index.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return s.serve(ctx, ln, ln.Addr().String(), nil)
}

// httpServer returns the http.Server of Serve, with the limits of the
// Options.
func (s *Server) httpServer() *http.Server {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    s.opts.MaxHeaderBytes,
	}
	if t := s.opts.ReadTimeout; t > 0 {
		hs.ReadTimeout = t
		hs.ReadHeaderTimeout = min(hs.ReadHeaderTimeout, t)
	}
	if t := s.opts.WriteTimeout; t > 0 {
		hs.WriteTimeout = t
	}
	return hs
}

// serve is Serve, naming the address addr in its errors.
func (s *Server) serve(ctx context.Context, ln net.Listener, addr string, ready func(net.Addr)) error {
	hs := s.httpServer()
	lln := newLimitListener(ln, s.opts.MaxConnections)
	s.ln.Store(lln)
	ln = lln
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr())
	}
	select {
	case err := <-served:
		return fmt.Errorf("serving on %s: %v", addr, err)
	case <-ctx.Done():
	}
	timeout := s.opts.ShutdownTimeout
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		return fmt.Errorf("requests still running after %s were cut off; every acknowledged add is committed", timeout)
	}
	<-served
	return err
}
