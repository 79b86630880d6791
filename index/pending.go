package index

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
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
	probe Probe     // of text, for adds
	at    time.Time // when it was journaled
	net   int       // the change in the number of documents: 1, 0 (a replace) or -1
}

// pending is the in-memory level of the operations in the log: in log
// order, so that queries see acknowledged documents before the applier
// commits them to the file.
// Readers take an immutable view (an atomic load, never a lock); the
// writer publishes operations and the applier drops committed ones under
// mu, which is never held across I/O.
type pending struct {
	mu      sync.Mutex
	ops     []*pendingOp // from the oldest pending; never changed in place below len
	seq     uint64       // of the last operation published
	drained *sync.Cond   // signalled when operations are dropped or on close
	closing bool         // waitBelow returns at once
	view    atomic.Pointer[pendingView]

	chunkMax int // pendingChunkMax, or less in tests

}

// pendingView is an immutable list of pending operations, oldest first,
// with an index of them in chunks (see pendingChunk).
type pendingView struct {
	ops    []*pendingOp
	extra  int             // operations after ops, in the last chunks alone (views made by with)
	chunks []*pendingChunk // cover ops and the extra operations, in order
	base   int             // documents in the index without ops
	net    int             // the sum of the ops' net
}

// newPending returns an empty pending over an index of docs documents.
func newPending(docs int) *pending {
	o := &pending{chunkMax: pendingChunkMax}
	o.drained = sync.NewCond(&o.mu)
	o.view.Store(&pendingView{base: docs})
	return o
}

// documents returns the number of documents once every operation of v is
// committed.
func (v *pendingView) documents() int { return v.base + v.net }

// snapshot returns the current view. It costs an atomic load.
func (o *pending) snapshot() *pendingView { return o.view.Load() }

// publish appends journaled operations, numbering them. Cost: O(len(ops)),
// amortized.
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
	o.ops = append(o.ops, ops...)
	o.view.Store(&pendingView{ops: slices.Clip(o.ops), chunks: pushChunk(old.chunks, newChunk(ops), o.chunkMax), base: old.base, net: net})
}

// lastSeq returns the number of the last operation published.
func (o *pending) lastSeq() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.seq
}

// drop removes the operations numbered up to seq, which the index, now of
// docs documents, holds. Chunks wholly after seq are kept as they are; the
// one that holds seq is rebuilt from its operations after it. Cost:
// O(pending) copying of pointers, and the sort of the hashes of at most a
// chunk's operations (16 for each add with MinHash).
func (o *pending) drop(seq uint64, docs int) {
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
	var chunks []*pendingChunk
	for _, c := range o.view.Load().chunks {
		switch {
		case c.ops[len(c.ops)-1].seq <= seq:
			// Committed: dropped.
		case c.ops[0].seq > seq:
			chunks = append(chunks, c)
		default:
			j, _ := slices.BinarySearchFunc(c.ops, seq+1, func(op *pendingOp, s uint64) int {
				return int(op.seq) - int(s)
			})
			chunks = append(chunks, newChunk(c.ops[j:]))
		}
	}
	o.view.Store(&pendingView{ops: slices.Clip(o.ops), chunks: chunks, base: docs, net: net})
	o.drained.Broadcast()
}

// waitBelow blocks while more than n operations are pending, until the
// pending is closing.
func (o *pending) waitBelow(n int) {
	o.mu.Lock()
	for len(o.ops) > n && !o.closing {
		o.drained.Wait()
	}
	o.mu.Unlock()
}

// close stops the waits of waitBelow: on shutdown the writer journals what
// it holds (durable, and applied later) instead of waiting for an applier
// that may not make progress.
func (o *pending) close() {
	o.mu.Lock()
	o.closing = true
	o.mu.Unlock()
	o.drained.Broadcast()
}

// len returns the number of operations in the view.
func (v *pendingView) len() int { return len(v.ops) + v.extra }

// groupView makes the views of a group of operations that grows by
// appends, as the writer decides them: each view is base followed by the
// group so far, and each operation is indexed in chunks of the groupView's
// own (merged as pushChunk merges those of the pending), which the views
// share. Chunks are never changed, so views stay valid.
type groupView struct {
	base   *pendingView
	n      int             // operations indexed
	tail   *pendingOp      // the last of them, to notice a group cut back and grown again
	chunks []*pendingChunk // of the operations indexed
	net    int             // the sum of their net
}

