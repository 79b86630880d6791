package main

import (
	"errors"
	"sync"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/journal"
)

// pendingDoc is a document of an add request, analysed by its handler.
type pendingDoc struct {
	id    string
	text  []byte
	probe index.Probe
}

// addRequest is one add or delete request handed to the writer: its
// operations are journaled in one group with those of other requests.
type addRequest struct {
	docs     []pendingDoc
	del      string // the ID to delete, for a delete request (docs is empty)
	ifUnique bool
	opts     index.QueryOptions // for ifUnique
	done     chan addResult
}

// addResult is what the writer did with an addRequest.
type addResult struct {
	added      int
	deleted    int
	duplicates []duplicate
	err        error
}

// duplicate is a document refused by if_unique, with its near duplicates.
type duplicate struct {
	ID      string        `json:"id"`
	Matches []matchRecord `json:"matches"`
}

// writer journals requests in groups: one goroutine takes every request
// queued (up to groupDocs documents, waiting at most groupDelay for more),
// checks the if_unique ones and the deletes against the index and every
// pending operation (the overlay and the group so far), appends the
// group's operations to the journal with one fdatasync, publishes them to
// the overlay and answers each request. The applier commits them to the
// index later.
type writer struct {
	s    *server
	ch   chan *addRequest
	done chan struct{}

	mu     sync.RWMutex // held to send on ch; held exclusively to close it
	closed bool
	recs   []journal.Record
}

var errShuttingDown = errors.New("the server is shutting down")

func newWriter(s *server) *writer {
	w := &writer{s: s, ch: make(chan *addRequest, 256), done: make(chan struct{})}
	go w.loop()
	return w
}

// submit queues r and waits for its result.
func (w *writer) submit(r *addRequest) addResult {
	r.done = make(chan addResult, 1)
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return addResult{err: errShuttingDown}
	}
	w.ch <- r
	w.mu.RUnlock()
	return <-r.done
}

// close journals the requests queued and stops the writer.
func (w *writer) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.mu.Unlock()
	<-w.done
}

func (w *writer) loop() {
	defer close(w.done)
	lim := w.s.lim
	var timer *time.Timer
	for {
		r, ok := <-w.ch
		if !ok {
			return
		}
		group := []*addRequest{r}
		n := max(len(r.docs), 1)
		var deadline <-chan time.Time
		if lim.groupDelay > 0 {
			if timer == nil {
				timer = time.NewTimer(lim.groupDelay)
			} else {
				timer.Reset(lim.groupDelay)
			}
			deadline = timer.C
		}
	collect:
		for n < lim.groupDocs {
			select {
			case r, ok := <-w.ch:
				if !ok {
					break collect
				}
				group = append(group, r)
				n += max(len(r.docs), 1)
				continue
			default:
			}
			if deadline == nil {
				break
			}
			select {
			case r, ok := <-w.ch:
				if !ok {
					break collect
				}
				group = append(group, r)
				n += max(len(r.docs), 1)
			case <-deadline:
				deadline = nil
				break collect
			}
		}
		if timer != nil {
			timer.Stop() // no stale tick is delivered after Stop (Go 1.23 timers)
		}
		w.commit(group)
	}
}

