package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
)

// LoadOptions configure Load. A nil *LoadOptions selects the defaults.
type LoadOptions struct {
	// Workers is the number of goroutines that analyse documents; zero
	// means runtime.GOMAXPROCS(0).
	Workers int

	// BatchSize is the number of documents per transaction when Load adds
	// to a non-empty index; zero means 20,000. A larger batch is faster
	// and holds more memory and more uncommitted work.
	BatchSize int

	// SkipInvalid makes Load count and skip documents with an invalid ID
	// or too large a text (LoadStats.Skipped) instead of stopping.
	SkipInvalid bool

	// Replaced, if set, is called on the goroutine that called Load with
	// the ID of each document replaced by a later document of the same
	// ID, once the replacement is committed, in no particular order.
	Replaced func(id string)

	// Empty, if set, is called on the goroutine that called Load with the
	// ID of each document that has no words (no units after
	// canonicalization), as it is analysed. Such a document is stored but
	// matches nothing (see Doc).
	Empty func(id string)

	// Memory bounds the postings (MinHash bands, and sets) that a load
	// into an empty index holds in memory to sort them, 32 bytes per
	// posting entry with the sort's scratch (the default settings make 14
	// to 34 entries per text): beyond it
	// they are sorted into runs in temporary files and merged when the
	// load ends, as an external sort does, through read blocks that take
	// about half of it. Zero means DefaultLoadMemory. While the postings
	// are written, up to 64 batches of encoded keys wait for the writes
	// (40 MiB of band groups at most).
	// The other memory of a bulk load is about 70 bytes per document (the
	// hashes of the IDs, fingerprints and exact hashes, 25 bytes; at the
	// end, the entries of two tables and the scratch of their sort, 48
	// bytes; the IDs themselves in an index created before schema 11), and
	// a transaction of about 64 MB of records.
	Memory int64

	// TempDir is the directory of the sorted runs; empty means the
	// directory of the index file. The runs are removed as they are
	// made where the system allows it (they live on while open), and
	// otherwise when Load returns.
	TempDir string

	// Progress, if set, is called on the goroutine that called Load as
	// documents are analysed and committed, at most every few thousand
	// documents, and once at the end.
	Progress func(LoadStats)
}

// LoadStats count what Load did.
type LoadStats struct {
	// Docs is the number of documents read from the source and analysed.
	Docs int64 `json:"docs"`

	// Bytes is the number of text bytes read.
	Bytes int64 `json:"bytes"`

	// Committed is the number of documents committed so far.
	Committed int64 `json:"committed"`

	// Replaced is the number of documents that replaced a document with
	// the same ID (stored before, or earlier in the same load).
	Replaced int64 `json:"replaced"`

	// ExactDuplicates is the number of documents whose canonical text
	// equals that of a document already stored or loaded.
	ExactDuplicates int64 `json:"exact_duplicates"`

	// Skipped is the number of invalid documents skipped
	// (LoadOptions.SkipInvalid).
	Skipped int64 `json:"skipped"`

	// Empty is the number of documents read that have no words (see
	// LoadOptions.Empty).
	Empty int64 `json:"empty"`
}

// Load adds the documents of src, which yields documents or an error, in
// large atomic batches, analysing them on all cores. An existing ID is
// replaced. Load blocks other writers of this *Index until it returns;
// queries proceed and see each batch when it commits.
//
// Loading into an empty index sorts every table and writes it in key
// order with full pages, so the index ends as compact as a sorted build;
// the documents become visible together at the end (a crash before then
// leaves the index empty). Loading into a non-empty index commits every
// LoadOptions.BatchSize documents.
//
// If ctx is cancelled, or src yields an error, or a document is invalid
// (unless LoadOptions.SkipInvalid), Load commits the documents read before
// and returns the error wrapped, with the counts: the index stays
// consistent. Load checks ctx before it reads a document and then every
// 256 documents, so a source that may block (reading a pipe) should
// itself return when ctx is done. src must
// not reuse a Doc's Text after yielding it.
func (x *Index) Load(ctx context.Context, src iter.Seq2[Doc, error], opts *LoadOptions) (LoadStats, error) {
	if err := x.checkWritable(); err != nil {
		return LoadStats{}, err
	}
	if err := ctx.Err(); err != nil {
		return LoadStats{}, fmt.Errorf("index: load: %w", err)
	}
	var o LoadOptions
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 20_000
	}
	if w := x.wlog; w != nil {
		// The operations logged before come first, and none is logged
		// while the load writes: Add and Delete wait for it.
		w.commitMu.Lock()
		defer w.commitMu.Unlock()
		if err := x.flush(); err != nil {
			return LoadStats{}, err
		}
		defer func() { x.pend.rebase(int(x.count.Load())) }()
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	if err := x.checkOpen(); err != nil {
		return LoadStats{}, err
	}
	if x.useFilter {
		// The bulk path writes band postings the filter does not see:
		// no filter (every band looked up) until the load is over.
		x.filter.Store(nil)
		// Without a new filter queries stay correct, only slower.
		defer func() { _ = x.rebuildBandFilter(0) }()
	}
	if x.useMirror {
		// Its writes to the tables make the mirror useless (each of its
		// transactions stores its ID in tablesTx): its memory goes now,
		// and a new one is made when the load is over.
		x.setMirror(nil)
		defer func() { _ = x.rebuildTableMirror() }()
	}
	l := x.newLoader(&o)
	err := l.run(ctx, src)
	if ferr := l.flush(); ferr != nil && err == nil {
		err = ferr
	}
	if cerr := l.closeSorters(); cerr != nil && err == nil {
		err = cerr
	}
	if o.Progress != nil {
		o.Progress(l.st)
	}
	return l.st, err
}

// newLoader returns the loader of a Load with options o (Workers set),
// a bulk load if x is empty; it may set o's Memory and TempDir.
func (x *Index) newLoader(o *LoadOptions) *loader {
	l := &loader{x: x, opts: o, bulk: x.count.Load() == 0}
	l.encode = l.bulk
	if l.bulk {
		if o.Memory <= 0 {
			o.Memory = DefaultLoadMemory
		}
		if o.TempDir == "" {
			o.TempDir = filepath.Dir(x.path)
		}
		if x.settings.MinHash {
			l.bands = newPostingSorter(x.settings.bandSlots(), o.Memory, o.TempDir)
		}
		if x.lay.sets {
			l.sets = newPostingSorter(1, o.Memory, o.TempDir)
		}
	}
	return l
}