// with returns base followed by ops. If ops extends the operations of the
// last call, it costs the indexing of the new ones (amortized O(log n) for
// each of a group of n); otherwise (the group was cut back after a failed
// request) O(len(ops) log len(ops)).
func (g *groupView) with(ops []*pendingOp) *pendingView {
	v := g.base
	if len(ops) == 0 {
		return v
	}
	if g.n > len(ops) || g.n > 0 && ops[g.n-1] != g.tail {
		g.n, g.chunks, g.net = 0, nil, 0
	}
	if g.n < len(ops) {
		// A copy: the writer's array is written again when a group is
		// cut back.
		g.chunks = pushChunk(g.chunks, newChunk(slices.Clone(ops[g.n:])), math.MaxInt)
		for _, op := range ops[g.n:] {
			g.net += op.net
		}
		g.n, g.tail = len(ops), ops[len(ops)-1]
	}
	return &pendingView{ops: v.ops, extra: v.extra + len(ops), chunks: append(slices.Clip(v.chunks), g.chunks...), base: v.base, net: v.net + g.net}
}

// latest returns the last operation on id, or nil. Cost: a hash of id and
// a lookup per chunk, O(log pendingChunkMax + pending/pendingChunkMax).
func (v *pendingView) latest(id string) *pendingOp {
	k := idKey(id)
	for _, c := range slices.Backward(v.chunks) {
		if i, ok := c.last(k, id); ok {
			return c.ops[i]
		}
	}
	return nil
}

// oldest returns when the oldest pending operation was journaled, or the
// zero time.
func (v *pendingView) oldest() time.Time {
	if len(v.ops) == 0 {
		return time.Time{}
	}
	return v.ops[0].at
}

// has reports whether some operation is on id.
func (v *pendingView) has(id string) bool { return v.latest(id) != nil }

// matches returns the pending documents (the last add of each ID not
// deleted since) that a query for q finds under m, leaving out self.
// Cost: per chunk, a popcount per operation and a hashList lookup per band
// and for the exact hash, then a Matcher.Match and a lookup of its ID per
// later chunk for each candidate; under a set method, that for every
// pending add.
func (v *pendingView) matches(m *Matcher, q *Probe, self string) []Match {
	var ms []Match
	var cand []int32
	for ci, c := range v.chunks {
		cand = c.candidates(cand[:0], q)
		for _, i := range cand {
			op := c.ops[i]
			if op.del || op.id == self {
				continue
			}
			r, ok := m.Match(q, &op.probe)
			if !ok || v.supersededAfter(ci, i) {
				continue
			}
			r.ID = op.id
			ms = append(ms, r)
		}
	}
	return ms
}

// supersededAfter reports whether an operation after the i-th of chunk ci
// is on the same ID. Cost: a lookup per chunk from ci on.
func (v *pendingView) supersededAfter(ci int, i int32) bool {
	c := v.chunks[ci]
	id := c.ops[i].id
	k := idKey(id)
	if j, _ := c.last(k, id); j != i {
		return true
	}
	for _, later := range v.chunks[ci+1:] {
		if _, ok := later.last(k, id); ok {
			return true
		}
	}
	return false
}

// pendingChunk indexes a run of pending operations, so that a query reads its
// candidates instead of every pending operation: by fingerprint (a
// popcount each), by band hash and by canonical-text hash. A view keeps
// chunks whose sizes fall from the oldest to the newest, merging the
// newest two when the later one is as large as the one before, up to
// pendingChunkMax operations (pushChunk): O(log pendingChunkMax +
// pending/pendingChunkMax) chunks, each operation indexed O(log
// pendingChunkMax) times. (A view made by with ends with the chunks of a
// group, which follow their own order.) A chunk is never changed once
// made: views share it.
type pendingChunk struct {
	ops   []*pendingOp
	fps   []uint64 // of ops, 0 for deletes
	bands hashList // adds by mixBand
	exact hashList // adds with text by canonical-text hash
	ids   hashList // every operation by idKey
	scan  bool     // some add has a set (set methods): candidates are every add
}

// mixBand mixes band number b into its hash h: one uint64 key. Two bands
// whose keys collide only make a candidate that Matcher.Match rejects.
func mixBand(b int, h uint64) uint64 { return h + uint64(b+1)*0x9e3779b97f4a7c15 }

// idSeed seeds idKey: IDs come from clients, and a seed of the process's
// own spreads them over a hashList's directory whatever they are.
var idSeed = maphash.MakeSeed()

// idKey is the hash of a document ID in a chunk's ids.
func idKey(id string) uint64 { return maphash.String(idSeed, id) & idKeyMask }

// idKeyMask is all ones but in tests, which make IDs collide.
var idKeyMask = ^uint64(0)

// pendingMaxScanDistance is the distance of the fingerprint candidates of
// a chunk: the largest an index answers, so that Matcher.Match decides.
const pendingMaxScanDistance = MaxMaxDistance

