package index

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// The table and band parts of Pairs run on up to GOMAXPROCS workers, each
// with a read transaction of its own on the snapshot of the caller's
// (beginSnapshot). The work is cut into units in the order of the scan of
// one goroutine: a unit per part of a table (tableParts), and a unit per
// run of pairUnitKeys band keys in key order, which the caller's
// goroutine reads from the bands bucket as it hands them out (see
// bandPairs for the keys it skips). A worker hands the pairs of its unit over
// in chunks; the caller's goroutine passes them to fn unit after unit, in
// the order of the units, so fn sees the pairs in the order of the scan on
// one goroutine, from the caller's goroutine alone, and a pair is still
// reported from the first table, or the first band, it shares: each unit
// applies that rule by itself, from the pair's fingerprints or records.
// The first error of a unit, or of fn, or the caller's cancelling, stops
// every unit, and the scan returns once every worker has ended.
//
// Memory: at most queueUnits units are handed out and not yet reported,
// each holding at most pairBudget/queueUnits pairs (24 bytes each), in
// whole chunks, before its worker waits for the caller's goroutine to
// reach it, so at most pairBudget pairs are buffered in all (one chunk a
// worker beyond 512 workers); the workers share the records the table and
// band parts read (recordCache) and the bands the band part computed
// (bandCache).

// pairFunc is the function the pairs are reported to: two document numbers,
// their distance and similarity.
type pairFunc func(a, b uint32, d int, sim float64) error

// pairTuning sizes the work and the buffers of Pairs' workers; the zero
// value is the defaults (tests make them small).
type pairTuning struct {
	workers int // workers, 0: GOMAXPROCS
	chunk   int // pairs a worker hands over at once
	keys    int // band keys a unit
	budget  int // pairs buffered in all
	// tableDocs replaces tablePartDocs (see tableParts).
	tableDocs int
	stats     *pairStats
}

// pairStats counts the workers of Pairs that tests ask about.
type pairStats struct {
	started, running atomic.Int64
}

// The defaults of pairTuning.
const (
	pairChunk    = 1024
	pairUnitKeys = 256
	pairBudget   = 1 << 19
)

// queueUnits is the most units handed out and not yet reported, with w
// workers and room for budget pairs in chunks of chunk: the pairs are
// reported in the order of the units, so a unit slower than the others (a
// band key of many documents) holds up the workers once the units after
// it fill the queue, 16 a worker, or one a chunk of the budget when that
// is fewer. The caller's goroutine sends the units ahead into a buffer as
// long as the queue, so that a worker does not wait for it to be
// scheduled at each unit.
func queueUnits(w, budget, chunk int) int { return min(16*w, max(budget/chunk, w)) }

// pairOut is a pair as a worker hands it over.
type pairOut struct {
	a, b uint32
	d    int
	sim  float64
}

// pairUnit is a unit of work: run reports its pairs to emit, on a worker.
type pairUnit struct {
	run func(w *pairWorker, emit pairFunc) error
	out chan []pairOut // the chunks of pairs, closed when the unit is done
	err error          // run's error, set before out is closed
}

// pairWorker is what a worker reads with: its transaction, and its state
// across the units it runs.
type pairWorker struct {
	x    *Index
	tx   *bolt.Tx
	docs *bolt.Bucket
	dc   *bolt.Cursor

	// The band part's: the lazy records and the document numbers of a
	// band key; the exact similarity of two documents (verifier), made
	// at first use.
	recs     []lazyRecord
	nums     []uint32
	verified func(a, b uint32) (float64, bool, error)
	check    record // cacheGroup's and bandRecord's decoding of the records they check
}

func (x *Index) newPairWorker(tx *bolt.Tx) *pairWorker {
	docs := tx.Bucket(bucketDocs)
	return &pairWorker{x: x, tx: tx, docs: docs, dc: docs.Cursor()}
}

// verifier returns w's verifier (see Index.verifier), made at first use.
func (w *pairWorker) verifier() func(a, b uint32) (float64, bool, error) {
	if w.verified == nil {
		w.verified = w.x.verifier(w.tx)
	}
	return w.verified
}