// DefaultLoadMemory is the default of LoadOptions.Memory.
const DefaultLoadMemory = 128 << 20

// LoadFootprint returns the memory in bytes that a Load with
// LoadOptions.Memory m (DefaultLoadMemory if m <= 0) holds once it has
// read docs documents, as LoadOptions.Memory states it: m for the
// postings, loadDocBytes a document (the hashes of its ID, fingerprint and
// exact text, and at the end the entries of two tables and their sort's
// scratch), and loadBaseBytes for the records of two phase-1 transactions,
// the batches of postings waiting for the writes and the analysis in
// flight. A garbage-collected heap holding it grows beyond it between
// collections (twice the live heap at GOGC 100).
func LoadFootprint(docs, m int64) int64 {
	if m <= 0 {
		m = DefaultLoadMemory
	}
	return m + max(docs, 0)*loadDocBytes + loadBaseBytes
}

// The memory of a load besides its postings: see LoadFootprint.
const (
	loadDocBytes  = 80
	loadBaseBytes = 128 << 20
)

// Bulk-load limits.
const (
	chunkSize    = 256       // documents per unit of analysis work, at most
	chunkBytes   = 256 << 10 // bytes of text per unit of analysis work, about
	chunksAhead  = 8         // units of work in flight per worker, at most
	maxBulk      = 1 << 25   // documents buffered by a bulk load into an empty index
	bulkTxPuts   = 1_000_000 // puts per bulk transaction
	bulkTxBytes  = 16 << 20  // bytes per bulk transaction (see bulkWriter)
	phase1Docs   = 500_000   // documents per phase-1 transaction, at most
	phase1Bytes  = 32 << 20  // bytes in memory of the records of a phase-1 transaction, about (two such batches at once: see phase1)
	progressStep = 1 << 13   // documents between progress reports
)

// pendingOverhead is the memory of a record waiting for phase 1 besides
// its ID, its encoding and its hashes: the record's fields and slice
// headers, and the slice headers of its place in pending and pendingEnc.
const pendingOverhead = int(unsafe.Sizeof(record{})) + 24

// loader is the state of one Load.
type loader struct {
	x    *Index
	opts *LoadOptions
	st   LoadStats

	batch []record // incremental: analysed, not yet committed

	// Bulk load into an empty index.
	bulk    bool
	started bool     // documents are numbered from base, and what is written of them carries the loading flag
	base    uint32   // first document number of the load
	pending []record // phase 1: analysed, not yet written
	// pendingEnc holds the encoded records of pending, as the workers
	// encoded them (encodeRecord), so that the writing goroutine only
	// writes them; pendingBytes is their size.
	pendingEnc   [][]byte
	pendingBytes int
	pendingCap   int // the length of the last batch: the room the next is given
	// handed and handedEnc are the arrays of the batch that phase1 handed
	// to its transaction last, cleared once it is over; at the next
	// phase1 they are spare, and the next batch fills them instead of new
	// memory.
	handed, spare       []record
	handedEnc, spareEnc [][]byte
	queued              int        // documents handed to phase1
	writing             chan error // the end of phase1's transaction under way
	// failed is the error of a phase-1 transaction: the load ends with
	// it, and commits nothing (the sorters hold postings of its documents).
	failed error
	// ids holds the IDs of an index with a key per ID (created before
	// schema 11), idh the hash of each ID (idHash) of a grouped one: 8
	// bytes a document, nothing the garbage collector scans, where ids
	// keeps every ID string alive. Both by document number - base.
	ids   []idNum
	idh   column[uint64]
	fps   column[uint64] // by document number - base
	exact column[uint64]
	text  column[bool]
	bands *postingSorter // band postings, with MinHash
	sets  *postingSorter // set postings, with sets

	// encode says the workers encode the records (a bulk load at the
	// start of the run; set before the workers start).
	encode bool
	// batchDocs, if set, is the most documents of a phase-1 transaction
	// instead of phase1Docs (tests).
	batchDocs int
}

// closeSorters removes the sorters' files.
func (l *loader) closeSorters() error {
	var err error
	for _, s := range []*postingSorter{l.bands, l.sets} {
		if s != nil {
			err = errors.Join(err, s.close())
		}
	}
	l.bands, l.sets = nil, nil
	return err
}

type idNum struct {
	id string
	n  uint32
}

// chunk is a unit of analysis work.
type chunk struct {
	docs  []Doc
	bytes int64 // text bytes of docs
	recs  []record
	encs  [][]byte // the records encoded (loader.encode)
	errs  []error
	done  chan struct{}
}

