package index

import (
	"errors"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Check verifies every invariant of the index and returns an error
// wrapping ErrCorrupt describing the first problems found, or nil: every
// document is in every table exactly once under its permuted fingerprint;
// no table holds anything else; groups are sorted, non-empty and well
// formed; ids and docs map to each other; exact-hash, band and set
// postings match the document records; the copy of the tables in memory
// (Options.TableMirror), when queries use it, matches the tables bucket;
// the document count is right. It reads the
// whole index in one read transaction and holds about 20 bytes per
// document in memory.
//
// The checks of each bucket are in the files check_*.go: the documents
// are read first (check_docs.go), and what they hold is what the other
// buckets are checked against.
func (x *Index) Check() (err error) {
	if err := x.checkOpen(); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	err = x.view(x.check)
	return boltErr(err)
}

// problems collects the first few problems Check finds.
type problems struct{ list []string }

const maxProblems = 10

func (p *problems) add(format string, args ...any) bool {
	p.list = append(p.list, fmt.Sprintf(format, args...))
	return len(p.list) < maxProblems
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(p.list, "; "))
}

var errStop = errors.New("stop")

// checker is the state of one Check: the transaction, the problems found
// so far, and what the documents hold, gathered by docs for the checks of
// the other buckets.
type checker struct {
	x  *Index
	tx *bolt.Tx
	m  meta
	pr problems

	idb  *bolt.Bucket // ids
	docb *bolt.Bucket // docs
	exb  *bolt.Bucket // exact
	sb   *bolt.Bucket // sets, or nil
	shb  *bolt.Bucket // shingles, or nil

	dense map[uint32]int32 // document number -> its index in fps
	fps   []uint64
	recs  []record // text documents with MinHash only: for the bands
	recN  []uint32 // their numbers

	// groups holds what is wrong with each ID or exact group validated so
	// far ("" for nothing), by bucket and key (see groupProblem).
	groups map[string]string
	texts  int

	// The exact keys.
	ownExact int // text documents whose exact key is in the bucket
	// From the exact watermark on, a document's exact key may be in the
	// band level only (see meta.exactFrom).
	ew  uint32
	elv levels       // the exact keys from the watermark on
	edc *bolt.Cursor // on docs, for elv

	setMembers int // (document, hash) pairs of the records' sets

	// levelDocs holds the documents the in-memory levels have under each
	// key looked up (inLevels), so that a key many documents share (the
	// exact key of copies, the band of a template) is read once, not once
	// per document.
	levelDocs map[recentKey]map[uint32]bool
}

// inLevels reports whether the in-memory levels lv (read through dc, a
// cursor on docs) hold document n under band b's hash h (b exactBand: the
// exact key). Cost: the first lookup of a key reads its documents'
// records; later ones are a map lookup.
func (ck *checker) inLevels(lv levels, dc *bolt.Cursor, b int, h uint64, n uint32) bool {
	k := recentKey{h: h, b: uint8(b)}
	docs, ok := ck.levelDocs[k]
	if !ok {
		docs = map[uint32]bool{}
		for _, d := range ck.x.recentDocs(nil, lv, dc, b, h) {
			docs[d] = true
		}
		if ck.levelDocs == nil {
			ck.levelDocs = map[recentKey]map[uint32]bool{}
		}
		ck.levelDocs[k] = docs
	}
	return docs[n]
}

func (x *Index) check(tx *bolt.Tx) error {
	ck := &checker{x: x, tx: tx, m: x.readMeta(tx)}
	pr, m := &ck.pr, &ck.m
	if tx.Bucket(bucketTables) == nil {
		return fmt.Errorf("%w: bucket tables missing", ErrCorrupt)
	}
	if m.loading {
		// An interrupted bulk load: its documents are not committed and
		// readers ignore them; a writable Open removes them.
		if m.count != 0 {
			pr.add("interrupted bulk load in an index of %d documents", m.count)
		}
		return pr.err()
	}
	for _, name := range [][]byte{bucketIDs, bucketDocs, bucketExact, bucketTables} {
		if tx.Bucket(name) == nil {
			pr.add("bucket %q missing", name)
		}
	}
	if x.settings.MinHash && tx.Bucket(bucketBands) == nil {
		pr.add("bucket bands missing")
	}
	ck.sb = tx.Bucket(bucketSets)
	if x.lay.sets && ck.sb == nil {
		pr.add("bucket sets missing")
	}
	ck.shb = tx.Bucket(bucketShingles)
	if x.settings.StoreShingles && ck.shb == nil {
		pr.add("bucket shingles missing")
	}
	if err := pr.err(); err != nil {
		return err
	}
	if m.tablesFrom > m.next || (x.settings.MinHash && m.bandsFrom > m.next) {
		pr.add("watermarks (tables %d, bands %d) above the next document number %d", m.tablesFrom, m.bandsFrom, m.next)
	}
	if m.merging && (m.mergeUpto > m.next || m.mergeUpto < m.tablesFrom || (x.settings.MinHash && m.mergeUpto < m.bandsFrom) ||
		m.mergeDone < 0 || m.mergeDone >= x.mergeSlices()) {
		pr.add("merge under way up to %d with %d of %d slices done, for watermarks (tables %d, bands %d) and next document number %d",
			m.mergeUpto, m.mergeDone, x.mergeSlices(), m.tablesFrom, m.bandsFrom, m.next)
	}

	if err := ck.docs(); err != nil {
		return err
	}
	ck.shingleSets()
	if err := pr.err(); err != nil {
		return err
	}
	ck.ids()
	ck.exact()
	if x.settings.MinHash {
		ck.bands()
	}
	if x.lay.sets {
		ck.sets()
	}
	if err := pr.err(); err != nil {
		return err
	}
	return ck.tables()
}
