package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/input"
	"github.com/simidx/simidx/internal/jsondoc"
)

// serveLimits bound what one request may hold and how adds are grouped.
type serveLimits struct {
	// idField and textField name the fields of an added document (default
	// "id" and "text").
	idField, textField string

	maxBody     int64
	maxDocs     int
	maxDocBytes int
	groupDocs   int
	groupDelay  time.Duration

	applyInterval time.Duration // longest time an operation stays only in the journal
	applyDocs     int           // pending operations that start an apply at once
	maxPending    int           // pending operations at which adds wait for the applier
	readTimeout   time.Duration // longest read of a request, body included; 0 for none
}

// logOptions returns the options of the index's write-ahead log that the
// limits set, reporting to ev.
func (l *serveLimits) logOptions(ev *index.LogEvents) *index.LogOptions {
	return &index.LogOptions{GroupDocs: l.groupDocs, GroupDelay: l.groupDelay, ApplyInterval: l.applyInterval,
		ApplyDocs: l.applyDocs, MaxPending: l.maxPending, Events: ev}
}

func (l *serveLimits) check() error {
	switch {
	case l.maxBody <= 0:
		return usagef("--max-body must be positive, not %d", l.maxBody)
	case l.maxDocs <= 0:
		return usagef("--max-docs must be positive, not %d", l.maxDocs)
	case l.maxDocBytes <= 0 || l.maxDocBytes > index.MaxDocSize:
		return usagef("--max-doc-bytes must be 1 to %d, not %d", index.MaxDocSize, l.maxDocBytes)
	case l.groupDocs <= 0:
		return usagef("--group-docs must be positive, not %d", l.groupDocs)
	case l.groupDelay < 0:
		return usagef("--group-delay must not be negative, not %s", l.groupDelay)
	case l.applyInterval <= 0:
		return usagef("--apply-interval must be positive, not %s", l.applyInterval)
	case l.applyDocs <= 0:
		return usagef("--apply-docs must be positive, not %d", l.applyDocs)
	case l.maxPending <= 0:
		return usagef("--max-pending must be positive, not %d", l.maxPending)
	case l.readTimeout <= 0:
		return usagef("--read-timeout must be positive, not %s", l.readTimeout)
	}
	return nil
}

// server answers the HTTP API of simidx serve. Its writes go through
// the index's write-ahead log: each add or delete request is one call of
// Add, AddIfUnique or Delete, durable and seen by queries when it returns.
type server struct {
	x       *index.Index
	db      string
	lim     serveLimits
	maxK    int  // the index's k
	minHash bool // the index reports a similarity (MinHash, a set method)
	sets    bool // the index stores shingle sets: verify=true works
	met     *metrics

	docsAtClose int

	fixedRoutes            map[string]*route // by path
	docRoute, similarRoute *route            // /v1/documents/{id} and /v1/documents/{id}/similar
}

// newServer serves x, the index at db, opened for writing with the log
// options of lim reporting to met (see serveLimits.logOptions).
func newServer(x *index.Index, db string, lim serveLimits, met *metrics) (*server, error) {
	st := x.Settings()
	if _, err := index.NewFingerprinter(&st); err != nil {
		return nil, err
	}
	if lim.idField == "" {
		lim.idField = "id"
	}
	if lim.textField == "" {
		lim.textField = "text"
	}
	s := &server{x: x, db: db, lim: lim, maxK: max(st.MaxDistance, 0), minHash: st.MinHash || st.Text.Method.IsSet(),
		sets: st.StoreShingles && !st.Text.Method.IsSet(), met: met}
	s.fixedRoutes, s.docRoute, s.similarRoute = s.routes()
	return s, nil
}

// close closes the index: the writes queued are logged, every logged
// operation is committed to the index file and the log is removed. If
// the operations cannot all be committed, the log stays for the next
// open to apply.
func (s *server) close() error {
	err := s.x.Close()
	s.docsAtClose = s.x.Len()
	return err
}

// apiError is an error answered with a status and {"error": msg}.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) *apiError {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

// route is an endpoint: a path pattern and its handlers by method.
type route struct {
	name    string // the metrics label
	methods map[string]func(w http.ResponseWriter, r *http.Request, id string) error
	allow   string
}

