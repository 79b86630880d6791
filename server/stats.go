package server

import (
	"errors"
	"net/http"
	"path/filepath"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/indexflag"
)

// handleStats is GET /v1/stats: the object of simidx stats --format jsonl,
// and the operations logged and not yet in the index file.
func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) error {
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
	set := s.x.Settings()
	return writeJSON(w, http.StatusOK, struct {
		Path string `json:"path"`
		index.Stats
		StoreShingles bool           `json:"store_shingles"`
		Text          map[string]any `json:"text"`
		Pending       int            `json:"journal_pending"`
	}{s.path, st, set.StoreShingles, indexflag.NamedText(set.Text), s.x.LogStats().Pending})
}

// handleHealth is GET /healthz: 200 with the number of documents, or 503
// once the index failed for good. It costs nothing.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	if _, err := params(r); err != nil {
		return err
	}
	if err := s.x.Err(); err != nil && errors.Is(err, index.ErrCorrupt) {
		return writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "failed", "error": err.Error()})
	}
	return writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "documents": s.x.Len()})
}

// handleBackup answers GET /v1/backup with a consistent copy of the index
// file (index.Index.Backup: the logged operations committed first, then
// one read transaction, which writes go on beside), as a stream of bytes
// that `simidx backup` or curl saves. The write timeout does not apply:
// the copy takes the time its size takes. A copy cut short (the client
// gone) ends the connection without a complete answer.
func (s *Server) handleBackup(w http.ResponseWriter, r *http.Request) error {
	if _, err := params(r); err != nil {
		return err
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filepath.Base(s.path)+`"`)
	if r.Method == http.MethodHead {
		return nil
	}
	n, err := s.x.Backup(w)
	switch {
	case err == nil:
		return nil
	case n == 0:
		w.Header().Del("Content-Disposition")
		return err // nothing sent yet: an error answer
	}
	// The status is sent: the connection is cut so that the client sees
	// an incomplete answer, not a short copy.
	panic(http.ErrAbortHandler)
}
