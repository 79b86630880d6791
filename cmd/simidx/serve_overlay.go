package main

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/simidx/simidx/index"
)

// pendingOp is an operation that is journaled (durable, acknowledged) but
// not yet committed to the index: an add or replace of a document, or a
// delete. It is immutable once published.
type pendingOp struct {
	seq   uint64
	id    string
	del   bool
	text  []byte
	probe index.Probe // of text, for adds
	at    time.Time   // when it was journaled
	net   int         // the change in the number of documents: 1, 0 (a replace) or -1
}

// overlay holds the pending operations, in journal order, so that queries
// see acknowledged documents before the applier commits them to the index.
// Readers take an immutable view (an atomic load, never a lock); the
// writer publishes operations and the applier drops committed ones under
// mu, which is never held across I/O.
type overlay struct {
	mu      sync.Mutex
	ops     []*pendingOp // from the oldest pending; never changed in place below len
	seq     uint64       // of the last operation published
	drained *sync.Cond   // signalled when operations are dropped or on close
	closing bool         // waitBelow returns at once
	view    atomic.Pointer[overlayView]
}

// overlayView is an immutable list of pending operations, oldest first.
type overlayView struct {
	ops  []*pendingOp
	base int // documents in the index without ops
	net  int // the sum of the ops' net
}

// newOverlay returns an empty overlay over an index of docs documents.
func newOverlay(docs int) *overlay {
	o := &overlay{}
	o.drained = sync.NewCond(&o.mu)
	o.view.Store(&overlayView{base: docs})
	return o
}

// documents returns the number of documents once every operation of v is
// committed.
func (v *overlayView) documents() int { return v.base + v.net }

// snapshot returns the current view. It costs an atomic load.
func (o *overlay) snapshot() *overlayView { return o.view.Load() }

// publish appends journaled operations, numbering them. Cost: O(len(ops)),
// amortized.
func (o *overlay) publish(ops []*pendingOp) {
	o.mu.Lock()
	defer o.mu.Unlock()
	old := o.view.Load()
	net := old.net
	for _, op := range ops {
		o.seq++
		op.seq = o.seq
		net += op.net
	}
	o.ops = append(o.ops, ops...)
	o.view.Store(&overlayView{ops: slices.Clip(o.ops), base: old.base, net: net})
}

// lastSeq returns the number of the last operation published.
func (o *overlay) lastSeq() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.seq
}

// drop removes the operations numbered up to seq, which the index, now of
// docs documents, holds. Cost: O(pending).
func (o *overlay) drop(seq uint64, docs int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i, _ := slices.BinarySearchFunc(o.ops, seq+1, func(op *pendingOp, s uint64) int {
		return int(op.seq) - int(s)
	})
	// A fresh array, so that the dropped operations can be collected and
	// views already taken stay valid.
	o.ops = slices.Clone(o.ops[i:])
	net := 0
	for _, op := range o.ops {
		net += op.net
	}
	o.view.Store(&overlayView{ops: slices.Clip(o.ops), base: docs, net: net})
	o.drained.Broadcast()
}

// waitBelow blocks while more than n operations are pending, until the
// overlay is closing.
func (o *overlay) waitBelow(n int) {
	o.mu.Lock()
	for len(o.ops) > n && !o.closing {
		o.drained.Wait()
	}
	o.mu.Unlock()
}

// close stops the waits of waitBelow: on shutdown the writer journals what
// it holds (durable, and applied later) instead of waiting for an applier
// that may not make progress.
func (o *overlay) close() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	o.drained.Broadcast()
}

// len returns the number of operations in the view.
func (v *overlayView) len() int { return len(v.ops) }

// with returns a view of v followed by ops. Cost: O(len(v.ops) + len(ops)).
func (v *overlayView) with(ops []*pendingOp) *overlayView {
	if len(ops) == 0 {
		return v
	}
	w := &overlayView{ops: append(slices.Clip(v.ops), ops...), base: v.base, net: v.net}
	for _, op := range ops {
		w.net += op.net
	}
	return w
}

// latest returns the last operation on id, or nil. Cost: O(pending).
func (v *overlayView) latest(id string) *pendingOp {
	for i := len(v.ops) - 1; i >= 0; i-- {
		if v.ops[i].id == id {
			return v.ops[i]
		}
	}
	return nil
}

// oldest returns when the oldest pending operation was journaled, or the
// zero time.
func (v *overlayView) oldest() time.Time {
	if len(v.ops) == 0 {
		return time.Time{}
	}
	return v.ops[0].at
}

// has reports whether some operation is on id.
func (v *overlayView) has(id string) bool { return v.latest(id) != nil }

// matches returns the pending documents (the last add of each ID not
// deleted since) that a query for q finds under m, leaving out self.
// Cost: one Matcher.Match per pending add, plus O(pending) per match.
func (v *overlayView) matches(m *index.Matcher, q *index.Probe, self string) []index.Match {
	var ms []index.Match
	for i, op := range v.ops {
		if op.del || op.id == self {
			continue
		}
		r, ok := m.Match(q, &op.probe)
		if !ok || v.supersededAfter(i) {
			continue
		}
		r.ID = op.id
		ms = append(ms, r)
	}
	return ms
}

// supersededAfter reports whether an operation after the i-th is on the
// same ID.
func (v *overlayView) supersededAfter(i int) bool {
	id := v.ops[i].id
	for _, op := range v.ops[i+1:] {
		if op.id == id {
			return true
		}
	}
	return false
}

// merge combines the matches of the index, stored(limit), with those of the
// pending operations of v: index matches on an ID with a pending
// operation, or on self, are replaced by what the operation says. The
// result is sorted and cut as the index's own query would be. With no
// pending operations it is stored(limit) alone.
func merge(v *overlayView, m *index.Matcher, q *index.Probe, self string, stored func(limit int) ([]index.Match, error)) ([]index.Match, error) {
	limit := m.Limit()
	if v.len() == 0 {
		return stored(limit)
	}
	lim := limit
	if lim > 0 {
		lim += v.len() + 1 // room for the matches the overlay hides
	}
	ms, err := stored(lim)
	if err != nil {
		return nil, err
	}
	var hidden map[string]bool
	if len(ms) > 8 {
		hidden = make(map[string]bool, v.len())
		for _, op := range v.ops {
			hidden[op.id] = true
		}
	}
	ms = slices.DeleteFunc(ms, func(r index.Match) bool {
		if r.ID == self {
			return true
		}
		if hidden != nil {
			return hidden[r.ID]
		}
		return v.has(r.ID)
	})
	ms = append(ms, v.matches(m, q, self)...)
	m.Sort(ms)
	if limit > 0 && len(ms) > limit {
		ms = ms[:limit]
	}
	return ms, nil
}