// ServeHTTP routes a request, answers errors as JSON and records metrics.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	name, id, handler, err := s.route(r)
	if err == nil {
		err = handler(rec, r, id)
	}
	if err != nil {
		s.writeError(rec, err)
	}
	s.met.request(r.Method, name, rec.status, time.Since(start))
}

// routes returns the server's routes: the fixed paths by path, and the
// two under /v1/documents/{id}.
func (s *server) routes() (fixed map[string]*route, doc, similar *route) {
	type h = func(http.ResponseWriter, *http.Request, string) error
	mk := func(name, allow string, methods map[string]h) *route {
		return &route{name: name, methods: methods, allow: allow}
	}
	fixed = map[string]*route{
		"/v1/documents": mk("/v1/documents", "POST", map[string]h{http.MethodPost: s.handleAdd}),
		"/v1/query":     mk("/v1/query", "POST", map[string]h{http.MethodPost: s.handleQuery}),
		"/v1/stats":     mk("/v1/stats", "GET, HEAD", map[string]h{http.MethodGet: s.handleStats, http.MethodHead: s.handleStats}),
		"/healthz":      mk("/healthz", "GET, HEAD", map[string]h{http.MethodGet: s.handleHealth, http.MethodHead: s.handleHealth}),
		"/metrics":      mk("/metrics", "GET, HEAD", map[string]h{http.MethodGet: s.handleMetrics, http.MethodHead: s.handleMetrics}),
	}
	doc = mk("/v1/documents/{id}", "GET, HEAD, DELETE", map[string]h{http.MethodGet: s.handleGet, http.MethodHead: s.handleGet, http.MethodDelete: s.handleDelete})
	similar = mk("/v1/documents/{id}/similar", "GET, HEAD", map[string]h{http.MethodGet: s.handleSimilar, http.MethodHead: s.handleSimilar})
	return fixed, doc, similar
}

// route finds the handler of r. The ID of /v1/documents/{id} is the
// unescaped path segment, so IDs holding '/' are written with %2F.
func (s *server) route(r *http.Request) (name, id string, h func(http.ResponseWriter, *http.Request, string) error, err error) {
	p := r.URL.EscapedPath()
	rt := s.fixedRoutes[p]
	if rt == nil {
		rest, ok := strings.CutPrefix(p, "/v1/documents/")
		if !ok {
			return "other", "", nil, errorf(http.StatusNotFound, "no such endpoint: %s %s; the endpoints are under /v1/ (see docs/server.md)", r.Method, p)
		}
		seg, similar := strings.CutSuffix(rest, "/similar")
		if seg == "" {
			return "other", "", nil, errorf(http.StatusNotFound, "no such endpoint: %s %s; the document ID is missing", r.Method, p)
		}
		if strings.Contains(seg, "/") {
			return "other", "", nil, errorf(http.StatusNotFound, "no such endpoint: %s %s; a document ID with '/' is written %%2F", r.Method, p)
		}
		if id, err = url.PathUnescape(seg); err != nil {
			return "other", "", nil, errorf(http.StatusBadRequest, "bad escape in document ID %q: %v", seg, err)
		}
		rt = s.docRoute
		if similar {
			rt = s.similarRoute
		}
	}
	h = rt.methods[r.Method]
	if h == nil {
		return rt.name, id, func(w http.ResponseWriter, r *http.Request, _ string) error {
			w.Header().Set("Allow", rt.allow)
			return errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s; use %s", r.Method, rt.name, rt.allow)
		}, nil
	}
	return rt.name, id, h, nil
}

// statusRecorder remembers the status written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// writeJSON answers v with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeJSONBytes(w, status, b.Bytes())
}

// writeJSONBytes answers the JSON b with status.
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) error {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(b))}
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}

// jsonContentType is the Content-Type header of every answer but the
// metrics; net/http only reads it.
var jsonContentType = []string{"application/json"}

// writeError answers err as {"error": "..."}: its status for an apiError,
// 503 while shutting down or once the index failed for good (a damaged
// file), 500 otherwise.
func (s *server) writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
	case errors.Is(err, index.ErrLogClosed), errors.Is(err, index.ErrClosed):
		ae = &apiError{status: http.StatusServiceUnavailable, msg: "the server is shutting down; retry on its next start"}
	case s.x.Err() != nil && errors.Is(s.x.Err(), index.ErrCorrupt):
		// The index failed for good: no request can succeed until it is
		// repaired and the server restarted.
		ae = &apiError{status: http.StatusServiceUnavailable, msg: "the index failed: " + s.x.Err().Error()}
	default:
		ae = &apiError{status: http.StatusInternalServerError, msg: err.Error()}
	}
	writeJSON(w, ae.status, map[string]string{"error": ae.msg})
}