// run reads src, analyses documents on the workers and hands them, in
// order, to add. It returns the first error that stops the load.
//
// Three stages overlap: a feeding goroutine reads src and cuts it into
// chunks; the workers analyse chunks; the calling goroutine takes the
// analysed chunks in input order and writes them (add, the commits, the
// callbacks). A chunk ends at chunkSize documents or chunkBytes of text,
// whichever comes first, so that one chunk of long texts does not keep
// the others waiting for it; at most chunksAhead×Workers+2 chunks are in
// flight, so memory is bounded whatever the corpus.
func (l *loader) run(ctx context.Context, src iter.Seq2[Doc, error]) error {
	workers := l.opts.Workers
	work := make(chan *chunk, chunksAhead*workers)
	ready := make(chan *chunk, chunksAhead*workers)
	quit := make(chan struct{}) // closed when the writing stage stops
	// Chunks the writing stage is done with, for the feeder to fill
	// again: their arrays are not new memory for every chunk.
	free := make(chan *chunk, chunksAhead*workers+2)
	for range workers {
		go func() {
			a := l.x.getAnalyzer()
			for c := range work {
				for i := range c.docs {
					c.recs[i], c.errs[i] = l.x.analyzeDoc(a, &c.docs[i])
					c.docs[i].Text = nil
					if l.encode && c.errs[i] == nil {
						r := &c.recs[i]
						// At most: 8 bytes a value and a word of header.
						size := 64 + len(r.id) + 8*(len(r.sig)+len(r.bands)+len(r.set)+len(r.short))
						c.encs[i] = encodeRecord(make([]byte, 0, size), r, l.x.lay)
					}
				}
				close(c.done)
			}
			l.x.pool.Put(a)
		}()
	}
	// readErr ends the input (cancellation, a failing source): what was
	// read before is still analysed and committed. It is the feeder's
	// until ready is closed.
	var readErr error
	go func() {
		defer close(ready)
		defer close(work)
		next := func() *chunk {
			select {
			case c := <-free:
				return c
			default:
				return &chunk{}
			}
		}
		cur := next()
		submit := func() bool {
			cur.recs = resize(cur.recs, len(cur.docs))
			cur.encs = resize(cur.encs, len(cur.docs))
			cur.errs = resize(cur.errs, len(cur.docs))
			cur.done = make(chan struct{})
			c := cur
			cur = next()
			// ready first: the writing stage waits for c.done, which
			// the workers close once c is in work.
			select {
			case ready <- c:
			case <-quit:
				return false
			}
			work <- c // the workers drain work until it is closed
			return true
		}
		read := 0
		for d, err := range src {
			if err != nil {
				readErr = fmt.Errorf("index: load: reading documents: %w", err)
				break
			}
			if read++; read%chunkSize == 0 {
				if err := ctx.Err(); err != nil {
					readErr = fmt.Errorf("index: load: %w", err)
					break
				}
			}
			select {
			case <-quit:
				return
			default:
			}
			if !d.Precomputed {
				cur.bytes += int64(len(d.Text))
			}
			cur.docs = append(cur.docs, d)
			if (len(cur.docs) == chunkSize || cur.bytes >= chunkBytes) && !submit() {
				return
			}
		}
		if len(cur.docs) > 0 {
			submit()
		}
	}()

	// stop ends the load at once (an invalid document, a failed commit).
	var stop error
	for c := range ready {
		<-c.done
		if stop != nil {
			continue // drain: the feeder may be blocked on ready
		}
		l.st.Bytes += c.bytes
		for i := range c.recs {
			if err := c.errs[i]; err != nil {
				if l.opts.SkipInvalid && (errors.Is(err, ErrInvalidID) || errors.Is(err, ErrTooLarge)) {
					l.st.Skipped++
					continue
				}
				stop = err
				break
			}
			l.st.Docs++
			if r := &c.recs[i]; l.x.emptyProbe(r.text, r.exact) {
				l.st.Empty++
				if l.opts.Empty != nil {
					l.opts.Empty(r.id)
				}
			}
			if err := l.add(c.recs[i], c.encs[i]); err != nil {
				stop = err
				break
			}
			if l.st.Docs%progressStep == 0 && l.opts.Progress != nil {
				l.opts.Progress(l.st)
			}
		}
		if stop != nil {
			close(quit)
			continue
		}
		c.docs, c.recs, c.encs, c.errs, c.bytes = clear0(c.docs), clear0(c.recs), clear0(c.encs), clear0(c.errs), 0
		select {
		case free <- c:
		default:
		}
	}
	// ready is closed: the feeder is done.
	if stop == nil {
		stop = readErr
	}
	if stop == nil {
		if err := ctx.Err(); err != nil {
			stop = fmt.Errorf("index: load: %w", err)
		}
	}
	return stop
}

// add takes one analysed document.
func (l *loader) add(r record, enc []byte) error {
	if !l.bulk {
		l.batch = append(l.batch, r)
		if len(l.batch) >= l.opts.BatchSize {
			return l.commitBatch()
		}
		return nil
	}
	if enc == nil {
		enc = encodeRecord(nil, &r, l.x.lay)
	}
	// The record is written as enc: phase 1 reads only its ID, hashes,
	// band and set postings and shingles, not its signature.
	r.sig, r.short = nil, nil
	if l.pending == nil && l.pendingCap > 0 {
		// About as long as the last batch: not grown from empty, a copy
		// of the whole batch at each doubling; in the spare arrays when
		// they are as long.
		if cap(l.spare) >= l.pendingCap {
			l.pending, l.pendingEnc = l.spare[:0], l.spareEnc[:0]
		} else {
			l.pending, l.pendingEnc = make([]record, 0, l.pendingCap), make([][]byte, 0, l.pendingCap)
		}
		l.spare, l.spareEnc = nil, nil
	}
	l.pending = append(l.pending, r)
	l.pendingEnc = append(l.pendingEnc, enc)
	l.pendingBytes += pendingOverhead + len(r.id) + len(enc) + 8*(len(r.bands)+len(r.set)+len(r.shingles))
	if len(l.pending) >= cmp.Or(l.batchDocs, phase1Docs) || l.pendingBytes >= phase1Bytes {
		if err := l.phase1(); err != nil {
			return err
		}
	}
	if l.queued+len(l.pending) >= maxBulk {
		if err := l.phase2(); err != nil {
			return err
		}
		l.bulk = false
	}
	return nil
}

// flush commits everything analysed.
func (l *loader) flush() error {
	if l.bulk {
		return l.phase2()
	}
	return l.commitBatch()
}

// commitBatch adds the batch to a non-empty index in one transaction.
func (l *loader) commitBatch() error {
	if len(l.batch) == 0 {
		return nil
	}
	x := l.x
	var count, rep, ex int64
	var names *[]string
	if l.opts.Replaced != nil {
		names = new([]string)
	}
	err := x.update(func(tx *bolt.Tx) error {
		var err error
		if names != nil {
			*names = (*names)[:0]
		}
		count, rep, ex, err = x.addRecords(tx, l.batch, names)
		return err
	})
	if err != nil {
		return boltErr(err)
	}
	x.count.Store(count)
	_ = x.maybeMergeLevels() // retried by the next commit if it fails
	l.st.Committed += int64(len(l.batch))
	l.st.Replaced += rep
	l.st.ExactDuplicates += ex
	if names != nil {
		for _, id := range *names {
			l.opts.Replaced(id)
		}
	}
	clear(l.batch)
	l.batch = l.batch[:0]
	if l.opts.Progress != nil {
		l.opts.Progress(l.st)
	}
	return nil
}