// pairSched runs the units of one Pairs scan: in the caller's goroutine,
// one after another, when it has one worker (seq), or on the workers.
type pairSched struct {
	tx     *bolt.Tx        // the caller's transaction
	parent context.Context // the caller's context
	ctx    context.Context // the units' context: parent's, cancelled when the scan stops
	cancel context.CancelFunc
	fn     pairFunc
	seq    *pairWorker // the one worker, in the caller's goroutine; nil with workers

	keys     int // band keys a unit
	chunk    int // pairs a chunk
	outCap   int // chunks a unit holds before its worker waits
	maxQueue int // units handed out and not reported

	cache recordCache // the records the table and band parts read, for every worker (see cacheGroup)
	bands *bandCache  // the band part's computed bands, for every worker (see lazyRecord.band)

	units chan *pairUnit // to the workers, buffered maxQueue: taken in order
	free  chan []pairOut // chunks reported, for the workers' next ones
	queue []*pairUnit    // handed out and not reported yet, in order
	txs   []*bolt.Tx     // the workers' transactions
	wg    sync.WaitGroup
	stats *pairStats

	mu  sync.Mutex
	err error // the first error of a unit

	// progress is QueryOptions.Progress, told of sp as the scan hands
	// out its units; nil without.
	progress func(ScanProgress)
	sp       ScanProgress
}

// advance tells progress, if any, that the units of the first tables
// tables and then of the first bands bands are handed out, if that is
// further than before.
func (s *pairSched) advance(tables, bands int) {
	if s.progress == nil || (tables <= s.sp.TablesDone && bands <= s.sp.BandsDone) {
		return
	}
	s.sp.TablesDone, s.sp.BandsDone = max(tables, s.sp.TablesDone), max(bands, s.sp.BandsDone)
	tellProgress(s.progress, s.sp)
}

// tellProgress calls progress (QueryOptions.Progress), if any, with p, as
// a function of the caller's.
func tellProgress(progress func(ScanProgress), p ScanProgress) {
	if progress != nil {
		_ = callUser(func(p ScanProgress) error {
			progress(p)
			return nil
		}, p)
	}
}

// pairPanic carries the panic of a worker to the caller's goroutine,
// where it goes on (see recoverCorrupt).
type pairPanic struct{ v any }

func (pairPanic) Error() string { return "panic in a worker" }

// newPairSched returns the scheduler of a scan of tx's snapshot reporting
// to fn, with up to x.pairTune.workers workers (GOMAXPROCS by default),
// or in the caller's goroutine alone when it gets one, or when it cannot
// begin their transactions on tx's snapshot (see beginSnapshot). The
// caller holds x.readers (read) and calls close.
func (x *Index) newPairSched(ctx context.Context, tx *bolt.Tx, fn pairFunc) *pairSched {
	t := x.pairTune
	s := &pairSched{tx: tx, parent: ctx, ctx: ctx, fn: fn,
		keys: pairUnitKeys, chunk: pairChunk}
	if t.keys > 0 {
		s.keys = t.keys
	}
	if t.chunk > 0 {
		s.chunk = t.chunk
	}
	n := t.workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if n > 1 {
		s.txs = x.beginSnapshot(tx, n)
	}
	if len(s.txs) == 0 {
		s.seq = x.newPairWorker(tx)
		return s
	}
	budget := pairBudget
	if t.budget > 0 {
		budget = t.budget
	}
	s.maxQueue = queueUnits(n, budget, s.chunk)
	s.outCap = max(budget/(s.chunk*s.maxQueue), 1)
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.units = make(chan *pairUnit, s.maxQueue)
	s.free = make(chan []pairOut, s.maxQueue*s.outCap+n)
	s.stats = t.stats
	for _, wtx := range s.txs {
		w := x.newPairWorker(wtx)
		s.wg.Add(1)
		if s.stats != nil {
			s.stats.started.Add(1)
			s.stats.running.Add(1)
		}
		go s.work(w)
	}
	return s
}

// beginSnapshot begins n read transactions on the snapshot of tx, a read
// transaction of the caller's, or none: when a write holds x.wmu, or has
// committed since tx began (the transactions would read a newer
// snapshot). bbolt's writer remaps the file when it grows it, waiting for
// every read transaction to end, and a read transaction that begins while
// it waits waits for it (sync.RWMutex): with tx open, that would never
// end. Every commit, and the close of the file, holds x.wmu, so with
// x.wmu held no writer waits, and no commit lands between the
// transactions. Cost: a bbolt Begin each.
func (x *Index) beginSnapshot(tx *bolt.Tx, n int) []*bolt.Tx {
	if !x.wmu.TryLock() {
		return nil
	}
	defer x.wmu.Unlock()
	txs := make([]*bolt.Tx, 0, n)
	for range n {
		t, err := x.db.Begin(false)
		if err == nil && t.ID() != tx.ID() {
			t.Rollback()
			err = errStop
		}
		if err != nil {
			for _, t := range txs {
				t.Rollback()
			}
			return nil
		}
		txs = append(txs, t)
	}
	return txs
}

// work runs the units handed to w until there are none.
func (s *pairSched) work(w *pairWorker) {
	defer s.wg.Done()
	if s.stats != nil {
		defer s.stats.running.Add(-1)
	}
	// As the caller's goroutine does (see recoverCorrupt).
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for u := range s.units {
		s.runUnit(w, u)
	}
}