// commit decides what each request of group does, journals the group's
// operations in one append and answers every request.
func (w *writer) commit(group []*addRequest) {
	s := w.s
	// Backpressure: the applier is behind; wait rather than let the
	// overlay, and every query's share of it, grow without bound.
	if s.ov.snapshot().len() > s.lim.maxPending {
		s.ap.wake() // whatever --apply-docs says: adds are waiting
	}
	s.ov.waitBelow(s.lim.maxPending)
	results := make([]addResult, len(group))
	base := s.ov.snapshot()
	gv := groupView{base: base}
	var gl groupLatest
	var ops []*pendingOp // the group's operations, in order
	var bytes int64
	rejected := 0
	now := time.Now()
	for gi, r := range group {
		switch {
		case r.del != "":
			deleted, err := w.exists(gv.with(ops), r.del)
			if err != nil {
				results[gi].err = err
				continue
			}
			if deleted {
				ops = append(ops, &pendingOp{id: r.del, del: true, at: now, net: -1})
				results[gi].deleted = 1
			}
		case !r.ifUnique:
			var err error
			start := len(ops)
			for i := range r.docs {
				d := &r.docs[i]
				op := &pendingOp{id: d.id, text: d.text, probe: d.probe, at: now}
				if op.net, err = w.net(base, &gl, ops, d.id); err != nil {
					break
				}
				ops = append(ops, op)
				bytes += int64(len(d.text))
			}
			if err != nil {
				results[gi].err = err
				ops = ops[:start] // a request is all or nothing
				continue
			}
			results[gi].added = len(r.docs)
		default:
			m, err := s.x.Matcher(&r.opts)
			if err != nil {
				results[gi].err = err
				continue
			}
			start := len(ops)
			for i := range r.docs {
				d := &r.docs[i]
				ms, err := merge(gv.with(ops), m, &d.probe, d.id, func(limit int) ([]index.Match, error) {
					o := r.opts
					o.Limit = limit
					return s.x.QueryProbe(&d.probe, &o)
				})
				if err != nil {
					results[gi] = addResult{err: err}
					ops = ops[:start]
					break
				}
				if len(ms) > 0 {
					results[gi].duplicates = append(results[gi].duplicates, duplicate{ID: d.id, Matches: matchRecords(ms, s.minHash || r.opts.Verify, true)})
					rejected++
					continue
				}
				op := &pendingOp{id: d.id, text: d.text, probe: d.probe, at: now}
				if op.net, err = w.net(base, &gl, ops, d.id); err != nil {
					results[gi] = addResult{err: err}
					ops = ops[:start]
					break
				}
				ops = append(ops, op)
				bytes += int64(len(d.text))
				results[gi].added++
			}
		}
	}
	if len(ops) > 0 {
		w.recs = w.recs[:0]
		adds := 0
		for _, op := range ops {
			adds += b2i(!op.del)
			rec := journal.Record{Op: journal.OpAdd, ID: op.id, Text: op.text}
			if op.del {
				rec = journal.Record{Op: journal.OpDelete, ID: op.id}
			}
			w.recs = append(w.recs, rec)
		}
		start := time.Now()
		// The applier rotates the journal under appendMu, so that the
		// operations of a sealed segment are exactly those published
		// before the rotation.
		s.appendMu.Lock()
		err := s.j.Append(w.recs)
		if err == nil {
			// The journal holds the texts, and the index stores the
			// probes: the overlay keeps no text.
			for _, op := range ops {
				op.text = nil
			}
			s.ov.publish(ops)
		}
		s.appendMu.Unlock()
		s.met.commit(len(ops), adds, bytes, time.Since(start), err)
		if err != nil {
			for i := range results {
				results[i] = addResult{err: err}
			}
		} else {
			s.ap.nudge(s.ov.snapshot().len())
		}
		clear(w.recs)
	}
	s.met.rejected.Add(int64(rejected))
	for i, r := range group {
		if results[i].err == nil {
			s.met.deleted.Add(int64(results[i].deleted))
		}
		r.done <- results[i]
	}
}

// net returns the change in the number of documents an add of id makes
// after the pending operations of base and ops: 0 if it replaces a
// document, else 1. gl finds the group's last operation on id.
func (w *writer) net(base *overlayView, gl *groupLatest, ops []*pendingOp, id string) (int, error) {
	if op := gl.latest(ops, id); op != nil {
		return b2i(op.del), nil
	}
	ok, err := w.exists(base, id)
	return b2i(!ok), err
}

// groupLatest finds the last operation on an ID in a group of operations
// that grows by appends, indexing each operation once (a scan of the
// group for each of its documents is quadratic in a large request).
type groupLatest struct {
	n    int        // operations indexed
	tail *pendingOp // the last of them, to notice a group cut back and grown again
	last map[string]*pendingOp
}

// latest returns the last operation of ops on id, or nil. It costs a map
// insertion per operation appended since the last call and a lookup; a
// group cut back (after a failed request) is indexed anew.
func (g *groupLatest) latest(ops []*pendingOp, id string) *pendingOp {
	if g.last == nil || g.n > len(ops) || g.n > 0 && ops[g.n-1] != g.tail {
		g.n, g.last = 0, make(map[string]*pendingOp)
	}
	for _, op := range ops[g.n:] {
		g.last[op.id] = op
	}
	if g.n = len(ops); g.n > 0 {
		g.tail = ops[g.n-1]
	}
	return g.last[id]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// exists reports whether the document id is there for a delete to remove:
// by its last pending operation, or else in the index.
func (w *writer) exists(v *overlayView, id string) (bool, error) {
	if op := v.latest(id); op != nil {
		return !op.del, nil
	}
	_, err := w.s.x.Get(id)
	if errors.Is(err, index.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