// phase1 hands the pending documents to a goroutine that writes them
// (writePhase1) once the transaction of those handed before is over, so
// that the analysed documents keep being taken while a transaction writes
// and commits. It returns the error of the transaction before.
func (l *loader) phase1() error {
	if err := l.waitPhase1(); err != nil {
		return err
	}
	if len(l.pending) == 0 {
		return nil
	}
	recs, encs := l.pending, l.pendingEnc
	l.spare, l.spareEnc = l.handed, l.handedEnc
	l.handed, l.handedEnc = recs, encs
	l.queued += len(recs)
	l.pending, l.pendingEnc, l.pendingBytes, l.pendingCap = nil, nil, 0, len(recs)
	done := make(chan error, 1)
	l.writing = done
	go func() {
		err := l.writePhase1(recs, encs)
		// Written: what the batch refers to goes now, and its arrays
		// are spare once waitPhase1 has returned.
		clear(recs)
		clear(encs)
		done <- err
	}()
	return nil
}

// waitPhase1 waits for the transaction of phase1 under way, if any, and
// returns its error.
func (l *loader) waitPhase1() error {
	if l.writing == nil {
		return l.failed
	}
	err := <-l.writing
	l.writing = nil
	if err != nil {
		l.failed = err
	}
	return err
}

// writePhase1 writes the records (and shingle sets) recs, encoded as
// encs, of a bulk load, uncommitted: the loading flag makes readers ignore
// them until phase2 commits. Their band and set postings go to the
// sorters, for phase2. Only one runs at a time, and nothing else uses
// what it changes in l (base, started, ids, fps, exact, text, the
// sorters) until waitPhase1 returns.
func (l *loader) writePhase1(recs []record, encs [][]byte) error {
	before := l.fps.len()
	err := l.x.update(func(tx *bolt.Tx) error { return l.putRecords(tx, recs, encs) })
	if err != nil {
		// Forget what this transaction would have added.
		l.fps.truncate(before)
		l.exact.truncate(before)
		l.text.truncate(before)
		l.idh.truncate(before)
		l.ids = l.ids[:min(before, len(l.ids))]
		return boltErr(err)
	}
	l.started = true
	return nil
}

// putRecords writes the records (and shingle sets) recs, encoded as
// encs, of a bulk load in tx, with the loading flag, and adds their IDs,
// hashes and postings to l (noteRecords): the work of writePhase1, in
// its transaction.
func (l *loader) putRecords(tx *bolt.Tx, recs []record, encs [][]byte) error {
	first, err := l.noteRecords(tx, recs)
	if err != nil {
		return err
	}
	return l.writeRecords(tx, first, recs, encs)
}

// noteRecords numbers records recs of a bulk load from the next document
// number of tx's index (the first of the load) or after those noted
// before, and adds their IDs, hashes and postings to l. It returns the
// number of the first.
func (l *loader) noteRecords(tx *bolt.Tx, recs []record) (uint32, error) {
	x := l.x
	if !l.started {
		l.base = x.readMeta(tx).next
	}
	if uint64(l.base)+uint64(l.fps.len())+uint64(len(recs)) >= 1<<32-1 {
		return 0, fmt.Errorf("index: load: %w", ErrFull)
	}
	first := l.base + uint32(l.fps.len())
	for i := range recs {
		r := &recs[i]
		n := l.base + uint32(l.fps.len())
		if r.text {
			if err := l.addPostings(n, r); err != nil {
				return 0, err
			}
		}
		if x.ids.grouped() {
			l.idh.append(idHash(r.id))
		} else {
			l.ids = append(l.ids, idNum{r.id, n})
		}
		l.fps.append(r.fp)
		l.exact.append(r.exact)
		l.text.append(r.text)
	}
	return first, nil
}

// writeRecords writes records recs, numbered from first and encoded as
// encs, and their shingle sets, in tx, and sets the loading flag.
func (l *loader) writeRecords(tx *bolt.Tx, first uint32, recs []record, encs [][]byte) error {
	x := l.x
	docs := tx.Bucket(bucketDocs)
	docs.FillPercent = 1.0
	// The records go in groups of consecutive documents (see
	// docgroups.go); a group of one under the document's own key.
	var grp [][]byte
	var gfirst uint32
	size := 0
	put := func() error {
		var err error
		switch len(grp) {
		case 0:
		case 1:
			err = docs.Put(docKey(gfirst), grp[0])
		default:
			err = docs.Put(docGroupKey(gfirst+uint32(len(grp)-1)), appendDocGroup(make([]byte, 0, 1+2*len(grp)+size), grp))
		}
		grp, size = grp[:0], 0
		return err
	}
	for i := range recs {
		n := first + uint32(i)
		if len(grp) == docGroupDocs || 1+2*(len(grp)+1)+size+len(encs[i]) > docGroupValue {
			if err := put(); err != nil {
				return err
			}
		}
		if len(grp) == 0 {
			gfirst = n
		}
		grp = append(grp, encs[i])
		size += len(encs[i])
		if recs[i].text {
			if err := x.putShingles(tx, n, &recs[i]); err != nil {
				return err
			}
		}
	}
	if err := put(); err != nil {
		return err
	}
	m := x.readMeta(tx)
	m.loading = true
	return x.writeMeta(tx, m)
}

// putPending writes the documents analysed and not yet handed to phase 1
// in w's transaction, the first of phase2, counted in its bounds; the
// band postings, complete once these are noted, are sorted on other
// goroutines meanwhile (sortAhead). bbolt holds their encodings until w
// commits.
func (l *loader) putPending(w *bulkWriter) error {
	if len(l.pending) > 0 {
		if err := w.begin(); err != nil {
			return err
		}
		first, err := l.noteRecords(w.tx, l.pending)
		if err != nil {
			return boltErr(err)
		}
		l.started = true
		if l.bands != nil {
			l.bands.sortAhead()
		}
		if err := l.writeRecords(w.tx, first, l.pending, l.pendingEnc); err != nil {
			return boltErr(err)
		}
		w.puts += len(l.pending)
		w.bytes += l.pendingBytes
		l.queued += len(l.pending)
		clear(l.pending)
		l.pending, l.pendingEnc, l.pendingBytes = nil, nil, 0
	} else if l.started && l.bands != nil {
		l.bands.sortAhead()
	}
	return nil
}

