// Package server is the HTTP API of simidx serve: near-duplicate checks,
// adds, deletes and queries of an open index over JSON, with Prometheus
// metrics. docs/server.md describes the requests and answers.
//
// A Server is an http.Handler over an *index.Index:
//
//	POST   /v1/documents                add or replace documents; ?if_unique=true refuses near duplicates (409)
//	POST   /v1/query                    the near duplicates of a text or a fingerprint
//	POST   /v1/compare                  the measures and shared passages of two texts
//	GET    /v1/documents/{id}           a stored document's fingerprint
//	GET    /v1/documents/{id}/similar   the near duplicates of a stored document
//	DELETE /v1/documents/{id}           remove a document
//	GET    /v1/stats                    describe the index
//	GET    /healthz                     liveness
//	GET    /metrics                     Prometheus metrics
//	GET    /                            a page for people, a client of the endpoints above
//
// The page checks a text, shows its matches and the passages it shares
// with another text given, a stored document's neighbours and the index's
// figures; it adds and deletes only with Options.PageWrites. Every answer
// but the metrics and the page is JSON; every error is {"error": "..."}
// with its status, also for an unknown path (404) and a method an
// endpoint does not take (405, with the Allow header).
//
// The index does the writing: each add or delete request is one call of
// its Add, AddIfUnique or Delete, which by default go through its
// write-ahead log, durable when they return and grouped with the calls of
// other requests into one fdatasync (see index.LogOptions). A program
// opens the index with the log's options and the Metrics' events, serves
// it until its context is cancelled, and then closes the index, which
// commits every logged operation to the index file:
//
//	m := server.NewMetrics()
//	x, err := index.Open(path, &index.Options{BandFilter: true, TableMirror: true,
//		Log: &index.LogOptions{Events: m.LogEvents()}})
//	...
//	s, err := server.New(x, &server.Options{Metrics: m})
//	...
//	err = s.ListenAndServe(ctx, "127.0.0.1:8080", nil)
//	if cerr := x.Close(); err == nil {
//		err = cerr
//	}
package server
