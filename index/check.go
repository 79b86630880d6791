package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
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

func (x *Index) check(tx *bolt.Tx) error {
	var pr problems
	m := x.readMeta(tx)
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
	sb := tx.Bucket(bucketSets)
	if x.lay.sets && sb == nil {
		pr.add("bucket sets missing")
	}
	shb := tx.Bucket(bucketShingles)
	if x.settings.StoreShingles && shb == nil {
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
	nb := x.settings.Bands

	// Documents.
	dense := make(map[uint32]int32)
	var fps []uint64
	var recs []record // text documents with MinHash only: for the bands
	texts := 0
	ownExact := 0 // text documents whose exact key is in the bucket
	// From the exact watermark on, a document's exact key may be in the
	// band level only (see meta.exactFrom).
	ew := inBucket(0)
	if x.settings.MinHash {
		ew = m.exactFrom(x)
	}
	setMembers := 0 // (document, hash) pairs of the records' sets
	idb := tx.Bucket(bucketIDs)
	exb := tx.Bucket(bucketExact)
	elv := x.recentLevels() // the exact keys from the watermark on
	edc := tx.Bucket(bucketDocs).Cursor()
	err := tx.Bucket(bucketDocs).ForEach(func(key, v []byte) error {
		if len(key) != 4 {
			if !pr.add("docs key of %d bytes", len(key)) {
				return errStop
			}
			return nil
		}
		n := binary.BigEndian.Uint32(key)
		if n >= m.next {
			if !pr.add("document %d at or above the next number %d", n, m.next) {
				return errStop
			}
		}
		r, err := decodeRecord(v, x.lay, x.settings.MinHash || x.lay.sets)
		if err != nil {
			if !pr.add("document %d: %v", n, err) {
				return errStop
			}
			return nil
		}
		if validID(r.id) != nil {
			pr.add("document %d: invalid ID %q", n, r.id)
		}
		if got := idb.Get([]byte(r.id)); len(got) != 4 || binary.BigEndian.Uint32(got) != n {
			if !pr.add("document %d (%q): ids does not map back to it", n, r.id) {
				return errStop
			}
		}
		if shb != nil {
			switch sv := shb.Get(key); {
			case r.text && sv == nil:
				if !pr.add("document %d (%q): no shingle set", n, r.id) {
					return errStop
				}
			case !r.text && sv != nil:
				if !pr.add("document %d (%q): a shingle set for a document without text", n, r.id) {
					return errStop
				}
			case sv != nil:
				if set, err := decodeShingleSet(nil, sv); err != nil || !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != len(set) {
					if !pr.add("document %d (%q): bad shingle set: %v", n, r.id, err) {
						return errStop
					}
				}
			}
		}
		if r.text {
			texts++
			switch {
			case exb.Get(exactKey(r.exact, n)) != nil:
				ownExact++
			case n < ew:
				if !pr.add("document %d (%q): missing from exact", n, r.id) {
					return errStop
				}
			case !containsDoc(x.recentDocs(nil, elv, edc, exactBand, r.exact), n):
				if !pr.add("document %d (%q): exact key neither in the bucket nor in the in-memory levels", n, r.id) {
					return errStop
				}
			}
			if x.lay.sets {
				setMembers += len(r.set)
				for i, h := range r.set {
					if i > 0 && r.set[i-1] >= h {
						if !pr.add("document %d (%q): set not sorted", n, r.id) {
							return errStop
						}
						break
					}
					var bm roaring.Bitmap
					p := sb.Get(setKey(h))
					if p == nil {
						if !pr.add("document %d (%q): set hash %016x has no posting", n, r.id, h) {
							return errStop
						}
						continue
					}
					if _, err := bm.FromBuffer(p); err != nil || !bm.Contains(n) {
						if !pr.add("document %d (%q): not in the posting of set hash %016x", n, r.id, h) {
							return errStop
						}
					}
				}
			}
			if x.settings.MinHash {
				r.sig = nil
				recs = append(recs, r)
				dense[n] = int32(len(fps))
				fps = append(fps, r.fp)
				return nil
			}
		} else if x.lay.sets {
			pr.add("document %d (%q): no set", n, r.id)
		}
		dense[n] = int32(len(fps))
		fps = append(fps, r.fp)
		return nil
	})
	if err != nil && err != errStop {
		return err
	}
	if int64(len(fps)) != m.count {
		pr.add("%d documents, count says %d", len(fps), m.count)
	}
	if shb != nil {
		if n := shb.Stats().KeyN; n != texts {
			pr.add("%d shingle sets for %d documents with text", n, texts)
		}
	}
	if err := pr.err(); err != nil {
		return err
	}

	// IDs.
	ids := 0
	idb.ForEach(func(id, v []byte) error {
		ids++
		if len(v) != 4 {
			pr.add("ids %q: value of %d bytes", id, len(v))
		} else if _, ok := dense[binary.BigEndian.Uint32(v)]; !ok {
			pr.add("ids %q: document %d missing", id, binary.BigEndian.Uint32(v))
		}
		if len(pr.list) >= maxProblems {
			return errStop
		}
		return nil
	})
	if ids != len(fps) {
		pr.add("%d ids for %d documents", ids, len(fps))
	}

	// Exact hashes: every key belongs to a text document with that hash
	// (each text document's own key was looked up above).
	exacts := 0
	exb.ForEach(func(key, _ []byte) error {
		exacts++
		if len(key) != 12 {
			pr.add("exact key of %d bytes", len(key))
		}
		if len(pr.list) >= maxProblems {
			return errStop
		}
		return nil
	})
	if exacts != ownExact {
		pr.add("%d exact keys for %d documents with text whose key is there", exacts, ownExact)
	}

	// Bands.
	if x.settings.MinHash {
		members := 0
		byN := make(map[uint32]*record, len(recs))
		for i := range recs {
			r := &recs[i]
			v := idb.Get([]byte(r.id))
			if len(v) == 4 {
				byN[binary.BigEndian.Uint32(v)] = r
			}
		}
		tx.Bucket(bucketBands).ForEach(func(key, v []byte) error {
			if len(key) != 9 || int(key[0]) >= nb {
				pr.add("band key %x malformed", key)
				return nil
			}
			var bm roaring.Bitmap
			if _, err := bm.FromBuffer(v); err != nil {
				pr.add("band %x: %v", key, err)
				return nil
			}
			if bm.IsEmpty() {
				pr.add("band %x: empty posting", key)
			}
			h := binary.BigEndian.Uint64(key[1:])
			for n := range roaring.Values(&bm) {
				members++
				r := byN[n]
				if r == nil || r.bands[key[0]] != h || n >= m.bandFrom(x, int(key[0])) {
					pr.add("band %x: document %d does not have this band", key, n)
					break
				}
			}
			if len(pr.list) >= maxProblems {
				return errStop
			}
			return nil
		})
		// The documents from a band's watermark on have that band in the
		// in-memory levels, not in the bucket.
		inBucket := 0
		lv := x.recentLevels()
		dc := tx.Bucket(bucketDocs).Cursor()
		for n, r := range byN {
			for i, h := range r.bands {
				if n < m.bandFrom(x, i) {
					inBucket++
					continue
				}
				if got := x.recentDocs(nil, lv, dc, i, h); !containsDoc(got, n) {
					pr.add("document %d: band %d not in the in-memory levels", n, i)
					break
				}
			}
		}
		if members != inBucket {
			pr.add("%d band postings for %d bands of documents below their band's watermark", members, inBucket)
		}
	}
	// Sets: every record's (document, hash) is in a posting (checked
	// above, each once since a set has no repeats), so postings holding
	// as many members in all have no other.
	if x.lay.sets {
		members := 0
		sb.ForEach(func(key, v []byte) error {
			if len(key) != 8 {
				pr.add("set key %x malformed", key)
				return nil
			}
			var bm roaring.Bitmap
			if _, err := bm.FromBuffer(v); err != nil {
				pr.add("set %x: %v", key, err)
				return nil
			}
			if bm.IsEmpty() {
				pr.add("set %x: empty posting", key)
			}
			members += int(bm.GetCardinality())
			if len(pr.list) >= maxProblems {
				return errStop
			}
			return nil
		})
		if members != setMembers {
			pr.add("%d set postings for %d set hashes of the documents", members, setMembers)
		}
	}
	if err := pr.err(); err != nil {
		return err
	}

	// Tables: the entries of the documents below a table's watermark in
	// the bucket, the others in the in-memory levels.
	stamp := make([]int32, len(fps))
	lv := x.recentTableLevels()
	if lv[0] == nil {
		pr.add("no in-memory table level")
		return pr.err()
	}
	var ents []entry
	c := tx.Bucket(bucketTables).Cursor()
	if k, _ := c.Seek([]byte{byte(len(x.tables) >> 8), byte(len(x.tables))}); k != nil {
		pr.add("a group of table %d; there are %d tables", int(k[0])<<8|int(k[1]), len(x.tables))
	}
	// The table mirror, if this snapshot's queries use it, holds every
	// group of the bucket and nothing else.
	if mr := x.mirrorFor(tx); mr != nil {
		groups := 0
		kb := uint(64 - x.settings.Design.KeyBits)
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if ti := x.keyTable(k); ti >= 0 {
				groups++
				if g := mr.group(ti, uint32(x.keyValue(k)>>kb)); !bytes.Equal(g, v) {
					if !pr.add("table group %x: the copy in memory differs from the bucket", k) {
						return pr.err()
					}
				}
			}
		}
		n := 0
		for ti := range mr.keys {
			n += len(mr.keys[ti])
		}
		if n != groups {
			pr.add("the copy of the tables in memory has %d groups, the bucket %d", n, groups)
		}
	}
	for ti := range x.tables {
		t := &x.tables[ti]
		entries := 0
		w := m.tableFrom(ti)
		below := 0
		for n := range dense {
			if n < w {
				below++
			}
		}
		tp := []byte{byte(ti >> 8), byte(ti)}
		for key, v := c.Seek(tp); key != nil && bytes.HasPrefix(key, tp); key, v = c.Next() {
			if len(key) != 2+x.keyBytes || (x.keyBytes*8 > x.settings.Design.KeyBits && key[2]>>(x.settings.Design.KeyBits-8*(x.keyBytes-1)) != 0) {
				pr.add("table %d: malformed key %x", ti, key)
				return pr.err()
			}
			if err := x.checkGroup(v); err != nil {
				pr.add("table %d key %x: %v", ti, key, err)
				return pr.err()
			}
			ents = x.decodeGroup(ents[:0], x.keyValue(key), v)
			for _, e := range ents {
				entries++
				d, ok := dense[e.n]
				switch {
				case !ok:
					pr.add("table %d: entry for missing document %d", ti, e.n)
				case e.n >= w:
					pr.add("table %d: document %d in the bucket, at or above the table's watermark %d", ti, e.n, w)
				case t.permute(fps[d]) != e.p:
					pr.add("table %d: document %d under the wrong fingerprint", ti, e.n)
				case stamp[d] == int32(ti+1):
					pr.add("table %d: document %d twice", ti, e.n)
				default:
					stamp[d] = int32(ti + 1)
				}
			}
			if len(pr.list) >= maxProblems {
				return pr.err()
			}
		}
		if entries != below {
			pr.add("table %d: %d entries for %d documents below the table's watermark %d", ti, entries, below, w)
		}
		// The documents from the watermark on are in the level, under
		// their fingerprint's group.
		kb := uint(64 - x.settings.Design.KeyBits)
		for n, d := range dense {
			if n < w {
				continue
			}
			e := recentEnt{fp: fps[d], n: n}
			id := groupID(ti, t.permute(e.fp)>>kb)
			// (A merge moves them from level to level; a reader sees
			// each in one of them.)
			var es []recentEnt
			for _, r := range lv {
				es = r.group(es, id)
			}
			if !slices.Contains(es, e) {
				pr.add("table %d: document %d, at or above the table's watermark %d, not in the in-memory levels", ti, n, w)
			}
			if len(pr.list) >= maxProblems {
				return pr.err()
			}
		}
	}
	return pr.err()
}