// params parses the query parameters of r, allowing only the names given.
// Each may be given once.
func params(r *http.Request, allowed ...string) (map[string]string, error) {
	if r.URL.RawQuery == "" {
		return nil, nil // no parameters: a nil map reads as empty
	}
	vals, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "malformed query string: %v", err)
	}
	out := map[string]string{}
	for k, v := range vals {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			if len(allowed) == 0 {
				return nil, errorf(http.StatusBadRequest, "unknown query parameter %q; this endpoint takes none", k)
			}
			return nil, errorf(http.StatusBadRequest, "unknown query parameter %q; this endpoint takes %s", k, strings.Join(allowed, ", "))
		}
		if len(v) > 1 {
			return nil, errorf(http.StatusBadRequest, "query parameter %q given %d times; give it once", k, len(v))
		}
		out[k] = v[0]
	}
	return out, nil
}

// queryOptions turns the parameters k, min_similarity and limit into query
// options; it also returns the distance resolved (k or the index's k).
func (s *server) queryOptions(p map[string]string) (index.QueryOptions, int, error) {
	var o index.QueryOptions
	maxDist := s.maxK
	if v, ok := p["k"]; ok {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 || k > index.MaxMaxDistance {
			return o, 0, errorf(http.StatusBadRequest, "k must be a whole number from 0 to %d, not %q", s.maxK, v)
		}
		if k > s.maxK {
			return o, 0, errorf(http.StatusBadRequest, "k %d is more than the %d bits the index answers exactly; create the index with --max-distance %d to query that far", k, s.maxK, k)
		}
		maxDist = k
		o.MaxDistance = k
		if k == 0 {
			o.MaxDistance = index.ZeroDistance
		}
	}
	if v, ok := p["verify"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, 0, errorf(http.StatusBadRequest, "verify must be true or false, not %q", v)
		}
		if b && !s.sets {
			return o, 0, errorf(http.StatusBadRequest, "verify needs the documents' shingle sets, and %s was created without them (--store-shingles; not for --method nshash or short)", s.db)
		}
		o.Verify = b
	}
	if v, ok := p["min_similarity"]; ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return o, 0, errorf(http.StatusBadRequest, "min_similarity must be a number from 0 to 1, not %q", v)
		}
		if f > 0 && !s.minHash && !o.Verify {
			return o, 0, errorf(http.StatusBadRequest, "min_similarity needs a similarity, and %s was created without the MinHash layer (--no-minhash, or a method without it); use k, or verify=true on an index made with --store-shingles", s.db)
		}
		o.MinSimilarity = f
		if f == 0 {
			o.MinSimilarity = index.NoMinSimilarity // 0: no threshold
		}
	}
	if v, ok := p["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return o, 0, errorf(http.StatusBadRequest, "limit must be a whole number, 0 for all, not %q", v)
		}
		o.Limit = n
	}
	return o, maxDist, nil
}

// exactBodyMax is the longest announced body length readBody allocates
// at once.
const exactBodyMax = 64 << 10

// readBody reads the whole body, at most maxBody bytes. Cost: one
// allocation of the announced length up to exactBodyMax, else a buffer
// grown as the body comes.
func (s *server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n >= 0 && n <= min(s.lim.maxBody, exactBodyMax) {
		// A short body of known length: one allocation of it, where
		// io.ReadAll grows a buffer from 512 bytes. (A longer one is read
		// as it comes: a client that announces megabytes and sends
		// nothing holds no more than it sent.)
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, errorf(http.StatusBadRequest, "reading the request body: %v", err)
		}
		return body, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.lim.maxBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, errorf(http.StatusRequestEntityTooLarge, "request body is over the limit of %d bytes (--max-body); send fewer documents per request", s.lim.maxBody)
	}
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "reading the request body: %v", err)
	}
	return body, nil
}