// addPostings adds the band and set postings of text document n to the
// sorters.
func (l *loader) addPostings(n uint32, r *record) error {
	if l.bands != nil {
		for i, h := range r.bands {
			if h == 0 { // a band the text does not have
				continue
			}
			if err := l.bands.add(i, h, n); err != nil {
				return err
			}
		}
	}
	if l.sets != nil {
		for _, h := range r.set {
			if err := l.sets.add(0, h, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// writePostings writes the postings of sorter s, slot by slot in key order,
// leaving out the dead documents, through w into bucket name; key appends
// the key of hash h of slot i. With group.g >= 0 (the bands bucket of
// schema 9: see bandgroups.go) key is not used: the postings of the hashes
// of one group are written as one value under their bandGroupKey. Up to
// GOMAXPROCS goroutines merge the runs of a slot each and encode its
// postings, running ahead of this one, which writes them in slot order, by
// at most GOMAXPROCS slots and postingsAhead batches in all (4 a goroutine
// at least).
func (l *loader) writePostings(w *bulkWriter, s *postingSorter, name []byte, key func(dst []byte, i int, h uint64) []byte, group groupCodec, dead []bool) error {
	if s == nil {
		return nil
	}
	// The dead documents as bits, looked up in hash order (at random):
	// an eighth of the bytes to miss the cache on; none without any.
	var deadBits []uint64
	for i, d := range dead {
		if d {
			if deadBits == nil {
				deadBits = make([]uint64, (len(dead)+63)/64)
			}
			deadBits[i/64] |= 1 << (i % 64)
		}
	}
	s.finish()
	procs := min(runtime.GOMAXPROCS(0), len(s.buf))
	s.mergers = procs
	outs := make([]chan *postingBatch, len(s.buf))
	errs := make([]error, len(s.buf)) // each slot's, read once outs[i] is closed
	for i := range outs {
		outs[i] = make(chan *postingBatch, max(postingsAhead/procs, 4))
	}
	quit := make(chan struct{})
	// A goroutine takes a token before it takes the next slot, and this
	// one gives it back once it has written a slot: at most procs slots
	// are made at once, the first not yet written among them.
	tokens := make(chan struct{}, procs)
	for range procs {
		tokens <- struct{}{}
	}
	var next atomic.Int64 // the next slot to produce
	var wg sync.WaitGroup
	for range procs {
		wg.Go(func() {
			for {
				select {
				case <-tokens:
				case <-quit:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(s.buf) {
					return
				}
				p := postingProducer{l: l, s: s, key: key, group: group, deadBits: deadBits, out: outs[i], quit: quit}
				errs[i] = p.slot(i)
				close(outs[i])
				if errs[i] != nil {
					return
				}
			}
		})
	}
	stop := func(err error) error {
		close(quit)
		wg.Wait()
		return err
	}
	// Slots are taken in order, so the first slot not yet written has a
	// goroutine producing it.
	for i := range outs {
		for b := range outs[i] {
			for j := range b.keys {
				if err := w.put(name, b.keys[j], b.vals[j]); err != nil {
					return stop(err)
				}
			}
		}
		if errs[i] != nil {
			return stop(errs[i])
		}
		tokens <- struct{}{}
	}
	wg.Wait()
	return nil
}

// postingsAhead is the number of batches of postings that the goroutines
// of writePostings make before it writes them: on two cores, 32 a slot,
// the whole slot of a million short texts (its band groups, about 6 MB).
const postingsAhead = 64

// postingBatchLen and postingBatchBytes bound a postingBatch: it ends at
// postingBatchLen keys or once its keys and values take postingBatchBytes,
// so that the batches waiting for the writes take postingsAhead times
// that at most, 40 MiB, whatever the size of the groups.
const (
	postingBatchLen   = 4096
	postingBatchBytes = 640 << 10
)

// postingBatch is a batch of keys and values of postings, written in order.
type postingBatch struct{ keys, vals [][]byte }

// postingProducer merges the runs of the postings of one slot and encodes
// them as the keys and values of its bucket, in batches.
type postingProducer struct {
	l        *loader
	s        *postingSorter
	key      func(dst []byte, i int, h uint64) []byte
	group    groupCodec
	deadBits []uint64
	out      chan<- *postingBatch
	quit     <-chan struct{}
}

// errPostingsStopped is the error of a postingProducer that writePostings
// stopped.
var errPostingsStopped = errors.New("index: load: stopped")

// slot sends the keys and values of the postings of slot i to p.out.
func (p *postingProducer) slot(i int) error {
	l, group := p.l, p.group
	newBatch := func() *postingBatch {
		return &postingBatch{keys: make([][]byte, 0, postingBatchLen), vals: make([][]byte, 0, postingBatchLen)}
	}
	b := newBatch()
	var arena []byte // keys and values; bbolt keeps the values until the commit
	var live, kept []uint32
	bm := roaring.New()
	send := func() error {
		select {
		case p.out <- b:
			return nil
		case <-p.quit:
			return errPostingsStopped
		}
	}
	add := func(k, v []byte) error {
		b.keys, b.vals = append(b.keys, k), append(b.vals, v)
		if len(b.keys) < postingBatchLen && len(arena) < postingBatchBytes {
			return nil
		}
		if err := send(); err != nil {
			return err
		}
		// The next batch's arena is about as large as this one's.
		b, arena = newBatch(), make([]byte, 0, len(arena))
		return nil
	}
	// The group being gathered (group.g >= 0): its key, and where its
	// value starts in the arena.
	var gk [bandGroupKeyLen]byte
	gs := -1
	endGroup := func() error {
		if gs < 0 {
			return nil
		}
		ks := len(arena)
		arena = append(arena, gk[:]...)
		k := arena[ks:len(arena):len(arena)]
		// The value lies before its key in the arena.
		v := arena[gs:ks:ks]
		gs = -1
		return add(k, v)
	}
	var post []byte
	err := p.s.each(i, func(h uint64, ns []uint32) error {
		live = ns
		if p.deadBits != nil {
			kept = kept[:0]
			for _, n := range ns {
				if i := n - l.base; p.deadBits[i/64]&(1<<(i%64)) == 0 {
					kept = append(kept, n)
				}
			}
			live = kept
		}
		if len(live) == 0 {
			return nil
		}
		if group.g >= 0 {
			var nk [bandGroupKeyLen]byte
			bandGroupKey(nk[:0], i, h, group.g)
			if gs >= 0 && nk != gk {
				if err := endGroup(); err != nil {
					return err
				}
			}
			if gs < 0 {
				gk, gs = nk, len(arena)
			}
			var err error
			arena, err = group.appendDocsEntry(arena, h, live, bm)
			return err
		}
		if len(live) == 1 {
			post = appendSingletonPosting(post[:0], live[0])
		} else if sp, ok := appendSmallPosting(post[:0], live); ok {
			post = sp
		} else {
			bm.Clear()
			bm.AddMany(live)
			bm.RunOptimize()
			v, err := bm.ToBytes()
			if err != nil {
				return err
			}
			post = v
		}
		ks := len(arena)
		arena = p.key(arena, i, h)
		k := arena[ks:len(arena):len(arena)]
		vs := len(arena)
		arena = append(arena, post...)
		return add(k, arena[vs:len(arena):len(arena)])
	})
	if err == nil {
		err = endGroup() // a group holds one band
	}
	if err == nil && len(b.keys) > 0 {
		err = send()
	}
	return err
}

// phase2 writes the records not yet written (putPending), then the ids,
// exact, table, band and set buckets of a bulk load in key order with
// full pages, and commits the load.
func (l *loader) phase2() (err error) {
	x := l.x
	w := &bulkWriter{x: x}
	ok := false
	defer func() {
		w.rollback()
		if !ok && err != nil {
			// A later phase2 (flush after a failed one at maxBulk)
			// returns it too: the sorters still hold the postings of
			// the documents that this one forgets.
			l.failed = err
		}
		if !ok && l.started {
			l.started = false
			l.forget()
			x.recover() // leave the index empty, as before the load
		}
	}()
	// The records the load wrote are read back (putIDGroups) outside
	// Index.update, whose recoverCorrupt would make their damage an error.
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case groupDamage, corruptRecord:
				err = fmt.Errorf("%w: %v", ErrCorrupt, r)
			default:
				panic(r)
			}
		}
	}()
	if err := l.waitPhase1(); err != nil {
		return err
	}
	if err := l.putPending(w); err != nil {
		return err
	}
	if !l.started {
		return nil
	}

	// IDs: the last document of each ID wins; earlier ones are dropped.
	dead := make([]bool, l.fps.len())
	var dropped []uint32
	var deadIDs []string // for LoadOptions.Replaced
	kill := func(e idNum) {
		dead[e.n-l.base] = true
		dropped = append(dropped, e.n)
		if o := l.opts; o.Replaced != nil {
			deadIDs = append(deadIDs, e.id)
		}
	}
	if x.ids.grouped() {
		if err := l.putIDGroups(w, kill); err != nil {
			return err
		}
	} else {
		sortIDs(l.ids)
		for i, e := range l.ids {
			if i+1 < len(l.ids) && l.ids[i+1].id == e.id {
				kill(e)
				continue
			}
			if err := w.put(bucketIDs, []byte(e.id), docKey(e.n)); err != nil {
				return err
			}
		}
	}
	l.st.Replaced += int64(len(dropped))
	slices.Sort(dropped)
	if err := w.drop(dropped); err != nil {
		return err
	}
	live := int64(l.fps.len() - len(dropped))

	// Exact hashes, by hash and then number (entries in number order,
	// sorted stably by hash).
	tmp := make([]entry, live) // the sorts' scratch
	var ex []entry
	for i, h := range l.exact.all {
		if l.text.at(i) && !dead[i] {
			ex = append(ex, entry{p: h, n: l.base + uint32(i)})
		}
	}
	radixSort(ex, tmp[:len(ex)])
	for i, e := range ex {
		if i > 0 && ex[i-1].p == e.p && !x.emptyProbe(true, e.p) {
			l.st.ExactDuplicates++
		}
	}
	if x.exact.grouped() {
		if err := x.exact.put(w, bucketExact, ex); err != nil {
			return err
		}
	} else {
		for _, e := range ex {
			if err := w.put(bucketExact, exactKey(e.p, e.n), []byte{}); err != nil {
				return err
			}
		}
	}
	ex = nil

	// Tables: the entries of the next table are made and sorted while
	// those of one are written.
	es := x.entrySize()
	kb := uint(64 - x.settings.Design.KeyBits)
	sorted := l.sortTables(dead, tmp, int(live))
	defer sorted.stop()
	// The values are cut from blocks of valueBlock bytes, which bbolt
	// keeps until the transaction commits (it copies the keys).
	var gkey, vals []byte
	for ti := range x.tables {
		ents := sorted.next()
		for i := 0; i < len(ents); {
			key := ents[i].p >> kb
			j := i
			for j < len(ents) && ents[j].p>>kb == key {
				j++
			}
			size := (j - i) * es
			if cap(vals)-len(vals) < size {
				vals = make([]byte, 0, max(valueBlock, size))
			}
			g := vals[len(vals):len(vals):cap(vals)]
			for _, e := range ents[i:j] {
				g = x.appendEntry(g, e.p, e.n)
			}
			vals = vals[:len(vals)+len(g)]
			gkey = x.tableKey(gkey[:0], ti, ents[i].p)
			if err := w.put(bucketTables, gkey, g[:len(g):len(g)]); err != nil {
				return err
			}
			i = j
		}
		sorted.done(ents)
	}
	sorted.stop() // its memory goes before the postings are written
	if err := l.writePostings(w, l.bands, bucketBands, appendBandKey, x.groups, dead); err != nil {
		return err
	}
	setKey := func(dst []byte, _ int, h uint64) []byte { return appendSetKey(dst, h) }
	if err := l.writePostings(w, l.sets, bucketSets, setKey, groupCodec{g: -1}, dead); err != nil {
		return err
	}
	next := l.base + uint32(l.fps.len())
	if err := w.commit(meta{next: next, count: live, bandsFrom: next, tablesFrom: next}); err != nil {
		return err
	}
	ok = true
	x.count.Store(live)
	l.st.Committed += int64(l.fps.len())
	for _, id := range deadIDs {
		l.opts.Replaced(id)
	}
	l.started = false
	l.forget()
	return l.closeSorters()
}

// valueBlock is the size of the blocks of memory that phase2 cuts the
// values of table groups from.
const valueBlock = 1 << 20

// tableSorter makes the entries of the tables of a bulk load, sorted,
// one table after another, on a goroutine of its own, up to two tables
// ahead of the writes (see loader.sortTables).
type tableSorter struct {
	ready chan []entry // sorted entries, by table
	free  chan []entry // buffers written, for the next tables
	quit  chan struct{}
	wg    sync.WaitGroup
}

// sortTables starts the sorting of the tables' entries of the live
// documents (those not dead) into two buffers of live entries each, with
// tmp (as long) as the sort's scratch: 48 bytes a document.
func (l *loader) sortTables(dead []bool, tmp []entry, live int) *tableSorter {
	s := &tableSorter{ready: make(chan []entry), free: make(chan []entry, 2), quit: make(chan struct{})}
	s.free <- make([]entry, 0, live)
	s.free <- make([]entry, 0, live)
	s.wg.Go(func() {
		for ti := range l.x.tables {
			var ents []entry
			select {
			case ents = <-s.free:
			case <-s.quit:
				return
			}
			t := &l.x.tables[ti]
			ents = ents[:0]
			for i, fp := range l.fps.all {
				if !dead[i] {
					ents = append(ents, entry{p: t.permute(fp), n: l.base + uint32(i)})
				}
			}
			radixSort(ents, tmp[:len(ents)])
			select {
			case s.ready <- ents:
			case <-s.quit:
				return
			}
		}
	})
	return s
}

// next returns the sorted entries of the next table.
func (s *tableSorter) next() []entry { return <-s.ready }

// done gives back the entries of a table written.
func (s *tableSorter) done(ents []entry) { s.free <- ents }

// stop ends the sorting, waits for its goroutine and lets its buffers go;
// it may be called again.
func (s *tableSorter) stop() {
	if s.quit == nil {
		return
	}
	close(s.quit)
	s.wg.Wait()
	s.quit, s.ready, s.free = nil, nil, nil
}

// resize returns s with length n, in its own array when that is long
// enough; the values are those s held, or zero.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// clear0 zeroes s (releasing what it refers to) and returns it empty.
func clear0[T any](s []T) []T {
	clear(s)
	return s[:0]
}

// forget drops the per-document state of a bulk load.
func (l *loader) forget() {
	l.ids, l.handed, l.handedEnc, l.spare, l.spareEnc = nil, nil, nil, nil, nil
	l.idh, l.fps, l.exact, l.text = column[uint64]{}, column[uint64]{}, column[uint64]{}, column[bool]{}
}

// sortIDs sorts ids by ID, and by number among equal IDs. A long list is
// cut in GOMAXPROCS parts sorted at once, then merged pairwise (through
// a second list of its size).
func sortIDs(ids []idNum) {
	cmpID := func(a, b idNum) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	}
	sortIDsIn(ids, min(runtime.GOMAXPROCS(0), len(ids)>>15), cmpID)
}

// sortIDsIn sorts ids by cmpID in parts parts sorted at once, then merged.
func sortIDsIn(ids []idNum, parts int, cmpID func(a, b idNum) int) {
	if parts < 2 {
		slices.SortFunc(ids, cmpID)
		return
	}
	bounds := make([]int, parts+1)
	for i := range bounds {
		bounds[i] = i * len(ids) / parts
	}
	var wg sync.WaitGroup
	for i := range parts {
		wg.Go(func() { slices.SortFunc(ids[bounds[i]:bounds[i+1]], cmpID) })
	}
	wg.Wait()
	tmp := make([]idNum, len(ids))
	src, dst := ids, tmp
	for len(bounds) > 2 {
		var next []int
		for i := 0; i < len(bounds)-1; i += 2 {
			lo := bounds[i]
			if i+2 >= len(bounds) { // the odd part out
				copy(dst[lo:], src[lo:bounds[i+1]])
				next = append(next, lo)
				continue
			}
			mid, hi := bounds[i+1], bounds[i+2]
			a, b, k := src[lo:mid], src[mid:hi], lo
			for len(a) > 0 && len(b) > 0 {
				if cmpID(b[0], a[0]) < 0 {
					dst[k], b = b[0], b[1:]
				} else {
					dst[k], a = a[0], a[1:]
				}
				k++
			}
			k += copy(dst[k:], a)
			copy(dst[k:], b)
			next = append(next, lo)
		}
		bounds = append(next, len(ids))
		src, dst = dst, src
	}
	if &src[0] != &ids[0] {
		copy(ids, src)
	}
}

// radixSort sorts es by permuted fingerprint, stably, using tmp (of the
// same length) as scratch. Entries come in document-number order, so equal
// fingerprints stay in that order. See radixSortIn.
func radixSort(es, tmp []entry) {
	radixSortIn(es, tmp, min(runtime.GOMAXPROCS(0), len(es)/radixPart))
}

// radixPart is the least number of entries a goroutine of radixSort
// sorts.
const radixPart = 1 << 17

// Sizes of radixSortIn: below radixMin entries an insertion sort does the
// whole, a bucket of up to radixMin entries too, a bucket of up to
// radixBig entries is scattered by 8 more bits first, and a bigger one (a
// skewed input) is sorted by lsdSort.
const (
	radixMin = 32
	radixBig = 1 << 12
)

// radixSortIn is radixSort on parts goroutines (one if parts < 2). One
// pass scatters the entries by their top 16 bits into tmp, each
// goroutine its own part, counted first; then the goroutines sort the
// buckets, each a share of about len(es)/parts entries, into es: a small
// bucket by an insertion sort; a bigger one scattered by its next 8 bits,
// then each part of that by sortPart; a bucket of more than
// radixBig entries by lsdSort. At random, with about len(es)/65,536
// entries a bucket, that reads and writes each entry about three times,
// against eight times for four passes of 16 bits.
func radixSortIn(es, tmp []entry, parts int) {
	if len(es) <= radixMin {
		insertionSort(es)
		return
	}
	parts = max(parts, 1)
	cnt := make([][1 << 16]int, parts)
	bounds := make([]int, parts+1)
	for i := range bounds {
		bounds[i] = i * len(es) / parts
	}
	run := func(f func(p int)) {
		if parts == 1 {
			f(0)
			return
		}
		var wg sync.WaitGroup
		for p := range parts {
			wg.Go(func() { f(p) })
		}
		wg.Wait()
	}
	run(func(p int) {
		c := &cnt[p]
		for _, e := range es[bounds[p]:bounds[p+1]] {
			c[e.p>>48]++
		}
	})
	// Part p's entries of a digit go after those of the parts before it:
	// the scatter is stable. start[d] is where bucket d begins.
	start := make([]int, 1<<16+1)
	sum := 0
	for d := range 1 << 16 {
		start[d] = sum
		for p := range parts {
			c := cnt[p][d]
			cnt[p][d] = sum
			sum += c
		}
	}
	start[1<<16] = sum
	run(func(p int) {
		c := &cnt[p]
		for _, e := range es[bounds[p]:bounds[p+1]] {
			b := e.p >> 48
			tmp[c[b]] = e
			c[b]++
		}
	})
	// The goroutines' shares of the buckets: whole buckets, cut where
	// the entries before reach p/parts of them.
	cut := make([]int, parts+1)
	for p := 1; p < parts; p++ {
		want := p * len(es) / parts
		d := cut[p-1]
		for d < 1<<16 && start[d] < want {
			d++
		}
		cut[p] = d
	}
	cut[parts] = 1 << 16
	run(func(p int) {
		var c [1<<8 + 1]int
		for d := cut[p]; d < cut[p+1]; d++ {
			lo, hi := start[d], start[d+1]
			src, dst := tmp[lo:hi], es[lo:hi]
			switch {
			case hi-lo <= radixMin:
				copy(dst, src)
				insertionSort(dst)
			case hi-lo <= radixBig:
				clear(c[:])
				for _, e := range src {
					c[e.p>>40&0xff+1]++
				}
				for i := 1; i < len(c); i++ {
					c[i] += c[i-1]
				}
				// c[b] is where part b begins; c[b+1] once scattered.
				for _, e := range src {
					b := e.p >> 40 & 0xff
					dst[c[b]] = e
					c[b]++
				}
				at := 0
				for _, end := range c[:256] {
					if end-at > 1 {
						sortPart(dst[at:end])
					}
					at = end
				}
			default:
				lsdSort(src, dst)
				copy(dst, src)
			}
		}
	})
}

// sortPart sorts es by fingerprint, stably: by insertion up to radixMin
// entries, by slices.SortStableFunc above (a part of a bucket whose
// entries agree on bits 40 to 47 too, as fingerprints of fewer than 64
// bits may).
func sortPart(es []entry) {
	if len(es) <= radixMin {
		insertionSort(es)
		return
	}
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(a.p, b.p) })
}

