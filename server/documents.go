package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/jsondoc"
)

// byteOrderMark is the UTF-8 encoding of U+FEFF, the byte order mark, which
// a request body may start with (RFC 8259 lets JSON readers ignore it).
const byteOrderMark = "\xef\xbb\xbf"

// handleAdd is POST /v1/documents.
func (s *Server) handleAdd(w http.ResponseWriter, r *http.Request) error {
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
	opts, err := s.queryOptions(p)
	if err != nil {
		return err
	}
	body, release, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	defer release()
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
			len(dups), len(docs), plural(len(docs), "document has", "documents have"),
			plural(len(dups), "was", "were")),
		Added:      len(docs) - len(dups),
		Duplicates: out,
	})
}

// duplicate is a document refused by if_unique, with its near duplicates.
type duplicate struct {
	ID      string        `json:"id"`
	Matches []matchRecord `json:"matches"`
}

// plural returns one if n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// exactBodyMax is the longest announced body length readBody allocates
// at once.
const exactBodyMax = 64 << 10

// readBody reads the whole body, at most Options.MaxBody bytes, once its
// share of Options.MaxBodyInFlight is free (a body announced over MaxBody
// is refused unread), and returns it with the function that gives the
// share back, to call when the request is answered. Cost: one allocation
// of the announced length up to exactBodyMax, else a buffer grown as the
// body comes.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, func(), error) {
	if r.ContentLength > s.opts.MaxBody {
		// Refused before a byte of it is read.
		return nil, nil, errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes is over the limit of %d bytes (--max-body); send fewer documents per request", r.ContentLength, s.opts.MaxBody)
	}
	// The body's share of the bytes held at once: what it announces, or
	// the most it may be.
	share := s.opts.MaxBody
	if r.ContentLength >= 0 {
		share = r.ContentLength
	}
	if err := s.budget.acquire(r.Context(), share); err != nil {
		return nil, nil, errorf(http.StatusServiceUnavailable, "the request ended while waiting for room for its body (--max-body-in-flight): %v", err)
	}
	release := sync.OnceFunc(func() { s.budget.release(share) })
	body, err := s.readBodyBytes(w, r)
	if err != nil {
		release()
		return nil, nil, err
	}
	return body, release, nil
}

// readBodyBytes reads the body of r, at most Options.MaxBody bytes.
func (s *Server) readBodyBytes(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n >= 0 && n <= min(s.opts.MaxBody, exactBodyMax) {
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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, errorf(http.StatusRequestEntityTooLarge, "request body is over the limit of %d bytes (--max-body); send fewer documents per request", s.opts.MaxBody)
	}
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "reading the request body: %v", err)
	}
	return body, nil
}

// parseDocs reads the documents of an add body: a JSON array of objects or
// a sequence of objects (JSON lines).
func (s *Server) parseDocs(body []byte) ([]index.Doc, error) {
	body = bytes.TrimPrefix(body, []byte(byteOrderMark))
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
		if n > s.opts.MaxDocs {
			return nil, errorf(http.StatusRequestEntityTooLarge, "more than %d documents in one request (--max-docs); send them in several requests", s.opts.MaxDocs)
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
// the ID field (a string or a number) and the text field (a string) of the
// Options, named exactly so.
func (s *Server) checkDoc(n int, raw []byte) (index.Doc, error) {
	if k := jsondoc.Kind(raw); k != "object" {
		return index.Doc{}, errorf(http.StatusBadRequest, "document %d must be a JSON object, not a JSON %s", n, k)
	}
	var rawID, rawText []byte
	// Other fields are ignored, as simidx index --input jsonl ignores
	// them: a corpus's records can be posted as they are.
	err := jsondoc.Fields(raw, func(name string, v []byte) error {
		switch name {
		case s.opts.IDField:
			rawID = v
		case s.opts.TextField:
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
	if len(text) > s.opts.MaxDocBytes {
		return index.Doc{}, errorf(http.StatusRequestEntityTooLarge, `document %d (%q): text is %d bytes, more than the limit of %d (--max-doc-bytes)`, n, truncate(id, 60), len(text), s.opts.MaxDocBytes)
	}
	return index.Doc{ID: id, Text: text}, nil
}

// lineOf returns the line number of byte offset off in b, from 1.
func lineOf(b []byte, off int64) int {
	off = min(max(off, 0), int64(len(b)))
	return bytes.Count(b[:off], []byte{'\n'}) + 1
}

// truncate returns s cut to n bytes, with "..." if it was longer.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// docID returns the document ID of a request to /v1/documents/{id}, the
// path segment unescaped.
func docID(r *http.Request) string { return r.PathValue("id") }

// handleGet is GET /v1/documents/{id}.
func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) error {
	if _, err := params(r); err != nil {
		return err
	}
	id := docID(r)
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
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) error {
	if _, err := params(r); err != nil {
		return err
	}
	id := docID(r)
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