// matchRecord is a match as answered: the JSON of simidx query.
type matchRecord struct {
	ID         string   `json:"id"`
	Distance   int      `json:"distance"`
	Similarity *float64 `json:"similarity,omitempty"`
	Exact      *bool    `json:"exact,omitempty"`
}

// matchRecords returns the answers of ms: with their similarity if sim,
// and whether each is an exact copy of the query if text (a query with
// text; a match stored as a fingerprint is then no exact copy).
func matchRecords(ms []index.Match, sim, text bool) []matchRecord {
	out := make([]matchRecord, len(ms))
	for i := range ms {
		m := &ms[i]
		out[i] = matchRecord{ID: m.ID, Distance: m.Distance}
		if sim {
			out[i].Similarity = similarity(m.Similarity)
		}
		if text {
			out[i].Exact = &m.Exact
		}
	}
	return out
}

// parseDocs reads the documents of an add body: a JSON array of objects or
// a sequence of objects (JSON lines).
func (s *server) parseDocs(body []byte) ([]index.Doc, error) {
	body = bytes.TrimPrefix(body, []byte(byteOrderMark)) // JSON readers may ignore it (RFC 8259)
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, errorf(http.StatusBadRequest, `empty body; send a JSON array or JSON lines of {"id": ..., "text": ...}`)
	}
	array := trimmed[0] == '['
	if !array && trimmed[0] != '{' {
		return nil, errorf(http.StatusBadRequest, `malformed JSON: the body starts with %s; send a JSON array or JSON lines of {"id": ..., "text": ...}`, firstChar(trimmed))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	bad := func(n int, err error) error {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return errorf(http.StatusBadRequest, "malformed JSON at line %d: %v", lineOf(body, se.Offset), err)
		case errors.Is(err, io.EOF) && array:
			return errorf(http.StatusBadRequest, "malformed JSON: the body ends before the closing ]")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errorf(http.StatusBadRequest, "malformed JSON: the body ends in the middle of document %d", n)
		}
		return errorf(http.StatusBadRequest, "malformed JSON in document %d: %v", n, err)
	}
	if array {
		if _, err := dec.Token(); err != nil {
			return nil, bad(1, err)
		}
	}
	var docs []index.Doc
	for n := 1; dec.More(); n++ {
		if n > s.lim.maxDocs {
			return nil, errorf(http.StatusRequestEntityTooLarge, "more than %d documents in one request (--max-docs); send them in several requests", s.lim.maxDocs)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, bad(n, err)
		}
		d, err := s.checkDoc(n, raw)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	if array {
		if _, err := dec.Token(); err != nil {
			return nil, bad(len(docs)+1, err)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, errorf(http.StatusBadRequest, "malformed JSON: more after the end of the array")
		}
		return nil, bad(len(docs)+1, err)
	}
	if len(docs) == 0 {
		return nil, errorf(http.StatusBadRequest, "no documents in the body")
	}
	return docs, nil
}

// firstChar describes the first character of the non-empty b for an
// error: quoted if it is printable, else as its bytes.
func firstChar(b []byte) string {
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError || !unicode.IsPrint(r) {
		return fmt.Sprintf("the byte 0x%02x", b[0])
	}
	return strconv.Quote(string(b[:size]))
}