// newChunk indexes ops. Cost: O(n log n) for the n hashes of ops (16 per
// add with MinHash: its ID, its canonical text and 14 bands).
func newChunk(ops []*pendingOp) *pendingChunk {
	c := &pendingChunk{ops: slices.Clip(ops), fps: make([]uint64, len(ops))}
	ids := make([]hashPair, len(ops))
	var exact, bands []hashPair
	for i, op := range ops {
		n := int32(i)
		ids[i] = hashPair{idKey(op.id), n}
		if op.del {
			continue
		}
		c.fps[i] = op.probe.Fingerprint()
		if h, ok := op.probe.Exact(); ok {
			exact = append(exact, hashPair{h, n})
		}
		bs := op.probe.Bands()
		if bands == nil && len(bs) > 0 {
			bands = make([]hashPair, 0, len(bs)*(len(ops)-i))
		}
		for b, h := range bs {
			bands = append(bands, hashPair{mixBand(b, h), n})
		}
		c.scan = c.scan || op.probe.HasSet()
	}
	c.ids, c.exact, c.bands = newHashList(ids), newHashList(exact), newHashList(bands)
	return c
}

// last returns the number of the last operation of c on id, whose idKey
// is k. Cost: a hashList lookup, and a comparison of IDs for each later
// operation on another ID with the same key (none but by chance).
func (c *pendingChunk) last(k uint64, id string) (int32, bool) {
	ns := c.ids.find(k)
	for _, i := range slices.Backward(ns) {
		if c.ops[i].id == id {
			return i, true
		}
	}
	return 0, false
}

// mergeChunks returns a chunk of a's operations followed by b's:
// O(len(a.ops) + len(b.ops)) copying, with no hashing. a and b are not
// changed.
func mergeChunks(a, b *pendingChunk) *pendingChunk {
	off := int32(len(a.ops))
	return &pendingChunk{
		ops:   append(slices.Clip(a.ops), b.ops...),
		fps:   append(slices.Clip(a.fps), b.fps...),
		ids:   mergeHashLists(a.ids, b.ids, off),
		exact: mergeHashLists(a.exact, b.exact, off),
		bands: mergeHashLists(a.bands, b.bands, off),
		scan:  a.scan || b.scan,
	}
}

// pendingChunkMax is the size beyond which chunks are not merged: a
// publish merges at most that many operations, so that an pending that
// grows large (the applier behind, as during a band merge) does not stall
// the writer on the merge of two large chunks; a query reads one more
// chunk per pendingChunkMax operations pending.
const pendingChunkMax = 1024

// pushChunk returns chunks followed by c, merging the newest chunks while
// the last is at least as large as the one before it and the two together
// at most most operations. The chunks given are not changed (views share
// them).
func pushChunk(chunks []*pendingChunk, c *pendingChunk, most int) []*pendingChunk {
	out := append(slices.Clip(chunks), c)
	for n := len(out); n >= 2 && len(out[n-1].ops) >= len(out[n-2].ops) && len(out[n-1].ops)+len(out[n-2].ops) <= most; n = len(out) {
		merged := mergeChunks(out[n-2], out[n-1])
		out = append(out[:n-2:n-2], merged)
	}
	return out
}

// candidates appends to dst the operations of c a query for q may match:
// within pendingMaxScanDistance bits, sharing a band or the canonical
// text; every add under a set method. Deletes are left to the caller.
func (c *pendingChunk) candidates(dst []int32, q *Probe) []int32 {
	if c.scan {
		for i := range c.ops {
			dst = append(dst, int32(i))
		}
		return dst
	}
	start := len(dst)
	fp := q.Fingerprint()
	for i, f := range c.fps {
		if bits.OnesCount64(f^fp) <= pendingMaxScanDistance {
			dst = append(dst, int32(i))
		}
	}
	if h, ok := q.Exact(); ok {
		dst = append(dst, c.exact.find(h)...)
	}
	for b, h := range q.Bands() {
		dst = append(dst, c.bands.find(mixBand(b, h))...)
	}
	found := dst[start:]
	slices.Sort(found)
	return append(dst[:start], slices.Compact(found)...)
}

// merge combines the matches of the index, stored(limit), with those of the
// pending operations of v: index matches on an ID with a pending
// operation, or on self, are replaced by what the operation says. The
// result is sorted and cut as the index's own query would be. With no
// pending operations and no self it is stored(limit) alone.
func mergePending(v *pendingView, m *Matcher, q *Probe, self string, stored func(limit int) ([]Match, error)) ([]Match, error) {
	limit := m.Limit()
	if v.len() == 0 && self == "" {
		return stored(limit)
	}
	lim := limit
	if lim > 0 {
		lim += v.len() + 1 // room for the matches the pending and self hide
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
func (x *Index) queryPending(v *pendingView, pr *Probe, opts *QueryOptions, self string) ([]Match, error) {
	m, err := x.Matcher(opts)
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
	pr, err := x.ProbeID(id)
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

// rebase sets the number of documents of the file under the pending
// operations, after a Load changed it with none pending.
func (o *pending) rebase(docs int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v := o.view.Load()
	o.view.Store(&pendingView{ops: v.ops, extra: v.extra, chunks: v.chunks, base: docs, net: v.net})
}
