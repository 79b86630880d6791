package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/input"
	"github.com/simidx/simidx/internal/jsondoc"
)

// handleQuery is POST /v1/query.
func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) error {
	p, err := params(r, "k", "min_similarity", "verify", "limit")
	if err != nil {
		return err
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
		if len(*q.Text) > s.opts.MaxDocBytes {
			return errorf(http.StatusRequestEntityTooLarge, "text is %d bytes, more than the limit of %d (--max-doc-bytes)", len(*q.Text), s.opts.MaxDocBytes)
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
func (s *Server) handleSimilar(w http.ResponseWriter, r *http.Request) error {
	p, err := params(r, "k", "min_similarity", "verify", "limit")
	if err != nil {
		return err
	}
	opts, err := s.queryOptions(p)
	if err != nil {
		return err
	}
	id := docID(r)
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
func (s *Server) similar(id string, opts index.QueryOptions) ([]index.Match, bool, error) {
	d, err := s.x.Get(id)
	if err != nil {
		return nil, false, err
	}
	ms, err := s.x.QueryID(id, &opts)
	return ms, !d.Precomputed, err
}

// queryOptions turns the parameters k, min_similarity, verify and limit
// into query options.
func (s *Server) queryOptions(p map[string]string) (index.QueryOptions, error) {
	var o index.QueryOptions
	if v, ok := p["k"]; ok {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 || k > index.MaxMaxDistance {
			return o, errorf(http.StatusBadRequest, "k must be a whole number from 0 to %d, not %q", s.maxK, v)
		}
		if k > s.maxK {
			return o, errorf(http.StatusBadRequest, "k %d is more than the %d bits the index answers exactly; create the index with --max-distance %d to query that far", k, s.maxK, k)
		}
		o.MaxDistance = k
		if k == 0 {
			o.MaxDistance = index.ZeroDistance
		}
	}
	if v, ok := p["verify"]; ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, errorf(http.StatusBadRequest, "verify must be true or false, not %q", v)
		}
		if b && !s.sets {
			return o, errorf(http.StatusBadRequest, "verify needs the documents' shingle sets, and %s was created without them (--store-shingles; not for --method nshash or short)", s.path)
		}
		o.Verify = b
	}
	if v, ok := p["min_similarity"]; ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return o, errorf(http.StatusBadRequest, "min_similarity must be a number from 0 to 1, not %q", v)
		}
		if f > 0 && !s.minHash && !o.Verify {
			return o, errorf(http.StatusBadRequest, "min_similarity needs a similarity, and %s was created without the MinHash layer (--no-minhash, or a method without it); use k, or verify=true on an index made with --store-shingles", s.path)
		}
		o.MinSimilarity = f
		if f == 0 {
			o.MinSimilarity = index.NoMinSimilarity // 0: no threshold
		}
	}
	if v, ok := p["limit"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return o, errorf(http.StatusBadRequest, "limit must be a whole number, 0 for all, not %q", v)
		}
		o.Limit = n
	}
	return o, nil
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

// The query endpoint's common request and answer are parsed and written by
// hand: encoding/json's reflection took a fifth of the handler's CPU (see
// BenchmarkServeQuery). Anything out of the common form goes through
// encoding/json, and the tests hold the two to the same results.

// fastQueryText returns the text of a query body of the common form
// {"text": "..."}, with a string free of escapes and control characters
// and in valid UTF-8: the string encoding/json decodes it to. ok is false
// for any other body, to be decoded in full. It costs one pass over b.
func fastQueryText(b []byte) (text string, ok bool) {
	const key = `"text"`
	i := jsondoc.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	i = jsondoc.SkipSpace(b, i+1)
	if len(b)-i < len(key) || string(b[i:i+len(key)]) != key {
		return "", false
	}
	i = jsondoc.SkipSpace(b, i+len(key))
	if i >= len(b) || b[i] != ':' {
		return "", false
	}
	i = jsondoc.SkipSpace(b, i+1)
	if i >= len(b) || b[i] != '"' {
		return "", false
	}
	start := i + 1
	end := start
	for ; end < len(b) && b[end] != '"'; end++ {
		if c := b[end]; c == '\\' || c < 0x20 {
			return "", false
		}
	}
	if end >= len(b) || !utf8.Valid(b[start:end]) {
		return "", false
	}
	i = jsondoc.SkipSpace(b, end+1)
	if i >= len(b) || b[i] != '}' || jsondoc.SkipSpace(b, i+1) != len(b) {
		return "", false
	}
	return string(b[start:end]), true
}
