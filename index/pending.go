package index

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// pendingOp is an operation that is logged (durable, acknowledged) but
// not yet committed to the file: an add or replace of a document, or a
// delete. It is immutable once published.
type pendingOp struct {
	seq   uint64
	id    string
	del   bool
	probe docProbe  // for adds
	at    time.Time // when it was logged
	net   int       // the change in the number of documents: 1, 0 (a replace) or -1
}

// pending is the pending level of the log: the operations acknowledged and
// not yet committed to the file, in log order, so that queries see them
// at once. It is a list of parts, each a level (the one type of the
// in-memory levels) whose slots number the part's operations: the current
// part, which the committer publishes groups to, and the parts an apply
// under way (or a failed one) sealed. An apply seals the current part
// (seal), commits the operations of the sealed parts to the file and then
// drops them (dropSealed).
//
// Readers take an immutable view (an atomic load, never a lock of the
// pending level's): a part's level and operations only grow, and a view
// sees the slots below the length it recorded.
type pending struct {
	mu      sync.Mutex
	seq     uint64     // of the last operation published
	drained *sync.Cond // signalled when operations are dropped or on close
	closing bool       // waitBelow returns at once
	view    atomic.Pointer[pendingView]
}

// pendingPart is a part of the pending level: a level of its operations,
// and the operations by slot, with the slots of each ID.
type pendingPart struct {
	lv   *level
	mu   sync.RWMutex // guards ops' growth and ids
	ops  []*pendingOp
	ids  map[string][]uint32
	sets bool // some add has a set (set methods): every add is a candidate
}

func newPendingPart() *pendingPart {
	return &pendingPart{lv: newLevel(), ids: make(map[string][]uint32)}
}

// add appends ops to p, indexing each in p's level. Cost: a map insertion
// per table, band and exact key of each add, and one for its ID.
func (p *pendingPart) add(x *Index, ops []*pendingOp) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, op := range ops {
		n := uint32(len(p.ops))
		p.ops = append(p.ops, op)
		p.ids[op.id] = append(p.ids[op.id], n)
		if op.del {
			continue
		}
		p.lv.addTables(x, n, op.probe.Fingerprint())
		if h, ok := op.probe.Exact(); ok {
			p.lv.addExact(n, h)
		}
		if bs := op.probe.Bands(); len(bs) > 0 {
			p.lv.addBands(n, bs)
		}
		p.sets = p.sets || op.probe.HasSet()
	}
}

// partView is a part as a view sees it: its first n operations.
type partView struct {
	p *pendingPart
	n int
}

// pendingView is an immutable view of the pending operations: parts,
// oldest first.
type pendingView struct {
	parts []partView
	base  int // documents in the file without the operations
	net   int // the sum of the operations' net
	x     *Index
}

// newPending returns an empty pending level over a file of docs
// documents.
func newPending(x *Index, docs int) *pending {
	o := &pending{}
	o.drained = sync.NewCond(&o.mu)
	o.view.Store(&pendingView{parts: []partView{{p: newPendingPart()}}, base: docs, x: x})
	return o
}

// documents returns the number of documents once every operation of v is
// committed.
func (v *pendingView) documents() int { return v.base + v.net }

// snapshot returns the current view. It costs an atomic load.
func (o *pending) snapshot() *pendingView { return o.view.Load() }

// len returns the number of operations in the view.
func (v *pendingView) len() int {
	n := 0
	for _, pv := range v.parts {
		n += pv.n
	}
	return n
}

// publish appends logged operations to the current part, numbering them.
// Cost: that of pendingPart.add.
func (o *pending) publish(ops []*pendingOp) {
	o.mu.Lock()
	defer o.mu.Unlock()
	old := o.view.Load()
	net := old.net
	for _, op := range ops {
		o.seq++
		op.seq = o.seq
		net += op.net
	}
	cur := old.parts[len(old.parts)-1]
	cur.p.add(old.x, ops)
	parts := slices.Clone(old.parts)
	parts[len(parts)-1].n += len(ops)
	o.view.Store(&pendingView{parts: parts, base: old.base, net: net, x: old.x})
}

// seal starts a new current part and returns the operations of every part
// before it, in order (those an apply commits), and how many parts they
// fill. Cost: O(parts). Only the applier seals and drops, one apply at a
// time: the parts sealed stay first until dropSealed.
func (o *pending) seal() ([]*pendingOp, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	old := o.view.Load()
	parts := append(slices.Clone(old.parts), partView{p: newPendingPart()})
	o.view.Store(&pendingView{parts: parts, base: old.base, net: old.net, x: old.x})
	var ops []*pendingOp
	for _, pv := range old.parts {
		pv.p.mu.RLock()
		ops = append(ops, pv.p.ops[:pv.n]...)
		pv.p.mu.RUnlock()
	}
	return ops, len(old.parts)
}

