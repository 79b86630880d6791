package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/jsondoc"
)

// maxComparePassages is the most passages POST /v1/compare reports.
const maxComparePassages = 100

// handleCompare is POST /v1/compare: the measures of two texts under the
// index's text settings and their longest shared passages, as `simidx
// compare --format jsonl` writes them. The index keeps no texts, so both
// are in the request; it reads nothing of the index.
func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) error {
	p, err := params(r, "passages")
	if err != nil {
		return err
	}
	n := 5
	if v, ok := p["passages"]; ok {
		n, err = strconv.Atoi(v)
		if err != nil || n < 0 || n > maxComparePassages {
			return errorf(http.StatusBadRequest, "passages must be a whole number from 0 to %d, not %q", maxComparePassages, v)
		}
	}
	body, release, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	defer release()
	a, b, err := parseCompare(body)
	if err != nil {
		return err
	}
	for _, t := range []struct {
		name string
		text []byte
	}{{"a", a}, {"b", b}} {
		if len(t.text) > s.opts.MaxDocBytes {
			return errorf(http.StatusRequestEntityTooLarge, "%q is %d bytes, more than the limit of %d (--max-doc-bytes)", t.name, len(t.text), s.opts.MaxDocBytes)
		}
	}
	f := s.fingerprinters.Get().(*index.Fingerprinter)
	defer s.fingerprinters.Put(f)
	c, err := eval.CompareTexts(r.Context(), f, a, b, n)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, c.Record(a, b, 0, 0))
}

// parseCompare reads the body of POST /v1/compare: {"a": "...", "b":
// "..."}, both strings.
func parseCompare(body []byte) (a, b []byte, err error) {
	body = bytes.TrimPrefix(body, []byte(byteOrderMark))
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil, errorf(http.StatusBadRequest, `empty body; send {"a": "...", "b": "..."}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, nil, errorf(http.StatusBadRequest, "malformed JSON at line %d: %v", lineOf(body, se.Offset), err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, nil, errorf(http.StatusBadRequest, "malformed JSON: the body ends in the middle of the object")
		}
		return nil, nil, errorf(http.StatusBadRequest, "malformed JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errorf(http.StatusBadRequest, "malformed JSON: more after the object")
	}
	if k := jsondoc.Kind(raw); k != "object" {
		return nil, nil, errorf(http.StatusBadRequest, `the body must be a JSON object, {"a": "...", "b": "..."}, not a JSON %s`, k)
	}
	var seenA, seenB bool
	err = jsondoc.Fields(raw, func(name string, v []byte) error {
		var dst *[]byte
		switch name {
		case "a":
			dst, seenA = &a, true
		case "b":
			dst, seenB = &b, true
		default:
			return errorf(http.StatusBadRequest, `unknown field %q; the body has the texts "a" and "b"`, name)
		}
		if k := jsondoc.Kind(v); k != "string" {
			return errorf(http.StatusBadRequest, "field %q must be a string, not a JSON %s", name, k)
		}
		t, err := jsondoc.Bytes(v)
		if err != nil {
			return errorf(http.StatusBadRequest, "bad %q: %v", name, err)
		}
		*dst = t
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if !seenA || !seenB {
		return nil, nil, errorf(http.StatusBadRequest, `missing "a" or "b": compare takes two texts`)
	}
	return a, b, nil
}