// insertionSort sorts es by fingerprint, stably.
func insertionSort(es []entry) {
	for i := 1; i < len(es); i++ {
		e := es[i]
		j := i
		for ; j > 0 && es[j-1].p > e.p; j-- {
			es[j] = es[j-1]
		}
		es[j] = e
	}
}

// lsdSort sorts es by fingerprint, stably, with four passes of 16 bits
// through tmp (of the same length): the result is back in es.
func lsdSort(es, tmp []entry) {
	src, dst := es, tmp
	var c [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(c[:])
		for _, e := range src {
			c[e.p>>shift&0xffff]++
		}
		sum := 0
		for d, n := range c {
			c[d] = sum
			sum += n
		}
		for _, e := range src {
			b := e.p >> shift & 0xffff
			dst[c[b]] = e
			c[b]++
		}
		src, dst = dst, src
	}
}

// bulkWriter writes keys in order over as many transactions as needed,
// with full pages. A transaction holds at most bulkTxPuts puts and about
// bulkTxBytes bytes of keys and values: bbolt keeps its dirty nodes in
// memory, and their pages too while it commits.
type bulkWriter struct {
	x     *Index
	tx    *bolt.Tx
	name  string
	b     *bolt.Bucket
	puts  int
	bytes int
}

func (w *bulkWriter) begin() error {
	if w.tx != nil && (w.puts >= bulkTxPuts || w.bytes >= bulkTxBytes) {
		if err := w.tx.Commit(); err != nil {
			w.tx = nil
			return boltErr(err)
		}
		w.tx = nil
	}
	if w.tx == nil {
		tx, err := w.x.db.Begin(true)
		if err != nil {
			return boltErr(err)
		}
		tx.DB().AllocSize = allocSize(tx.Size()) // as Index.update
		// It may write the tables: see tableMirror.
		w.x.tablesTx.Store(uint64(tx.ID()))
		w.tx, w.b, w.name, w.puts, w.bytes = tx, nil, "", 0, 0
	}
	return nil
}