// dropSealed removes the first k parts, sealed by the last seal, whose
// operations the file, now of docs documents, holds.
func (o *pending) dropSealed(k, docs int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	old := o.view.Load()
	parts := slices.Clone(old.parts[k:])
	net := 0
	for _, pv := range parts {
		pv.p.mu.RLock()
		for _, op := range pv.p.ops[:pv.n] {
			net += op.net
		}
		pv.p.mu.RUnlock()
	}
	o.view.Store(&pendingView{parts: parts, base: docs, net: net, x: old.x})
	o.drained.Broadcast()
}

// rebase sets the number of documents of the file under the pending
// operations, after a Load changed it with none pending.
func (o *pending) rebase(docs int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v := o.view.Load()
	o.view.Store(&pendingView{parts: v.parts, base: docs, net: v.net, x: v.x})
}

// waitBelow blocks while more than n operations are pending, until the
// pending level is closing.
func (o *pending) waitBelow(n int) {
	o.mu.Lock()
	for o.view.Load().len() > n && !o.closing {
		o.drained.Wait()
	}
	o.mu.Unlock()
}

// close stops the waits of waitBelow: on Close the committer logs what it
// holds (durable, and applied next) instead of waiting for an applier
// that has stopped.
func (o *pending) close() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	o.drained.Broadcast()
}

// op returns the operation at slot i of part pv.
func (pv partView) op(i uint32) *pendingOp {
	pv.p.mu.RLock()
	defer pv.p.mu.RUnlock()
	return pv.p.ops[i]
}

// lastOn returns the slot of the last operation of pv on id.
func (pv partView) lastOn(id string) (uint32, bool) {
	pv.p.mu.RLock()
	defer pv.p.mu.RUnlock()
	ns := pv.p.ids[id]
	for i := len(ns) - 1; i >= 0; i-- {
		if int(ns[i]) < pv.n {
			return ns[i], true
		}
	}
	return 0, false
}

// latest returns the last operation on id, or nil. Cost: a map lookup per
// part.
func (v *pendingView) latest(id string) *pendingOp {
	for _, pv := range slices.Backward(v.parts) {
		if i, ok := pv.lastOn(id); ok {
			return pv.op(i)
		}
	}
	return nil
}

// oldest returns when the oldest pending operation was logged, or the
// zero time.
func (v *pendingView) oldest() time.Time {
	for _, pv := range v.parts {
		if pv.n > 0 {
			return pv.op(0).at
		}
	}
	return time.Time{}
}

// has reports whether some operation is on id.
func (v *pendingView) has(id string) bool { return v.latest(id) != nil }

// matches returns the pending documents (the last add of each ID not
// deleted since) that a query for q finds under m, leaving out self.
// Cost: per part, a map lookup per table, band and the exact key of q,
// then a matcher.Match and a lookup of its ID per later part for each
// candidate; under a set method, that for every pending add.
func (v *pendingView) matches(m *matcher, q *docProbe, self string) []Match {
	var ms []Match
	for pi, pv := range v.parts {
		for _, i := range pv.candidates(v.x, q) {
			op := pv.op(i)
			if op.del || op.id == self {
				continue
			}
			r, ok := m.Match(q, &op.probe)
			if !ok || v.supersededAfter(pi, i) {
				continue
			}
			r.ID = op.id
			ms = append(ms, r)
		}
	}
	return ms
}

// supersededAfter reports whether an operation after slot i of part pi is
// on the same ID. Cost: a lookup per part from pi on.
func (v *pendingView) supersededAfter(pi int, i uint32) bool {
	id := v.parts[pi].op(i).id
	if j, _ := v.parts[pi].lastOn(id); j != i {
		return true
	}
	for _, later := range v.parts[pi+1:] {
		if _, ok := later.lastOn(id); ok {
			return true
		}
	}
	return false
}

