package index

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/simidx/simidx/shingle"
	bolt "go.etcd.io/bbolt"
)

// Pair is two stored documents within the query options of each other.
type Pair struct {
	// A and B are the IDs of the two documents, A < B.
	A string `json:"a"`
	B string `json:"b"`

	// Distance is the Hamming distance between the fingerprints.
	Distance int `json:"distance"`

	// Similarity is the estimated Jaccard similarity on MinHash indexes,
	// the method's similarity on indexes with a set method (see
	// QueryOptions), otherwise 0.
	Similarity float64 `json:"similarity"`

	// Exact says the two documents have the same canonical text.
	Exact bool `json:"exact"`
}

// Pairs calls fn for every pair of stored documents within opts (see
// QueryOptions), each pair once, until fn returns an error, which Pairs
// then returns. The order of pairs is unspecified. fn is called from the
// goroutine that called Pairs, one pair at a time.
//
// Pairs reads one consistent snapshot of the index: it scans every table
// once in key order and compares entries only within runs that share a
// table's prefix, reporting a pair only from the first table in which it
// shares the prefix. Memory is bounded by the largest group, not by the
// number of pairs. It costs about Tables*Len() entry reads plus
// Len()*Design.Candidates(k, Len())/2 comparisons, and two lookups per
// pair reported. With MinSimilarity it also compares the documents that
// share a band, pairwise, keeping the records it reads, 16 bytes per
// document number (64 MB at most), and the bands it computes of compact
// records with a short set, 8 bytes per document number (32 MiB at most)
// and 64 MiB of hashes at most. With a set method it runs, for every
// document, the query of its set and exact hash (see QueryOptions), and
// the table scan only when opts.MaxDistance is set: it costs about the sum
// over set hashes of the squared posting sizes.
//
// The tables and the bands are scanned on up to GOMAXPROCS goroutines,
// each in a read transaction of its own on the snapshot, and the pairs
// they find wait for fn, about half a million at most (12 MB); the
// goroutine that called Pairs reads the bands bucket and calls fn. When
// a write is committing as Pairs begins, the scan runs on that goroutine
// alone. The set methods' queries run on it too.
//
// fn runs inside a read transaction: it must not call the index's
// other methods. A write would wait for the transaction to end, forever,
// and so could a query while another goroutine writes. Collect what fn
// sees and act on it once Pairs returns (or use Clusters, which calls its
// function after its transaction).
//
// Cancelling ctx stops the scan with ctx.Err(); a ctx already cancelled
// stops it before it begins.
func (x *Index) Pairs(ctx context.Context, opts *QueryOptions, fn func(Pair) error) error {
	if err := x.checkOpen(); err != nil {
		return err
	}
	if err := x.settle(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	q, err := x.resolve(opts)
	if err != nil {
		return err
	}
	err = x.viewFiltered(func(tx *bolt.Tx, bf *bandFilter) error {
		docs := tx.Bucket(bucketDocs)
		sent := 0
		return x.pairs(ctx, tx, bf, q, func(a, b uint32, d int, sim float64) error {
			va, vb := getRecord(docs, a), getRecord(docs, b)
			if len(va) < 9 || len(vb) < 9 {
				return fmt.Errorf("%w: a document of pair %d-%d has no record", ErrCorrupt, a, b)
			}
			ha, ta := textHash(va)
			hb, tb := textHash(vb)
			p := Pair{
				A:          idOf(va, x.lay),
				B:          idOf(vb, x.lay),
				Distance:   d,
				Similarity: sim,
				Exact:      ta && tb && ha == hb,
			}
			if p.B < p.A {
				p.A, p.B = p.B, p.A
			}
			if err := callUser(fn, p); err != nil {
				return err
			}
			if sent++; q.limit > 0 && sent >= q.limit {
				return errStop
			}
			return nil
		})
	})
	if err == errStop {
		err = nil
	}
	return boltErr(err)
}

// pairs calls fn with the document numbers of every pair within q, each
// once. bf is tx's band filter (see viewFiltered).
func (x *Index) pairs(ctx context.Context, tx *bolt.Tx, bf *bandFilter, q queryParams, fn func(a, b uint32, d int, sim float64) error) error {
	// The scan's parts for QueryOptions.Progress, told as it begins and,
	// all done, once every pair is found.
	var sp ScanProgress
	if loading(tx) {
		sp.Done = true
		tellProgress(q.progress, sp)
		return nil
	}
	empty := x.emptyDocs(tx) // they match nothing
	bands := q.minSim > 0 && x.settings.MinHash
	if q.fp {
		sp.Tables = len(x.tables)
	}
	if bands {
		sp.Bands = x.lay.bands
	}
	tellProgress(q.progress, sp)
	if q.fp || bands {
		s := x.newPairSched(ctx, tx, fn)
		s.progress, s.sp = q.progress, sp
		if bands || x.settings.MinHash || x.lay.sets || x.settings.hasShort() {
			// For the records both parts read (tableRecord, bandRecord).
			s.cache = newRecordCache(x.readMeta(tx).next)
		}
		err := func() error {
			defer s.close()
			if q.fp {
				if err := x.tablePairs(s, q, empty); err != nil {
					return err
				}
			}
			if bands {
				if err := x.bandPairs(s, q, empty); err != nil {
					return err
				}
			}
			return s.finish()
		}()
		if err != nil {
			return err
		}
	}
	if x.lay.sets {
		if err := x.setPairs(ctx, tx, bf, q, fn); err != nil {
			return err
		}
	} else if m := x.settings.Text.Method; m == MethodDOM || m == MethodMfonda {
		if err := x.exactPairs(ctx, tx, q, fn); err != nil {
			return err
		}
	}
	sp.TablesDone, sp.BandsDone, sp.Done = sp.Tables, sp.Bands, true
	tellProgress(q.progress, sp)
	return nil
}

// exactPairs reports the exact copies (the same canonical text) that the
// tables and the bands did not, on an index whose fingerprint is not a
// function of the canonical text (MethodDOM, MethodMfonda): copies may then
// be farther apart than q.maxDist. (With MinHash and a threshold they
// share every band, and bandPairs reported them.) Each group of copies is
// read from the exact bucket and the levels; it costs a pass over the
// exact keys and the square of each group.
func (x *Index) exactPairs(ctx context.Context, tx *bolt.Tx, q queryParams, fn func(a, b uint32, d int, sim float64) error) error {
	if x.settings.MinHash && q.minSim > 0 {
		return nil
	}
	sim := 0.0
	if x.settings.MinHash || q.verify {
		sim = 1 // the same shingles
	}
	docs := tx.Bucket(bucketDocs)
	dc := docs.Cursor()
	// The hashes of two documents or more, each once: runs of the bucket,
	// and the exact keys of the levels.
	var hs []uint64
	var prev uint64
	run := 0
	err := x.eachExact(tx.Bucket(bucketExact), nil, func(h uint64, _ uint32) error {
		if run > 0 && h == prev {
			if run++; run == 2 {
				hs = append(hs, h)
			}
			return nil
		}
		prev, run = h, 1
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range x.levels() {
		for _, k := range r.keys() {
			if k.b == exactBand {
				hs = append(hs, k.h)
			}
		}
	}
	slices.Sort(hs)
	var nums []uint32
	for i, h := range slices.Compact(hs) {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if h == emptyText {
			continue // empty texts match nothing
		}
		nums = x.appendExact(nums[:0], tx, dc, h)
		fps := make([]uint64, len(nums))
		for j, n := range nums {
			v := seekRecord(dc, n)
			if len(v) < 9 {
				return fmt.Errorf("%w: document %d of an exact key has no record", ErrCorrupt, n)
			}
			fps[j] = fpOf(v)
		}
		for a := range nums {
			for b := a + 1; b < len(nums); b++ {
				d := bits.OnesCount64(fps[a] ^ fps[b])
				if q.fp && d <= q.maxDist {
					continue // reported from the tables
				}
				if err := fn(nums[a], nums[b], d, sim); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// tablePairs reports the pairs within q.maxDist from the permuted tables,
// each from the first table in which they share the prefix, leaving out
// the documents of empty (emptyDocs): a unit of s per part of a table
// (tableParts), so that the workers share a table's work and a unit's
// pairs wait for the units before it in small numbers.
func (x *Index) tablePairs(s *pairSched, q queryParams, empty map[uint32]bool) error {
	// lead[i] masks the leading blocks of table i in fingerprint order.
	lead := make([]uint64, len(x.tables))
	for i := range x.tables {
		t := &x.tables[i]
		lead[i] = t.unpermute(^uint64(0) << (64 - t.prefix))
	}
	// The table levels' documents of this snapshot, verified once.
	tl := x.levels()
	tw := x.tableWatermarks(s.tx)
	kbits := uint(x.settings.Design.KeyBits)
	partDocs := tablePartDocs
	if d := x.pairTune.tableDocs; d > 0 {
		partDocs = d
	}
	parts := tableParts(x.readMeta(s.tx).next, kbits, partDocs)
	for ti := range x.tables {
		s.advance(ti, 0) // the tables before it are handed out
		// The levels' groups of the table, by key.
		var ids []uint64
		for _, r := range tl {
			ids = append(ids, r.groups(ti)...)
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		for part := range parts {
			// The keys of the part: lo to hi, hi excluded.
			lo, hi := uint64(part)<<kbits/uint64(parts), uint64(part+1)<<kbits/uint64(parts)
			n, _ := slices.BinarySearchFunc(ids, hi, func(id, k uint64) int { return cmp.Compare(id&(1<<32-1), k) })
			pids := ids[:n:n]
			ids = ids[n:]
			err := s.do(func(w *pairWorker, fn pairFunc) error {
				return x.tablePairsOf(s.ctx, w, s.cache, ti, lo, hi, pids, lead, tl, tw[ti], q, empty, fn)
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// tableParts returns the number of parts, each a range of its keys, that
// tablePairs cuts a table of keys of kbits bits into, for an index whose
// next document number is next: a power of two, about one part for each
// docs documents (tablePartDocs by default), at most maxTableParts and one
// a key.
func tableParts(next uint32, kbits uint, docs int) int {
	n := 1
	for n < maxTableParts && uint64(n)*uint64(docs) < uint64(next) && n < 1<<kbits {
		n *= 2
	}
	return n
}

// tablePartDocs and maxTableParts size the parts of tableParts.
const (
	tablePartDocs = 8192
	maxTableParts = 256
)

// tablePairsOf reports the pairs of the groups of table ti whose keys run
// from lo to hi (hi excluded) that tablePairs reports, read with w: ids are
// the levels' groups of those keys, in order, lead the masks of the tables'
// leading blocks, tl the levels and tw the table's watermark.
func (x *Index) tablePairsOf(ctx context.Context, w *pairWorker, cache recordCache, ti int, lo, hi uint64, ids []uint64, lead []uint64, tl levels, tw uint32, q queryParams, empty map[uint32]bool, fn pairFunc) error {
	dc := w.dc
	rec := func(n uint32) []byte { return x.tableRecord(w, cache, n) }
	mk := x.settings.MinHashK
	var sa, sb, ha, hb []uint64
	// similarity returns the pair's similarity and whether it is one of
	// the MinHash layer (textSimilarity), which q.minSim then applies to.
	verified := w.verifier()
	similarity := func(a, b uint32) (float64, bool) {
		if x.settings.hasShort() {
			va, vb := rec(a), rec(b)
			ha, hb = shortOf(ha, va, x.lay), shortOf(hb, vb, x.lay)
			if len(ha) > 0 && len(hb) > 0 {
				return setJaccard(ha, hb), true
			}
		}
		if q.verify {
			if sim, ok, err := verified(a, b); err != nil || ok {
				return sim, ok // an error shows again in the record reads
			}
		}
		if x.lay.sets {
			return x.pairSetSimilarity(rec(a), rec(b)), false
		}
		if !x.settings.MinHash {
			return 0, false
		}
		sa = sigOf(sa, rec(a), mk)
		sb = sigOf(sb, rec(b), mk)
		// Added by fingerprint (no signature): the fingerprint rule alone.
		return textSimilarity(sa, nil, sb, nil)
	}
	var ents []entry
	groups := 0
	kb := uint(64 - x.settings.Design.KeyBits)
	t := &x.tables[ti]
	shift := uint(64 - t.prefix)
	recent := make(map[uint64][]entry) // by groupID
	var es []levelEnt
	for _, id := range ids {
		es = es[:0]
		for _, r := range tl {
			es = r.group(es, id)
		}
		// Each document once: only the entry of its record's
		// fingerprint is left.
		for _, e := range verifyRecent(es, dc, tw) {
			recent[id] = append(recent[id], entry{p: t.permute(e.fp), n: e.n})
		}
	}
	// group reports the pairs of one group's entries, sorted by
	// permuted fingerprint.
	group := func(ents []entry) error {
		if groups++; groups%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if empty != nil { // empty texts match nothing
			ents = slices.DeleteFunc(ents, func(e entry) bool { return empty[e.n] })
		}
		for i := 0; i < len(ents); {
			j := i + 1
			for j < len(ents) && ents[j].p>>shift == ents[i].p>>shift {
				j++
			}
			for a := i; a < j; a++ {
				for b := a + 1; b < j; b++ {
					diff := ents[a].p ^ ents[b].p
					d := bits.OnesCount64(diff)
					if d > q.maxDist {
						continue
					}
					if ti > 0 {
						orig := t.unpermute(diff)
						first := true
						for tj := range ti {
							if orig&lead[tj] == 0 {
								first = false
								break
							}
						}
						if !first {
							continue
						}
					}
					sim, est := similarity(ents[a].n, ents[b].n)
					if (est || x.lay.sets) && q.minSim > 0 && sim < q.minSim {
						continue
					}
					if err := fn(ents[a].n, ents[b].n, d, sim); err != nil {
						return err
					}
				}
			}
			i = j
		}
		return nil
	}
	byP := func(a, b entry) int { return cmp.Compare(a.p, b.p) }
	c := w.tx.Bucket(bucketTables).Cursor()
	tp := []byte{byte(ti >> 8), byte(ti)}
	for key, v := c.Seek(x.tableKey(nil, ti, lo<<kb)); key != nil && bytes.HasPrefix(key, tp); key, v = c.Next() {
		high := x.keyValue(key)
		if high>>kb >= hi {
			break
		}
		id := groupID(ti, high>>kb)
		more := recent[id]
		delete(recent, id)
		if len(v)+len(more)*x.entrySize() <= x.entrySize() {
			continue
		}
		ents = x.decodeGroup(ents[:0], high, v)
		if len(more) > 0 {
			ents = append(ents, more...)
			slices.SortFunc(ents, byP)
		}
		if err := group(ents); err != nil {
			return err
		}
	}
	// The groups only the levels have.
	for _, id := range slices.Sorted(maps.Keys(recent)) {
		if ents = recent[id]; len(ents) > 1 {
			slices.SortFunc(ents, byP)
			if err := group(ents); err != nil {
				return err
			}
		}
	}
	return nil
}

// verifier returns a function that gives the exact Jaccard similarity of
// the stored shingle sets of two documents of tx, and false if either has
// none. It keeps the last first document's set decoded, as the pair
// loops ask for one document against many in a row.
func (x *Index) verifier(tx *bolt.Tx) func(a, b uint32) (float64, bool, error) {
	var sa, sb []uint64
	sb0 := tx.Bucket(bucketShingles) // nil without stored sets
	last, okA := ^uint32(0), false
	return func(a, b uint32) (float64, bool, error) {
		var err error
		if a != last {
			if sa, okA, err = storedShingles(sb0, sa, a); err != nil {
				return 0, false, err
			}
			last = a
		}
		if !okA {
			return 0, false, nil
		}
		var ok bool
		if sb, ok, err = storedShingles(sb0, sb, b); err != nil || !ok {
			return 0, false, err
		}
		return setJaccard(sa, sb), true, nil
	}
}

// pairSetSimilarity returns the set method's similarity of records va and
// vb: 1 for exact copies.
func (x *Index) pairSetSimilarity(va, vb []byte) float64 {
	ra, err1 := decodeRecord(va, x.lay, true)
	rb, err2 := decodeRecord(vb, x.lay, true)
	if err1 != nil || err2 != nil || !ra.text || !rb.text {
		return 0
	}
	if ra.exact == rb.exact {
		return 1
	}
	sim, _ := x.setMatch(ra.set, rb.set)
	return sim
}

// setPairs reports the pairs that match by the set method's rule or are
// exact copies and were not reported from the tables, each once: for every
// document a, it finds the matches of a's set and exact hash, as a query,
// and reports those numbered above a.
func (x *Index) setPairs(ctx context.Context, tx *bolt.Tx, bf *bandFilter, q queryParams, fn func(a, b uint32, d int, sim float64) error) error {
	sq := q
	sq.fp, sq.limit = false, 0
	done := 0
	for a, v := range eachRecord(tx.Bucket(bucketDocs).Cursor(), 0) {
		if done++; done%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		r, err := decodeRecord(v, x.lay, true)
		if err != nil {
			return err
		}
		if !r.text || x.emptyProbe(true, r.exact) {
			continue
		}
		ms, err := x.find(tx, bf, probe{fp: r.fp, text: true, exact: r.exact, set: r.set, self: int64(a)}, sq)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if m.n < a || (q.fp && m.m.Distance <= q.maxDist) {
				continue // reported from a, or from the tables
			}
			if err := fn(a, m.n, m.m.Distance, m.m.Similarity); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxPairRecords is the most document numbers whose records Pairs keeps
// found (see recordCache): 64 MB of entries at most.
const maxPairRecords = 1 << 22

// bandKey is a band key of the bands bucket, or of the levels alone
// (posting and docs nil), that bandPairs hands to a unit: its documents in
// the bucket are docs, or else those of posting.
type bandKey struct {
	band    int
	h       uint64
	posting []byte
	docs    []uint32
}

// bandPairs reports the pairs beyond q.maxDist that share a MinHash band
// and reach q.minSim, each from the first band they share, leaving out the
// documents of empty (emptyDocs): it reads the band keys in key order and
// hands them to s's units, s.keys keys a unit (the postings are slices of
// the caller's transaction, which outlives the units).
func (x *Index) bandPairs(s *pairSched, q queryParams, empty map[uint32]bool) error {
	bb := s.tx.Bucket(bucketBands)
	c := bb.Cursor()
	lv := x.levels()
	if lv.bandsEmpty() {
		// Every band of the snapshot is in the bucket: a key of one
		// document pairs none, and no key needs the levels' documents.
		lv = levels{}
	}
	next := x.readMeta(s.tx).next
	s.bands = newBandCache(next, x.lay)
	var batch []bandKey
	var docs []uint32 // the documents of the batch's keys
	// The batches the workers are done with, for the next ones: a
	// worker's unit ends with its batch, and the caller's goroutine takes
	// it up again.
	type bandBatch struct {
		keys []bandKey
		docs []uint32
	}
	free := make(chan bandBatch, s.maxQueue+len(s.txs))
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		keys, kdocs := batch, docs
		err := s.do(func(w *pairWorker, fn pairFunc) error {
			err := x.bandKeysPairs(s.ctx, w, s.cache, s.bands, keys, lv, q, empty, fn)
			select {
			case free <- bandBatch{keys[:0], kdocs[:0]}:
			default:
			}
			return err
		})
		switch {
		case s.seq != nil:
			batch, docs = keys[:0], docs[:0] // done with
		default:
			select {
			case b := <-free:
				batch, docs = b.keys, b.docs
			default:
				batch, docs = make([]bandKey, 0, s.keys), make([]uint32, 0, cap(docs))
			}
		}
		return err
	}
	postings := 0
	add := func(band int, h uint64, posting []byte, ns []uint32) error {
		if postings++; postings%1024 == 0 {
			if err := s.ctxErr(); err != nil {
				return err
			}
		}
		s.advance(s.sp.Tables, band) // the tables and the bands before it are handed out
		if _, one := singleDoc(posting); lv[0] == nil && (one || len(ns) == 1 || posting == nil && ns == nil) {
			return nil // one document: no pair
		}
		k := bandKey{band: band, h: h, posting: posting}
		if ns != nil {
			i := len(docs)
			docs = append(docs, ns...)
			k.docs = docs[i:len(docs):len(docs)]
		}
		batch = append(batch, k)
		if len(batch) == s.keys {
			return flush()
		}
		return nil
	}
	// A posting of one document or of a list is handed over as its
	// numbers, without the roaring bitmap eachBandPosting would make of
	// it.
	one := make([]uint32, 1)
	err := x.eachBandEntry(bb, nil, func(b int, e *groupEntry) error {
		switch {
		case e.p != nil:
			return add(b, e.h, e.p, nil)
		case e.docs != nil:
			return add(b, e.h, nil, e.docs)
		}
		one[0] = e.n
		return add(b, e.h, nil, one)
	})
	if err != nil {
		return err
	}
	// The keys of the in-memory levels that have no posting in the bucket
	// (not the exact keys the levels hold too), each once, in key order:
	// the levels are maps, and the pairs come in the order of the keys.
	var only []recentKey
	for _, r := range lv {
		for _, k := range r.keys() {
			if k.b != exactBand {
				only = append(only, k)
			}
		}
	}
	slices.SortFunc(only, func(a, b recentKey) int { return cmp.Or(cmp.Compare(a.b, b.b), cmp.Compare(a.h, b.h)) })
	for _, k := range slices.Compact(only) {
		if p, err := x.bandPosting(c, int(k.b), k.h); err != nil {
			return err
		} else if p != nil {
			continue
		}
		if err := add(int(k.b), k.h, nil, nil); err != nil {
			return err
		}
	}
	return flush()
}

// bandRecord returns the record of document n, read with w and checked,
// or from cache, which then holds it and the other text records of its
// group (cacheGroup). Cost on a miss: a cursor seek, and a checksum and a
// decoding without bands a record of the group.
func (x *Index) bandRecord(w *pairWorker, cache recordCache, n uint32) ([]byte, error) {
	if v, ok := cache.get(n); ok {
		return v, nil
	}
	v, g, grouped := seekGroup(w.dc, n) // w's cursor: no new cursor a record
	if err := decodeRecordInto(&w.check, v, x.lay, false, false, false); err != nil {
		return nil, err
	} else if !w.check.text {
		return nil, fmt.Errorf("%w: document %d in a band posting has no text", ErrCorrupt, n)
	}
	cache.put(n, v)
	if grouped {
		x.cacheGroup(w, cache, g)
	}
	return v, nil
}

// tableRecord returns the record of document n for the table part of
// Pairs, from cache or read with w, unchecked, as seekRecord returns it;
// if it is a text record, the text records of its group go in cache
// (cacheGroup), and those of a group of records without text are read at
// each use, one seek each.
func (x *Index) tableRecord(w *pairWorker, cache recordCache, n uint32) []byte {
	if v, ok := cache.get(n); ok {
		return v
	}
	v, g, grouped := seekGroup(w.dc, n)
	if grouped && len(v) >= 9 && recordFlags(v)&flagText != 0 {
		x.cacheGroup(w, cache, g)
	}
	return v
}

// cacheGroup puts the records of group g, where w's cursor stands, that
// are not in cache and pass bandRecord's checks (text records whose
// checksum and fields decode) in cache; the others are read, and fail, at
// their own turn. Both parts look records up at random (the band keys in
// hash order, the table entries in permuted order), and most documents of
// a corpus with near duplicates are in a pair: a seek reads a group's
// records for them all. It leaves the cache as it is if the key before g
// reaches into g's documents (a damaged index, which Check reports): a
// seek of such a document would not read g. Cost: a cursor step back, and
// a checksum and a decoding without bands a record.
func (x *Index) cacheGroup(w *pairWorker, cache recordCache, g docGroup) {
	if k, _ := w.dc.Prev(); k != nil {
		var last uint32
		switch {
		case len(k) == 4:
			last = binary.BigEndian.Uint32(k)
		case isDocGroupKey(k):
			last = binary.BigEndian.Uint32(k[:4])
		default:
			return
		}
		if last >= g.first {
			return
		}
	}
	for i := range int(g.last - g.first + 1) {
		m := g.first + uint32(i)
		if int64(m) >= int64(len(cache)) {
			return
		}
		if _, ok := cache.get(m); ok {
			continue
		}
		r, what := g.slot(i)
		if what != "" || r == nil || decodeRecordInto(&w.check, r, x.lay, false, false, false) != nil || !w.check.text {
			continue
		}
		cache.put(m, r)
	}
}

// bandKeysPairs reports the pairs of bandPairs of the band keys keys, read
// with w, cache and bands: of each, the documents of its posting in the
// bucket and those of the in-memory levels lv (verified).
func (x *Index) bandKeysPairs(ctx context.Context, w *pairWorker, cache recordCache, bands *bandCache, keys []bandKey, lv levels, q queryParams, empty map[uint32]bool, fn pairFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, k := range keys {
		nums := w.nums[:0]
		if k.docs != nil {
			nums = append(nums, k.docs...)
		} else if n, ok := singleDoc(k.posting); ok {
			nums = append(nums, n)
		} else if k.posting != nil {
			var bm roaring.Bitmap
			if err := readPosting(&bm, k.posting); err != nil {
				return fmt.Errorf("%w: band posting: %v", ErrCorrupt, err)
			}
			for n := range roaring.Values(&bm) {
				nums = append(nums, n)
			}
		}
		if lv[0] != nil {
			// Both in document order: the union, each once.
			nums = append(nums, x.recentDocs(nil, lv, w.dc, k.band, k.h)...)
			slices.Sort(nums)
			nums = slices.Compact(nums)
		}
		w.nums = nums
		if len(nums) < 2 {
			continue
		}
		live := nums[:0]
		for _, n := range nums {
			if empty[n] {
				continue // an empty text matches nothing
			}
			v, err := x.bandRecord(w, cache, n)
			if err != nil {
				return err
			}
			i := len(live)
			if i == len(w.recs) {
				w.recs = append(w.recs, lazyRecord{})
			}
			w.recs[i].reset(v, x.lay, bands, n)
			live = append(live, n)
		}
		if err := x.bandGroupPairs(k.band, w.recs[:len(live)], live, q, w.verifier(), fn); err != nil {
			return err
		}
	}
	return nil
}

// lazyRecord is a checked text record (see decodeFields), decoded only
// when, and as far as, a pair needs it: its fingerprint at once, its
// bands and signature on the first comparison that reaches them.
type lazyRecord struct {
	v    []byte
	lay  layout
	fp   uint64
	full bool
	r    record
	// bands are the band hashes of a compact record computed so far: none,
	// those of the signature (sigBands), or all (shortBands). The short
	// set's cost a MinHash of it, and the bands before a band of the
	// signature need only the signature's.
	bands                []uint64
	sigBands, shortBands bool
	sig                  []uint64 // the signature, decoded for the bands
	// cache is the bandCache of the scan (nil for none), and n the
	// record's document number.
	cache *bandCache
	n     uint32
}

// reset makes l the lazy record of checked record v of document n, whose
// bands cache holds once a worker computed them (nil for no cache).
func (l *lazyRecord) reset(v []byte, lay layout, cache *bandCache, n uint32) {
	l.v, l.lay, l.fp, l.full = v, lay, binary.BigEndian.Uint64(v), false
	l.bands, l.sigBands, l.shortBands = l.bands[:0], false, false
	l.cache, l.n = cache, n
}

// band returns band i of text record l: where it is stored, or, in a
// compact record, computed once with the others of the signature, or of
// the short set, or read from the bandCache entry where a worker put
// them all.
func (l *lazyRecord) band(i int) uint64 {
	if !compact(l.v) {
		return binary.BigEndian.Uint64(l.v[17+sigWidth(l.v)*l.lay.k+8*i:])
	}
	bh := l.lay.bh
	if !l.sigBands {
		var ok bool
		if l.bands, ok = l.cache.appendBands(l.bands[:0], l.n); ok {
			l.sigBands, l.shortBands = true, true
		}
	}
	if !l.sigBands {
		l.sig = sigValues(l.sig[:0], l.v, l.lay.k)
		n := 0
		if p, ok := partsOf(l.v, l.lay); ok && bh.sigFloor > 0 {
			n = shortCount(l.v, p)
		}
		l.bands = bh.appendSigBands(l.bands[:0], l.sig, n)
		l.sigBands = true
	}
	if i >= len(l.bands) && !l.shortBands {
		// All of them, from the cache if a worker has put them since.
		sig := len(l.bands)
		var cached bool
		if l.bands, cached = l.cache.appendBands(l.bands[:0], l.n); !cached {
			l.bands = l.bands[:sig]
			var short []uint64
			if p, ok := partsOf(l.v, l.lay); ok {
				l.sig, short = compactValues(l.sig[:0], l.v, p, l.lay, true)
			}
			l.bands = bh.appendShortBandsMasked(l.bands, short)
			if len(short) > 0 { // else zeros, computed at no cost
				l.cache.put(l.n, l.bands)
			}
		}
		l.shortBands = true
	}
	if i >= len(l.bands) {
		return 0 // a record too short to hold its parts: no band
	}
	return l.bands[i]
}

// bandsAtHand reports whether the bands of l cost no MinHash to read:
// stored in the record, computed already, or in the bandCache.
func (l *lazyRecord) bandsAtHand() bool {
	return !compact(l.v) || l.shortBands || l.cache.has(l.n)
}

// sharesBandBefore reports whether the text records l and m share a band
// before band.
func (l *lazyRecord) sharesBandBefore(m *lazyRecord, band int) bool {
	for i := range band {
		if h := l.band(i); h != 0 && h == m.band(i) {
			return true
		}
	}
	return false
}

// record returns l decoded, without the bands of a compact record (see
// allBands) and without its ID.
func (l *lazyRecord) record() (*record, error) {
	if !l.full {
		if err := decodeFields(&l.r, l.v, l.lay, true, false, false); err != nil {
			return nil, err
		}
		l.full = true
	}
	return &l.r, nil
}

// allBands returns the band hashes of l, stored or computed (band): l
// must have been decoded (record).
func (l *lazyRecord) allBands() []uint64 {
	if !compact(l.v) {
		return l.r.bands
	}
	if n := l.lay.bands; n > 0 {
		l.band(n - 1)
	}
	return l.bands
}

// bandGroupPairs reports the pairs of the documents recs (numbered nums)
// that share band, beyond q.maxDist, not sharing an earlier band, and
// within q's similarity (with q.verify, the exact one, from verified).
// A record is decoded only for a pair beyond q.maxDist: copies within it
// (the exact ones among them) cost a fingerprint comparison.
func (x *Index) bandGroupPairs(band int, recs []lazyRecord, nums []uint32, q queryParams, verified func(a, b uint32) (float64, bool, error), fn func(a, b uint32, d int, sim float64) error) error {
	for a := range recs {
		for b := a + 1; b < len(recs); b++ {
			d := bits.OnesCount64(recs[a].fp ^ recs[b].fp)
			if d <= q.maxDist {
				continue // reported from the tables
			}
			// A pair reported from an earlier band is left out at once
			// if both have their bands at hand: most pairs share several.
			early := recs[a].bandsAtHand() && recs[b].bandsAtHand()
			if early && recs[a].sharesBandBefore(&recs[b], band) {
				continue
			}
			ra, err := recs[a].record()
			if err != nil {
				return err
			}
			rb, err := recs[b].record()
			if err != nil {
				return err
			}
			// The estimate first: a pair below the similarity is below
			// it at every band it shares, so whether it shares an earlier
			// one (a MinHash of the short sets to know, for a band of
			// theirs) does not matter.
			sim, _ := textSimilarity(ra.sig, ra.short, rb.sig, rb.short)
			check := q.verify && (len(ra.short) == 0 || len(rb.short) == 0)
			if sim < q.minSim && !check {
				continue
			}
			if !early && recs[a].sharesBandBefore(&recs[b], band) {
				continue // reported from an earlier band
			}
			if x.settings.MinBands > 1 && shingle.SharedBands(recs[a].allBands(), recs[b].allBands()) < x.settings.MinBands {
				continue
			}
			if check {
				s, ok, err := verified(nums[a], nums[b])
				if err != nil {
					return err
				}
				if ok {
					sim = s
				}
			}
			if sim >= q.minSim {
				if err := fn(nums[a], nums[b], d, sim); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