// checkDoc validates document n, the valid JSON value raw: an object with
// the fields "id" (a string or a number) and "text" (a string), named
// exactly so.
func (s *server) checkDoc(n int, raw []byte) (index.Doc, error) {
	if k := jsondoc.Kind(raw); k != "object" {
		return index.Doc{}, errorf(http.StatusBadRequest, "document %d must be a JSON object, not a JSON %s", n, k)
	}
	var rawID, rawText []byte
	// Other fields are ignored, as simidx index --input jsonl ignores
	// them: a corpus's records can be posted as they are.
	err := jsondoc.Fields(raw, func(name string, v []byte) error {
		switch name {
		case s.lim.idField:
			rawID = v
		case s.lim.textField:
			rawText = v
		}
		return nil
	})
	if err != nil {
		return index.Doc{}, err
	}
	var id string
	switch k := jsondoc.Kind(rawID); k {
	case "nothing", "null":
		return index.Doc{}, errorf(http.StatusBadRequest, `document %d: missing "id"`, n)
	case "string":
		if id, err = jsondoc.String(rawID); err != nil {
			return index.Doc{}, errorf(http.StatusBadRequest, `document %d: "id" %v`, n, err)
		}
	case "number":
		id = string(rawID) // as written
	default:
		return index.Doc{}, errorf(http.StatusBadRequest, `document %d: "id" must be a string or a number, not %s`, n, truncate(string(rawID), 40))
	}
	switch {
	case id == "":
		return index.Doc{}, errorf(http.StatusBadRequest, `document %d: empty "id"`, n)
	case len(id) > index.MaxIDLen:
		return index.Doc{}, errorf(http.StatusBadRequest, `document %d: "id" is %d bytes, more than the limit of %d`, n, len(id), index.MaxIDLen)
	}
	var text []byte
	switch k := jsondoc.Kind(rawText); k {
	case "nothing", "null":
		return index.Doc{}, errorf(http.StatusBadRequest, `document %d (%q): missing "text"`, n, truncate(id, 60))
	case "string":
		// raw is the decoder's copy, this document's own, so text may
		// be a part of it.
		if text, err = jsondoc.Bytes(rawText); err != nil {
			return index.Doc{}, errorf(http.StatusBadRequest, `document %d (%q): bad "text": %v`, n, truncate(id, 60), err)
		}
	default:
		return index.Doc{}, errorf(http.StatusBadRequest, `document %d: field "text" must be a string, not a JSON %s`, n, k)
	}
	if len(text) > s.lim.maxDocBytes {
		return index.Doc{}, errorf(http.StatusRequestEntityTooLarge, `document %d (%q): text is %d bytes, more than the limit of %d (--max-doc-bytes)`, n, truncate(id, 60), len(text), s.lim.maxDocBytes)
	}
	return index.Doc{ID: id, Text: text}, nil
}

// lineOf returns the line number of byte offset off in b, from 1.
func lineOf(b []byte, off int64) int {
	off = min(max(off, 0), int64(len(b)))
	return bytes.Count(b[:off], []byte{'\n'}) + 1
}

// handleAdd is POST /v1/documents.
func (s *server) handleAdd(w http.ResponseWriter, r *http.Request, _ string) error {
	p, err := params(r, "if_unique", "k", "min_similarity", "verify", "limit")
	if err != nil {
		return err
	}
	ifUnique := false
	if v, ok := p["if_unique"]; ok {
		if ifUnique, err = strconv.ParseBool(v); err != nil {
			return errorf(http.StatusBadRequest, "if_unique must be true or false, not %q", v)
		}
	}
	if !ifUnique {
		for _, k := range []string{"k", "min_similarity", "verify", "limit"} {
			if _, ok := p[k]; ok {
				return errorf(http.StatusBadRequest, "query parameter %q applies only with if_unique=true", k)
			}
		}
	}
	opts, _, err := s.queryOptions(p)
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	docs, err := s.parseDocs(body)
	if err != nil {
		return err
	}
	// One call for the request: its documents are logged together, all
	// or none, in a group commit with those of other requests.
	if !ifUnique {
		if err := s.x.Add(docs...); err != nil {
			return addError(err)
		}
		return writeJSON(w, http.StatusOK, map[string]int{"added": len(docs)})
	}
	dups, err := s.x.AddIfUnique(&opts, docs...)
	if err != nil {
		return addError(err)
	}
	if len(dups) == 0 {
		return writeJSON(w, http.StatusOK, map[string]int{"added": len(docs)})
	}
	out := make([]duplicate, len(dups))
	for i, d := range dups {
		out[i] = duplicate{ID: d.ID, Matches: matchRecords(d.Matches, s.minHash || opts.Verify, true)}
	}
	return writeJSON(w, http.StatusConflict, struct {
		Error      string      `json:"error"`
		Added      int         `json:"added"`
		Duplicates []duplicate `json:"duplicates"`
	}{
		Error: fmt.Sprintf("%d of %d %s near duplicates and %s not added",
			len(dups), len(docs), plural(int64(len(docs)), "document has", "documents have"),
			plural(int64(len(dups)), "was", "were")),
		Added:      len(docs) - len(dups),
		Duplicates: out,
	})
}

// duplicate is a document refused by if_unique, with its near duplicates.
type duplicate struct {
	ID      string        `json:"id"`
	Matches []matchRecord `json:"matches"`
}