// runUnit runs u on w, handing its pairs over in chunks.
func (s *pairSched) runUnit(w *pairWorker, u *pairUnit) {
	var buf []pairOut
	send := func() error {
		select {
		case u.out <- buf:
			buf = nil
			return nil
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
	defer func() {
		if r := recover(); r != nil {
			u.err = s.fail(pairPanic{r})
		}
		close(u.out)
	}()
	err := s.ctx.Err()
	if err == nil {
		err = u.run(w, func(a, b uint32, d int, sim float64) error {
			if buf == nil {
				select {
				case buf = <-s.free:
				default:
					buf = make([]pairOut, 0, s.chunk)
				}
			}
			buf = append(buf, pairOut{a, b, d, sim})
			if len(buf) == s.chunk {
				return send()
			}
			return nil
		})
	}
	if err == nil && len(buf) > 0 {
		err = send()
	}
	if err != nil {
		err = s.fail(err)
	}
	u.err = err
}

// fail records err as the scan's error if it is the first, stops the
// other units, and returns err.
func (s *pairSched) fail(err error) error {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.cancel()
	return err
}

// do runs unit run: at once in the caller's goroutine with one worker,
// else on a worker, once fewer than maxQueue units wait to be reported,
// reporting to fn the pairs of the first ones until then. It returns the
// first error of fn or of a unit.
func (s *pairSched) do(run func(w *pairWorker, emit pairFunc) error) error {
	if s.seq != nil {
		return run(s.seq, s.fn)
	}
	if err := s.ctxErr(); err != nil {
		return err
	}
	for len(s.queue) >= s.maxQueue {
		if err := s.report(); err != nil {
			return err
		}
	}
	u := &pairUnit{run: run, out: make(chan []pairOut, s.outCap)}
	s.units <- u // the buffer holds the whole queue: this does not wait
	s.queue = append(s.queue, u)
	return nil
}

// finish reports the pairs of every unit handed out.
func (s *pairSched) finish() error {
	for len(s.queue) > 0 {
		if err := s.report(); err != nil {
			return err
		}
	}
	return nil
}

// report reports the pairs of the first unit not reported yet, waiting
// for it to end.
func (s *pairSched) report() error {
	u := s.queue[0]
	for {
		c, ok := <-u.out
		if err := s.take(c, ok); err != nil || !ok {
			return err
		}
	}
}

// ctxErr returns nil if the scan goes on, else why it stopped: the
// caller's ctx.Err(), or the first error of a unit.
func (s *pairSched) ctxErr() error {
	if s.ctx.Err() == nil {
		return nil
	}
	return s.stopped()
}

// stopped returns why the scan stopped: the caller's ctx.Err(), or the
// first error of a unit; a panic of a worker goes on here.
func (s *pairSched) stopped() error {
	if err := s.parent.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	err := s.err
	s.mu.Unlock()
	if p, ok := err.(pairPanic); ok {
		panic(p.v)
	}
	if err == nil {
		err = s.ctx.Err()
	}
	return err
}

// take reports chunk c of the first unit not reported yet, unless the
// caller's context is cancelled, or, when ok is false, the unit's end: its
// error, or the scan's first error if it was stopped (a panic of a worker
// goes on here).
func (s *pairSched) take(c []pairOut, ok bool) error {
	if ok {
		if err := s.parent.Err(); err != nil {
			return err
		}
		for _, p := range c {
			if err := s.fn(p.a, p.b, p.d, p.sim); err != nil {
				return err
			}
		}
		select {
		case s.free <- c[:0]:
		default:
		}
		return nil
	}
	u := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	if u.err == nil {
		return nil
	}
	return s.stopped()
}

// close stops the workers, waits for them and ends their transactions.
func (s *pairSched) close() {
	if s.seq != nil {
		return
	}
	s.cancel()
	close(s.units)
	s.wg.Wait()
	for _, t := range s.txs {
		t.Rollback()
	}
}

// recordCache holds the text records that the table and band parts read
// and checked, by document number, for every worker: a document is in a
// posting of each of its bands and in a pair of several tables, and its
// record is looked up and checked once, not at each. The workers read one
// snapshot, and their transactions stay open until the scan ends, so a
// record read by one is the same bytes for all (a slice of the file's
// mapping, or of a copy that the entry keeps alive). An entry is set at
// most once in effect: every worker that sets it sets the same slice.
// Cost: 16 bytes per document number below maxPairRecords; the documents
// numbered from it on are read and checked at each use.
type recordCache []cachedRecord

// cachedRecord is an entry of a recordCache: p is set after n, and read
// before it.
type cachedRecord struct {
	p atomic.Pointer[byte]
	n atomic.Uint32
}

// newRecordCache returns a cache for the documents numbered below next.
func newRecordCache(next uint32) recordCache {
	return make(recordCache, min(int(next), maxPairRecords))
}

// get returns the record of document n, if c holds it.
func (c recordCache) get(n uint32) ([]byte, bool) {
	if int64(n) >= int64(len(c)) {
		return nil, false
	}
	e := &c[n]
	p := e.p.Load()
	if p == nil {
		return nil, false
	}
	return unsafe.Slice(p, e.n.Load()), true
}

// put sets the record of document n to v.
func (c recordCache) put(n uint32, v []byte) {
	if int64(n) >= int64(len(c)) || len(v) == 0 || len(v) > math.MaxUint32 {
		return
	}
	e := &c[n]
	e.n.Store(uint32(len(v)))
	e.p.Store(&v[0])
}

// bandCache holds the band hashes of compact records that the band part
// computed, by document number, for every worker: a record's bands are
// computed (lazyRecord.band) to tell whether two documents share a band
// before the one that paired them, and the bands of a short set cost a
// MinHash of it, more than the rest of a comparison. A document in pairs
// at several of its bands needs them at each, so they are kept once a
// worker has computed them all, if its short set is not empty (those of
// an empty one are zeros). An entry is set at most once in effect: every
// worker that sets it sets the same hashes. A hash is kept in w bytes, its
// leading bits that the index keeps (see bandHashKeep): 5 at the default
// ExpectedDocs, 6 at the largest. Cost: 8 bytes per document number below
// maxPairRecords (32 MiB at most), and w bytes a band for each document
// kept, maxBandCacheBytes in all at most (each document's rounded up to
// the heap's size class: 176 bytes for 170); the others' bands are
// computed at each use. An index without compact records with short sets
// (a wide one, or one without the short-text layer) has no bandCache.
type bandCache struct {
	entries []atomic.Pointer[byte] // a document's bands, w bytes each
	bands   int                    // band hashes a document
	w       int                    // bytes a band hash
	left    atomic.Int64           // bytes that may still be kept
}

// maxBandCacheBytes is the most bytes of band hashes a bandCache keeps:
// those of 394,000 documents with the default settings (34 bands, 14 of
// the signature and 20 of the short set, of 5 bytes).
const maxBandCacheBytes = 64 << 20

// newBandCache returns a cache of the bands of the documents numbered
// below next, in an index of layout lay; nil if it would keep none: their
// records are not compact or have no short-set bands.
func newBandCache(next uint32, lay layout) *bandCache {
	if lay.bands <= 0 || lay.bh == nil || lay.wide || lay.bh.shortBands == 0 {
		return nil
	}
	w := 8
	if keep := lay.bh.keep; keep != 0 {
		if tz := bits.TrailingZeros64(keep); keep == ^uint64(0)<<tz {
			w = 8 - tz/8
		}
	}
	c := &bandCache{entries: make([]atomic.Pointer[byte], min(int(next), maxPairRecords)), bands: lay.bands, w: w}
	c.left.Store(maxBandCacheBytes)
	return c
}

// has reports whether c holds the bands of document n.
func (c *bandCache) has(n uint32) bool {
	return c != nil && int64(n) < int64(len(c.entries)) && c.entries[n].Load() != nil
}

// appendBands appends the bands of document n to dst, and reports whether
// c held them.
func (c *bandCache) appendBands(dst []uint64, n uint32) ([]uint64, bool) {
	if c == nil || int64(n) >= int64(len(c.entries)) {
		return dst, false
	}
	p := c.entries[n].Load()
	if p == nil {
		return dst, false
	}
	for b := unsafe.Slice(p, c.bands*c.w); len(b) > 0; b = b[c.w:] {
		var h uint64
		for _, x := range b[:c.w] {
			h = h<<8 | uint64(x)
		}
		dst = append(dst, h<<(64-8*c.w))
	}
	return dst, true
}

// put keeps bands, all the bands of document n, if c has room: nothing if
// it is nil, if it holds n's already or if bands are not all of them.
func (c *bandCache) put(n uint32, bands []uint64) {
	if c == nil || int64(n) >= int64(len(c.entries)) || len(bands) != c.bands || c.entries[n].Load() != nil {
		return
	}
	size := int64(c.bands * c.w)
	if c.left.Load() < size || c.left.Add(-size) < 0 {
		return // full: no more atomic adds on the shared counter
	}
	b := make([]byte, 0, size)
	for _, h := range bands {
		for i := range c.w {
			b = append(b, byte(h>>(56-8*i)))
		}
	}
	c.entries[n].Store(&b[0])
}