// candidates returns the slots of pv a query for q may match, each once:
// those in q's group of some table, sharing a band or the exact key; every
// add under a set method. Deletes are left to the caller.
func (pv partView) candidates(x *Index, q *docProbe) []uint32 {
	if pv.n == 0 {
		return nil
	}
	pv.p.mu.RLock()
	sets := pv.p.sets
	pv.p.mu.RUnlock()
	var out []uint32
	if sets {
		for i := range pv.n {
			out = append(out, uint32(i))
		}
		return out
	}
	kb := uint(64 - x.settings.Design.KeyBits)
	fp := q.Fingerprint()
	ids := make([]uint64, len(x.tables))
	for i := range x.tables {
		ids[i] = groupID(i, x.tables[i].permute(fp)>>kb)
	}
	for _, e := range pv.p.lv.appendNearGroups(nil, ids, fp, 64) {
		out = append(out, e.n)
	}
	ks := make([]recentKey, 0, 1+len(q.Bands()))
	if h, ok := q.Exact(); ok {
		ks = append(ks, recentKey{h: h, b: exactBand})
	}
	for b, h := range q.Bands() {
		if h != 0 { // 0: a band the text does not have
			ks = append(ks, recentKey{h: h, b: uint8(b)})
		}
	}
	for _, d := range pv.p.lv.appendKeyDocs(nil, ks) {
		out = append(out, d.n)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	// The slots the view sees.
	i, _ := slices.BinarySearch(out, uint32(pv.n))
	return out[:i]
}

// groupView makes the views of a group of operations that grows by
// appends, as the committer decides them: each view is base followed by a
// part of the group so far, which the groupView indexes as it grows (a
// group cut back after a failed request is indexed anew).
type groupView struct {
	base *pendingView
	part *pendingPart
	n    int        // operations indexed
	tail *pendingOp // the last of them, to notice a group cut back and grown again
	net  int        // the sum of their net
}

// with returns base followed by ops. If ops extends the operations of the
// last call, it costs the indexing of the new ones; otherwise that of all
// of ops.
func (g *groupView) with(ops []*pendingOp) *pendingView {
	v := g.base
	if len(ops) == 0 {
		return v
	}
	if g.part == nil || g.n > len(ops) || g.n > 0 && ops[g.n-1] != g.tail {
		g.part, g.n, g.net = newPendingPart(), 0, 0
	}
	if g.n < len(ops) {
		g.part.add(v.x, ops[g.n:])
		for _, op := range ops[g.n:] {
			g.net += op.net
		}
		g.n, g.tail = len(ops), ops[len(ops)-1]
	}
	return &pendingView{parts: append(slices.Clip(v.parts), partView{p: g.part, n: len(ops)}), base: v.base, net: v.net + g.net, x: v.x}
}

// mergePending combines the matches of the file, stored(limit), with those
// of the pending operations of v: file matches on an ID with a pending
// operation, or on self, are replaced by what the operation says. The
// result is sorted and cut as the file's own query would be. With no
// pending operations and no self it is stored(limit) alone.
func mergePending(v *pendingView, m *matcher, q *docProbe, self string, stored func(limit int) ([]Match, error)) ([]Match, error) {
	limit := m.Limit()
	if v.len() == 0 && self == "" {
		return stored(limit)
	}
	lim := limit
	if lim > 0 {
		lim += v.len() + 1 // room for the matches the pending operations and self hide
	}
	ms, err := stored(lim)
	if err != nil {
		return nil, err
	}
	ms = slices.DeleteFunc(ms, func(r Match) bool {
		return r.ID == self || v.has(r.ID)
	})
	ms = append(ms, v.matches(m, q, self)...)
	m.Sort(ms)
	if limit > 0 && len(ms) > limit {
		ms = ms[:limit]
	}
	return ms, nil
}

// pendingOps returns the view of the pending operations, or nil if there
// are none. It costs an atomic load.
func (x *Index) pendingOps() *pendingView {
	if x.pend == nil {
		return nil
	}
	if v := x.pend.snapshot(); v.len() > 0 {
		return v
	}
	return nil
}

// queryPending answers a query for pr under opts from the file and the
// pending operations of v, leaving out the document self. The view is
// taken before the file's snapshot: an operation the applier commits in
// between is found in both, and the view's copy wins.
func (x *Index) queryPending(v *pendingView, pr *docProbe, opts *QueryOptions, self string) ([]Match, error) {
	m, err := x.newMatcher(opts)
	if err != nil {
		return nil, err
	}
	return mergePending(v, m, pr, self, func(limit int) ([]Match, error) {
		o := QueryOptions{}
		if opts != nil {
			o = *opts
		}
		o.Limit = limit
		ms, err := x.queryProbe(pr, &o)
		if err != nil || self == "" {
			return ms, err
		}
		return slices.DeleteFunc(ms, func(m Match) bool { return m.ID == self }), nil
	})
}

// queryIDPending is QueryID with pending operations v: the probe of the
// document's last pending add, or else of the file's record.
func (x *Index) queryIDPending(v *pendingView, id string, opts *QueryOptions) ([]Match, error) {
	if op := v.latest(id); op != nil {
		if op.del {
			return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		if !op.probe.HasText() {
			if q, err := x.resolve(opts); err != nil {
				return nil, err
			} else if q.minSimSet {
				return nil, fmt.Errorf("%w: document %q has no MinHash signature for MinSimilarity", ErrSettings, id)
			}
		}
		return x.queryPending(v, &op.probe, opts, id)
	}
	pr, err := x.probeID(id)
	if err != nil {
		return nil, err
	}
	if !pr.HasText() {
		if q, err := x.resolve(opts); err != nil {
			return nil, err
		} else if q.minSimSet {
			return nil, fmt.Errorf("%w: document %q has no MinHash signature for MinSimilarity", ErrSettings, id)
		}
	}
	return x.queryPending(v, &pr, opts, id)
}