// addError answers an error of Add or AddIfUnique: a document the index
// refuses (checkDoc lets through what only the index checks) is the
// client's error.
func addError(err error) error {
	switch {
	case errors.Is(err, index.ErrTooLarge):
		return errorf(http.StatusRequestEntityTooLarge, "%v", err)
	case errors.Is(err, index.ErrInvalidID), errors.Is(err, index.ErrSettings):
		return errorf(http.StatusBadRequest, "%v", err)
	}
	return err
}

// queryJSON is the body of POST /v1/query.
type queryJSON struct {
	Text        *string `json:"text"`
	Fingerprint *string `json:"fingerprint"`
}

// isTextPlain reports whether the Content-Type ct is text/plain, with any
// parameters (media types are case-insensitive).
func isTextPlain(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/plain")
}

// parseQuery reads a query body of JSON: an object with the field "text"
// or "fingerprint", a string, named exactly so.
func parseQuery(body []byte) (queryJSON, error) {
	var q queryJSON
	body = bytes.TrimPrefix(body, []byte(byteOrderMark))
	if len(bytes.TrimSpace(body)) == 0 {
		return q, errorf(http.StatusBadRequest, `empty body; send {"text": "..."} or {"fingerprint": "HEX"}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return q, errorf(http.StatusBadRequest, "malformed JSON at line %d: %v", lineOf(body, se.Offset), err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return q, errorf(http.StatusBadRequest, "malformed JSON: the body ends in the middle of the query")
		}
		return q, errorf(http.StatusBadRequest, "malformed JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return q, errorf(http.StatusBadRequest, "malformed JSON: more after the query object")
	}
	if k := jsondoc.Kind(raw); k != "object" {
		return q, errorf(http.StatusBadRequest, `the query must be a JSON object, {"text": "..."} or {"fingerprint": "HEX"}, not a JSON %s`, k)
	}
	err := jsondoc.Fields(raw, func(name string, v []byte) error {
		var dst **string
		switch name {
		case "text":
			dst = &q.Text
		case "fingerprint":
			dst = &q.Fingerprint
		default:
			return errorf(http.StatusBadRequest, `unknown field %q; a query has "text" or "fingerprint"`, name)
		}
		switch k := jsondoc.Kind(v); k {
		case "null":
			*dst = nil
		case "string":
			b, err := jsondoc.Bytes(v)
			if err != nil {
				return errorf(http.StatusBadRequest, "bad %q: %v", name, err)
			}
			str := string(b)
			*dst = &str
		default:
			return errorf(http.StatusBadRequest, "field %q must be a string, not a JSON %s", name, k)
		}
		return nil
	})
	return q, err
}

// handleQuery is POST /v1/query.
func (s *server) handleQuery(w http.ResponseWriter, r *http.Request, _ string) error {
	p, err := params(r, "k", "min_similarity", "verify", "limit")
	if err != nil {
		return err
	}
	opts, _, err := s.queryOptions(p)
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var q queryJSON
	if isTextPlain(r.Header.Get("Content-Type")) {
		t := string(body)
		q.Text = &t
	} else if t, ok := fastQueryText(body); ok {
		q.Text = &t
	} else if q, err = parseQuery(body); err != nil {
		return err
	}
	var ms []index.Match
	switch {
	case q.Text != nil && q.Fingerprint != nil:
		return errorf(http.StatusBadRequest, `give "text" or "fingerprint", not both`)
	case q.Text != nil:
		if len(*q.Text) > s.lim.maxDocBytes {
			return errorf(http.StatusRequestEntityTooLarge, "text is %d bytes, more than the limit of %d (--max-doc-bytes)", len(*q.Text), s.lim.maxDocBytes)
		}
		ms, err = s.x.Query([]byte(*q.Text), &opts)
	case q.Fingerprint != nil:
		fp, ok := input.ParseHex(*q.Fingerprint)
		if !ok {
			return errorf(http.StatusBadRequest, `"fingerprint" wants 1 to 16 hexadecimal digits, not %q`, truncate(*q.Fingerprint, 40))
		}
		if opts.MinSimilarity > 0 {
			return errorf(http.StatusBadRequest, "min_similarity cannot be used with a fingerprint: a fingerprint has no MinHash signature")
		}
		ms, err = s.x.QueryFingerprint(fp, &opts)
	default:
		return errorf(http.StatusBadRequest, `missing "text" or "fingerprint"`)
	}
	// The index answers with the documents logged and not yet in its
	// file: a query sees every add answered before it started.
	if err != nil {
		return err
	}
	// A fingerprint has no signature: no similarity to report.
	recs := matchRecords(ms, (s.minHash || opts.Verify) && q.Text != nil, q.Text != nil)
	return writeJSONBytes(w, http.StatusOK, appendMatchesJSON(make([]byte, 0, 32+64*len(recs)), recs))
}

// handleSimilar is GET /v1/documents/{id}/similar.
func (s *server) handleSimilar(w http.ResponseWriter, r *http.Request, id string) error {
	p, err := params(r, "k", "min_similarity", "verify", "limit")
	if err != nil {
		return err
	}
	opts, _, err := s.queryOptions(p)
	if err != nil {
		return err
	}
	ms, text, err := s.similar(id, opts)
	switch {
	case errors.Is(err, index.ErrNotFound):
		return errorf(http.StatusNotFound, "no document %q in the index", id)
	case errors.Is(err, index.ErrSettings):
		return errorf(http.StatusBadRequest, "%v", err)
	case err != nil:
		return err
	}
	// A document stored as a fingerprint has no text: no similarity, and
	// whether a match is an exact copy is not known.
	return writeJSON(w, http.StatusOK, map[string]any{"id": id, "matches": matchRecords(ms, (s.minHash || opts.Verify) && text, text)})
}

// similar returns the near duplicates of the document id, logged or in
// the index file, and whether the document has text (it was not added as
// a fingerprint). Documents are added over HTTP with text only, so a
// document found with text keeps it.
func (s *server) similar(id string, opts index.QueryOptions) ([]index.Match, bool, error) {
	d, err := s.x.Get(id)
	if err != nil {
		return nil, false, err
	}
	ms, err := s.x.QueryID(id, &opts)
	return ms, !d.Precomputed, err
}

// handleGet is GET /v1/documents/{id}.
func (s *server) handleGet(w http.ResponseWriter, r *http.Request, id string) error {
	if _, err := params(r); err != nil {
		return err
	}
	d, err := s.x.Get(id)
	if errors.Is(err, index.ErrNotFound) {
		return errorf(http.StatusNotFound, "no document %q in the index", id)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, struct {
		ID          string `json:"id"`
		Fingerprint string `json:"fingerprint"`
		Precomputed bool   `json:"precomputed,omitempty"`
	}{d.ID, hex16(d.Fingerprint), d.Precomputed})
}

// handleDelete is DELETE /v1/documents/{id}.
func (s *server) handleDelete(w http.ResponseWriter, r *http.Request, id string) error {
	if _, err := params(r); err != nil {
		return err
	}
	// Deletes are logged in order with adds.
	n, err := s.x.Delete(id)
	if err != nil {
		return err
	}
	if n == 0 {
		return errorf(http.StatusNotFound, "no document %q in the index", id)
	}
	return writeJSON(w, http.StatusOK, map[string]int{"deleted": n})
}

// handleStats is GET /v1/stats: the JSON of simidx stats.
func (s *server) handleStats(w http.ResponseWriter, r *http.Request, _ string) error {
	if _, err := params(r); err != nil {
		return err
	}
	// Stats commits the logged operations to the index file first.
	st, err := s.x.Stats()
	if err != nil {
		return err
	}
	// Documents logged since, and not yet committed, count as documents.
	st.Docs = s.x.Len()
	return writeJSON(w, http.StatusOK, struct {
		statsRecord
		Pending int `json:"journal_pending"`
	}{newStatsRecord(s.db, s.x.Settings(), st), s.x.LogStats().Pending})
}

// handleHealth is GET /healthz.
func (s *server) handleHealth(w http.ResponseWriter, r *http.Request, _ string) error {
	if _, err := params(r); err != nil {
		return err
	}
	if err := s.x.Err(); err != nil && errors.Is(err, index.ErrCorrupt) {
		return writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "failed", "error": err.Error()})
	}
	return writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "documents": s.x.Len()})
}

// handleMetrics is GET /metrics.
func (s *server) handleMetrics(w http.ResponseWriter, r *http.Request, _ string) error {
	if _, err := params(r); err != nil {
		return err
	}
	var b bytes.Buffer
	s.met.write(&b, s)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b.Bytes())
	return err
}
