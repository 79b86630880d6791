package server

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// routeOther is the metrics route of a request that matches no endpoint.
const routeOther = "other"

// handler answers a request; an error is answered by writeError.
type handler func(w http.ResponseWriter, r *http.Request) error

// method is a handler of an endpoint for one HTTP method.
type method struct {
	name string
	h    handler
}

// routes returns the router of the API. Each endpoint is a path pattern
// with a handler per method (GET answers HEAD too, without the body) and a
// method-less fallback that answers 405 with the Allow header in JSON
// (ServeMux's own 405 is plain text); paths that match no endpoint get
// 404 in JSON. A document ID is one path segment, which ServeMux matches
// escaped and unescapes: an ID holding '/' is written with %2F. ServeMux
// redirects a path that is not clean (holding //, /./ or /../) to its
// clean form (307), so an ID "." or ".." is written %2E or %2E%2E.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	s.endpoint(mux, "/v1/documents", method{http.MethodPost, s.handleAdd})
	s.endpoint(mux, "/v1/query", method{http.MethodPost, s.handleQuery})
	s.endpoint(mux, "/v1/compare", method{http.MethodPost, s.handleCompare})
	s.endpoint(mux, "/v1/documents/{id}", method{http.MethodGet, s.handleGet}, method{http.MethodDelete, s.handleDelete})
	s.endpoint(mux, "/v1/documents/{id}/similar", method{http.MethodGet, s.handleSimilar})
	s.endpoint(mux, "/v1/stats", method{http.MethodGet, s.handleStats})
	s.endpoint(mux, "/v1/backup", method{http.MethodGet, s.handleBackup})
	s.endpoint(mux, "/healthz", method{http.MethodGet, s.handleHealth})
	s.endpoint(mux, "/metrics", method{http.MethodGet, s.handleMetrics})
	// The paths under /v1/documents/ that no pattern above matches: an
	// empty ID, or an ID with an unescaped '/'.
	mux.Handle("/v1/documents/", s.route(routeOther, func(w http.ResponseWriter, r *http.Request) error {
		p := r.URL.EscapedPath()
		rest := strings.TrimSuffix(strings.TrimPrefix(p, "/v1/documents/"), "/similar")
		if rest == "" {
			return errorf(http.StatusNotFound, "no such endpoint: %s %s; the document ID is missing", r.Method, p)
		}
		return errorf(http.StatusNotFound, "no such endpoint: %s %s; a document ID with '/' is written %%2F", r.Method, p)
	}))
	// The page: "/" alone ({$}); any other path that no pattern matches
	// is not found.
	mux.Handle("GET /{$}", s.route("/", s.handlePage))
	mux.Handle("/{$}", s.route("/", func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Allow", "GET, HEAD")
		return errorf(http.StatusMethodNotAllowed, "method %s not allowed on /, the page; use GET, HEAD", r.Method)
	}))
	mux.Handle("/", s.route(routeOther, func(w http.ResponseWriter, r *http.Request) error {
		return errorf(http.StatusNotFound, "no such endpoint: %s %s; the endpoints are under /v1/ (see docs/server.md)", r.Method, r.URL.EscapedPath())
	}))
	return mux
}

// endpoint registers the methods of the endpoint path on mux, and the
// answer to the other methods: 405, with the Allow header. The metrics
// route of the endpoint is path.
func (s *Server) endpoint(mux *http.ServeMux, path string, methods ...method) {
	var allow []string
	for _, m := range methods {
		mux.Handle(m.name+" "+path, s.route(path, m.h))
		allow = append(allow, m.name)
		if m.name == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
	}
	allowed := strings.Join(allow, ", ")
	mux.Handle(path, s.route(path, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Allow", allowed)
		return errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s; use %s", r.Method, path, allowed)
	}))
}

// route returns the http.Handler of h, whose requests the metrics count
// under route.
func (s *Server) route(route string, h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec, ok := w.(*recorder); ok {
			rec.route = route
		}
		if err := h(w, r); err != nil {
			s.writeError(w, err)
		}
	})
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
		if !slices.Contains(allowed, k) {
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