func (w *bulkWriter) bucket(name []byte) *bolt.Bucket {
	if w.b == nil || w.name != string(name) {
		w.b = w.tx.Bucket(name)
		w.b.FillPercent = 1.0
		w.name = string(name)
	}
	return w.b
}

func (w *bulkWriter) put(name, k, v []byte) error {
	if err := w.begin(); err != nil {
		return err
	}
	w.puts++
	w.bytes += len(k) + len(v) + 16
	return w.bucket(name).Put(k, v)
}

// drop deletes the phase-1 records (and shingle sets) of documents ns, in
// increasing order: a group of records is rewritten once for all its
// documents of a transaction. Their postings are left out when they are
// written (writePostings).
func (w *bulkWriter) drop(ns []uint32) error {
	for len(ns) > 0 {
		if err := w.begin(); err != nil {
			return err
		}
		k := min(len(ns), 4096)
		for _, n := range ns[:k] {
			if err := w.x.putShingles(w.tx, n, nil); err != nil {
				return err
			}
		}
		b, err := deleteRecords(w.tx.Bucket(bucketDocs), ns[:k])
		if err != nil {
			return err
		}
		w.puts += k
		w.bytes += b
		ns = ns[k:]
	}
	return nil
}

// commit writes m (clearing the loading flag) and commits.
func (w *bulkWriter) commit(m meta) error {
	if err := w.begin(); err != nil {
		return err
	}
	if err := w.x.writeMeta(w.tx, m); err != nil {
		return err
	}
	err := w.tx.Commit()
	w.tx = nil
	return boltErr(err)
}

func (w *bulkWriter) rollback() {
	if w.tx != nil {
		w.tx.Rollback()
		w.tx = nil
	}
}
