package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/simidx/simidx/index"
)

// apiError is an error answered with its status and {"error": msg}.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) *apiError {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

// writeError answers err as {"error": "..."}: its status for an apiError,
// 503 while the index closes or once it failed for good (a damaged file),
// 500 otherwise.
func (s *Server) writeError(w http.ResponseWriter, err error) {
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
