package index

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/simidx/simidx/index/internal/wal"
)

// Add adds docs, all of them or, on error, none. A document whose ID is
// already stored replaces it; if docs holds an ID more than once, the last
// one wins. Add is safe for concurrent use: when it returns, the
// documents are durable (unless Options.NoSync) and every query sees
// them.
//
// Through the log (the default, see LogOptions) it costs an analysis of
// each text, in the caller's goroutine, and a share of one log append and
// fdatasync with the calls of other goroutines, then, in the background,
// a share of a batched commit to the file. With LogOptions.Direct it is
// one synced bbolt transaction per call. For many documents at once, Load
// is faster.
func (x *Index) Add(docs ...Doc) error {
	if err := x.checkWritable(); err != nil {
		return err
	}
	if x.wlog == nil {
		return x.addDirect(docs...)
	}
	pds, err := x.pendingDocs(docs)
	if err != nil {
		return err
	}
	return x.wlog.submit(&writeReq{docs: pds}).err
}

// Duplicate is a document AddIfUnique refused, with its near duplicates.
type Duplicate struct {
	ID      string
	Matches []Match
}

// AddIfUnique adds each document of docs that has no near duplicate under
// opts (as Query reports them) among the stored documents, the pending
// ones and the documents of docs before it; a stored document with its
// own ID does not count (the add replaces it). It returns the documents
// refused, with their matches, and adds the others. The check and the add
// are one step: two concurrent calls with near-duplicate documents add
// one of them. An error adds none.
//
// It costs what Add costs, plus a query per document, made by the
// committer, which holds the other writes for its duration.
func (x *Index) AddIfUnique(opts *QueryOptions, docs ...Doc) ([]Duplicate, error) {
	if err := x.checkWritable(); err != nil {
		return nil, err
	}
	m, err := x.newMatcher(opts)
	if err != nil {
		return nil, err
	}
	pds, err := x.pendingDocs(docs)
	if err != nil {
		return nil, err
	}
	if x.wlog == nil {
		// Direct: the checks and adds of these calls take turns.
		x.uniqueMu.Lock()
		defer x.uniqueMu.Unlock()
		gv := groupView{base: &pendingView{x: x}}
		var ops []*pendingOp
		var keep []Doc
		var dups []Duplicate
		for i := range pds {
			d := &pds[i]
			ms, err := x.uniqueCheck(gv.with(ops), m, opts, d)
			if err != nil {
				return nil, err
			}
			if len(ms) > 0 {
				dups = append(dups, Duplicate{ID: d.id, Matches: ms})
				continue
			}
			ops = append(ops, &pendingOp{id: d.id, probe: d.probe})
			keep = append(keep, docs[i])
		}
		if len(keep) == 0 {
			return dups, nil
		}
		return dups, x.addDirect(keep...)
	}
	res := x.wlog.submit(&writeReq{docs: pds, ifUnique: true, m: m, opts: opts})
	return res.dups, res.err
}

// Delete removes the documents with the given IDs and returns how many
// there were; IDs not found are skipped. It is ordered with Add and
// AddIfUnique, durable when it returns, and costs what Add costs for as
// many documents, without the analyses.
func (x *Index) Delete(ids ...string) (int, error) {
	if err := x.checkWritable(); err != nil {
		return 0, err
	}
	if x.wlog == nil {
		return x.deleteDirect(ids...)
	}
	res := x.wlog.submit(&writeReq{dels: ids})
	return res.deleted, res.err
}

// pendingDocs validates and analyzes docs, in the caller's goroutine.
func (x *Index) pendingDocs(docs []Doc) ([]pendingDoc, error) {
	pds := make([]pendingDoc, len(docs))
	for i := range docs {
		d := &docs[i]
		pr, err := x.probeDoc(d)
		if err != nil {
			return nil, err
		}
		pds[i] = pendingDoc{id: d.ID, probe: pr}
		if d.Precomputed {
			pds[i].rec = wal.Record{Op: wal.OpFingerprint, ID: d.ID, Text: binary.BigEndian.AppendUint64(nil, d.Fingerprint)}
		} else {
			pds[i].rec = wal.Record{Op: wal.OpAdd, ID: d.ID, Text: d.Text}
		}
	}
	return pds, nil
}

// pendingDoc is a document of a write request, analyzed by its caller.
type pendingDoc struct {
	id    string
	rec   wal.Record // what the log stores
	probe docProbe
}

// writeReq is one call of Add, AddIfUnique or Delete handed to the
// committer: its operations are logged in one group with those of other
// calls.
type writeReq struct {
	docs     []pendingDoc
	dels     []string // the IDs to delete, for a delete (docs is empty)
	ifUnique bool
	m        *matcher      // for ifUnique
	opts     *QueryOptions // for ifUnique
	done     chan writeResult
}

// size is the number of operations r makes at most.
func (r *writeReq) size() int { return max(len(r.docs)+len(r.dels), 1) }

// writeResult is what the committer did with a writeReq.
type writeResult struct {
	deleted int
	dups    []Duplicate
	err     error
}

// submit queues r and waits for its result.
func (w *writeLog) submit(r *writeReq) writeResult {
	r.done = make(chan writeResult, 1)
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return writeResult{err: ErrLogClosed}
	}
	w.ch <- r
	w.mu.RUnlock()
	return <-r.done
}

// commitLoop takes every request queued (up to GroupDocs documents,
// waiting at most GroupDelay for more) and commits them as one group,
// until the channel is closed.
func (w *writeLog) commitLoop() {
	defer close(w.commDone)
	var timer *time.Timer
	for {
		r, ok := <-w.ch
		if !ok {
			return
		}
		group := []*writeReq{r}
		n := r.size()
		var deadline <-chan time.Time
		if w.opts.GroupDelay > 0 {
			if timer == nil {
				timer = time.NewTimer(w.opts.GroupDelay)
			} else {
				timer.Reset(w.opts.GroupDelay)
			}
			deadline = timer.C
		}
	collect:
		for n < w.opts.GroupDocs {
			select {
			case r, ok := <-w.ch:
				if !ok {
					break collect
				}
				group = append(group, r)
				n += r.size()
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
				n += r.size()
			case <-deadline:
				deadline = nil
				break collect
			}
		}
		if timer != nil {
			timer.Stop()
		}
		w.commit(group)
	}
}

// commit decides what each request of group does, against the file and
// every pending operation (the level and the group so far), logs the
// group's operations in one append and answers every request.
func (w *writeLog) commit(group []*writeReq) {
	x := w.x
	w.commitMu.Lock()
	defer w.commitMu.Unlock()
	// Backpressure: the applier is behind; wait rather than let the
	// pending level, and every query's share of it, grow without bound.
	if x.pend.snapshot().len() > w.opts.MaxPending {
		w.wake()
	}
	x.pend.waitBelow(w.opts.MaxPending)
	results := make([]writeResult, len(group))
	base := x.pend.snapshot()
	gv := groupView{base: base}
	var gl groupLatest
	var ops []*pendingOp // the group's operations, in order
	var recs []wal.Record
	info := CommitInfo{}
	now := time.Now()
	for gi, r := range group {
		start := len(ops)
		fail := func(err error) {
			results[gi] = writeResult{err: err}
			ops, recs = ops[:start], recs[:start] // a request is all or nothing
		}
		switch {
		case len(r.dels) > 0:
			for _, id := range r.dels {
				ok, err := x.exists(gv.with(ops), id)
				if err != nil {
					fail(err)
					break
				}
				if ok {
					ops = append(ops, &pendingOp{id: id, del: true, at: now, net: -1})
					recs = append(recs, wal.Record{Op: wal.OpDelete, ID: id})
					results[gi].deleted++
				}
			}
		case !r.ifUnique:
			for i := range r.docs {
				d := &r.docs[i]
				op := &pendingOp{id: d.id, probe: d.probe, at: now}
				var err error
				if op.net, err = x.addNet(base, &gl, ops, d.id); err != nil {
					fail(err)
					break
				}
				ops = append(ops, op)
				recs = append(recs, d.rec)
			}
		default:
			for i := range r.docs {
				d := &r.docs[i]
				ms, err := x.uniqueCheck(gv.with(ops), r.m, r.opts, d)
				if err != nil {
					fail(err)
					break
				}
				if len(ms) > 0 {
					results[gi].dups = append(results[gi].dups, Duplicate{ID: d.id, Matches: ms})
					continue
				}
				op := &pendingOp{id: d.id, probe: d.probe, at: now}
				if op.net, err = x.addNet(base, &gl, ops, d.id); err != nil {
					fail(err)
					break
				}
				ops = append(ops, op)
				recs = append(recs, d.rec)
			}
			if results[gi].err == nil {
				info.Refused += len(results[gi].dups)
			}
		}
	}
	if len(ops) > 0 {
		for i, op := range ops {
			if op.del {
				info.Deletes++
			} else {
				info.Adds++
				if recs[i].Op == wal.OpAdd {
					info.Bytes += int64(len(recs[i].Text))
				}
			}
		}
		start := time.Now()
		w.appendMu.Lock()
		err := w.j.Append(recs)
		if err == nil {
			x.pend.publish(ops)
		}
		w.appendMu.Unlock()
		info.Duration, info.Err = time.Since(start), err
		if err != nil {
			for i := range results {
				results[i] = writeResult{err: err}
			}
		} else if x.pend.snapshot().len() >= w.opts.ApplyDocs {
			w.wake()
		}
	}
	if f := w.opts.Events.Commit; f != nil && (len(ops) > 0 || info.Refused > 0) {
		f(info)
	}
	for i, r := range group {
		r.done <- results[i]
	}
}

// uniqueCheck returns the near duplicates of d, under m and opts, among
// the stored documents and the pending operations of v, leaving out d's
// own ID.
func (x *Index) uniqueCheck(v *pendingView, m *matcher, opts *QueryOptions, d *pendingDoc) ([]Match, error) {
	return mergePending(v, m, &d.probe, d.id, func(limit int) ([]Match, error) {
		o := QueryOptions{}
		if opts != nil {
			o = *opts
		}
		o.Limit = limit
		return x.queryProbe(&d.probe, &o)
	})
}

// addNet returns the change in the number of documents an add of id makes
// after the pending operations of base and ops: 0 if it replaces a
// document, else 1. gl finds the group's last operation on id.
func (x *Index) addNet(base *pendingView, gl *groupLatest, ops []*pendingOp, id string) (int, error) {
	if op := gl.latest(ops, id); op != nil {
		return b2i(op.del), nil
	}
	ok, err := x.exists(base, id)
	return b2i(!ok), err
}

// exists reports whether the document id is there for a delete to remove:
// by its last pending operation in v, or else in the file.
func (x *Index) exists(v *pendingView, id string) (bool, error) {
	if op := v.latest(id); op != nil {
		return !op.del, nil
	}
	_, err := x.getStored(id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
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
