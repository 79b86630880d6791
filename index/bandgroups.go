package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
)

// The bands bucket holds the posting of each MinHash band hash: the
// documents below the band's watermark that have that hash as band b.
//
// An index created by schema 9 or later groups the postings (the meta key
// bandgroups holds the group width g): the key of a group is the band
// number and the leading g bits of the hash, 5 bytes (bandGroupKey), and
// its value is the group's entries in hash order, each the hash, the
// length of its posting (a uvarint) and the posting (singletonPosting or a
// roaring bitmap). g is bandGroupBits(Settings.ExpectedDocs, form), so
// that a group holds about 16 hashes at the expected size in an index
// created by schema 9 to 14, about 64 (bandGroupTarget) in one created by
// schema 15 or later: a bulk load writes one key per group instead of one
// per hash, and a group costs one bbolt element (16 bytes and a key)
// instead of one per hash. An online add reads and rewrites the groups of
// its bands, about 16 or 64 entries each at the expected size, more in an
// index grown far beyond it.
//
// An entry holds the hash in groupCodec.w bytes: in an index created by
// schema 10 or later, whose band hashes have 48 bits (see bands.go), the
// bits of the hash after the key's g, ceil((48-g)/8) bytes (4 at the
// default ExpectedDocs); in a wide index (schema 9) the whole hash, 8
// bytes.
//
// In an index created by schema 13 or later (its bandgroups value has a
// second byte, 1 in schema 13: groupCodec.tagged) the band hashes have b =
// bandHashBits(g, form) bits (g+24, at least 40, 38 from schema 15 on, at
// most 48), and an entry holds
// those after the key's, ceil((b-g)/8) bytes (3 at the default
// ExpectedDocs); the posting follows as a uvarint x: a posting of one document n
// is x = n<<1 | 1 alone, 3 bytes for n < 2^20 and 4 for n < 2^27,
// instead of a length byte and 4 bytes; a roaring bitmap of b bytes is
// x = b<<1 and the bitmap.
//
// In an index created by schema 14 or later (its bandgroups value's second
// byte is 2, or 3 from schema 15 on: groupCodec.lists) the uvarint x also
// tells a list from a bitmap: x = n<<1 | 1 is a posting of one document
// n, as in schema 13; x = (c-2)<<2 | 2 is a posting of c documents, 2 to
// maxListDocs, that follows as uvarints: the first number and then each
// number's distance from the one before it, less one (3 bytes a document
// for numbers spread over 2^21, 1 for near ones, where a roaring bitmap of
// 2 documents takes about 27); x = b<<2 is a roaring bitmap of b bytes, of
// more documents.
//
// An index created by schema 15 or later (second byte 3, groupsLarge)
// writes its entries as schema 14 does, in groups of about 64 hashes at
// the expected size (g two bits narrower), whose band hashes have b =
// g+24 bits, at least 38, at most 48 (bandHashBits): 38 and 14 at the
// default ExpectedDocs, so an entry's hash still takes 3 bytes.
//
// An index created before schema 9 keeps one key per hash (appendBandKey:
// the band number and the hash, 9 bytes) and is read and written so; its
// meta has no bandgroups key (groupCodec.g < 0).

// groupCodec is how the bands bucket of an index keys its postings and
// holds their hashes.
type groupCodec struct {
	g      int  // the group width, -1 for a key per hash (before schema 9)
	w      int  // bytes of an entry's hash: 8, the whole hash, or fewer, its bits after the key's
	tagged bool // a posting of one document is its number in the length's uvarint (schema 13 on)
	lists  bool // a posting of 2 to maxListDocs documents is a list of their numbers (schema 14 on)
}

// maxListDocs is the most documents a posting of a band group of schema 14
// or later holds as a list of their numbers; a posting of more is a
// roaring bitmap.
const maxListDocs = 32

// Band group forms: the second byte of the meta value bandgroups.
const (
	groupsUntagged = 0 // schemas 9 to 12: a length and the posting
	groupsTagged   = 1 // schema 13: a posting of one document is its number
	groupsListed   = 2 // schema 14: and a posting of a few is a list
	groupsLarge    = 3 // schema 15 on: listed entries, about 64 a group
)

// groupCodecFor returns the groupCodec of an index with group width g
// (-1 for none) that is wide or not, and whose entries have the form
// form (groupsUntagged, groupsTagged, groupsListed or groupsLarge).
func groupCodecFor(g int, wide bool, form byte) groupCodec {
	c := groupCodec{g: g, w: 8, tagged: form != groupsUntagged && g >= 0}
	c.lists = c.tagged && form >= groupsListed
	switch {
	case g < 0 || wide:
	case c.tagged:
		c.w = (bandHashBits(g, form) - g + 7) / 8
	default:
		c.w = (48 - g + 7) / 8
	}
	return c
}

// bandGroupsValue returns the value of the meta key bandgroups of an
// index whose band groups have width g and entries of the given form.
func bandGroupsValue(g int, form byte) []byte {
	if form != groupsUntagged {
		return []byte{byte(g), form}
	}
	return []byte{byte(g)}
}

// appendHash appends the entry bytes of hash h.
func (c groupCodec) appendHash(dst []byte, h uint64) []byte {
	if c.w == 8 {
		return binary.BigEndian.AppendUint64(dst, h)
	}
	s := h << c.g >> (64 - 8*c.w)
	for i := c.w - 1; i >= 0; i-- {
		dst = append(dst, byte(s>>(8*i)))
	}
	return dst
}

// hash returns the hash of the entry bytes b (c.w of them) in the group of
// key prefix p (the key's 4 bytes after the band).
func (c groupCodec) hash(p uint32, b []byte) uint64 {
	if c.w == 8 {
		return binary.BigEndian.Uint64(b)
	}
	var s uint64
	for _, x := range b[:c.w] {
		s = s<<8 | uint64(x)
	}
	return uint64(p)<<32 | s<<(64-8*c.w)>>c.g
}

// bandGroupBits returns the group width of the bands bucket of an index
// of n expected documents whose band groups have the given form: about
// bandGroupTarget hashes a group in an index created by schema 15 or later
// (groupsLarge), about bandGroupTarget16 in one created before.
func bandGroupBits(n int, form byte) int {
	t := float64(bandGroupTarget16)
	if form == groupsLarge {
		t = bandGroupTarget
	}
	return max(1, min(int(math.Ceil(math.Log2(float64(n)/t))), 32))
}

// bandGroupTarget is the mean number of hashes a band group of an index
// created by schema 15 or later holds at the expected size. A bulk load
// writes one bbolt key per group, at about half a microsecond each on one
// goroutine, so larger groups cut the serial part of a load; a query scans
// a group's entries up to its hash (about bandGroupTarget/2, a few
// nanoseconds each: see groupCodec.posting), and an online add rewrites
// the groups of its bands.
const bandGroupTarget = 64

// bandGroupTarget16 is the mean number of hashes a band group of an index
// created by schema 9 to 14 holds at the expected size: its stored group
// width is checked against it when it opens.
const bandGroupTarget16 = 16

// keyBandGroups is the meta key of the group width of the bands bucket.
var keyBandGroups = []byte("bandgroups")

// bandGroupKey appends the key of the group of band b's hash h, for
// groups of width g bits, to dst.
func bandGroupKey(dst []byte, b int, h uint64, g int) []byte {
	p := uint32(h >> 32)
	if g < 32 {
		p &^= 1<<(32-g) - 1
	}
	return binary.BigEndian.AppendUint32(append(dst, byte(b)), p)
}

// bandGroupKeyLen is the length of a bandGroupKey.
const bandGroupKeyLen = 5

// appendBitmapEntry appends the entry of hash h whose posting is the
// roaring bitmap p, written as a bitmap whatever its cardinality.
func (c groupCodec) appendBitmapEntry(dst []byte, h uint64, p []byte) []byte {
	return c.appendPosting(c.appendHash(dst, h), p)
}

// appendPosting appends the length tag of the posting bytes p and p: a
// roaring bitmap, or in an untagged group also a singletonPosting.
func (c groupCodec) appendPosting(dst, p []byte) []byte {
	switch {
	case c.lists:
		dst = binary.AppendUvarint(dst, uint64(len(p))<<2)
	case c.tagged:
		dst = binary.AppendUvarint(dst, uint64(len(p))<<1)
	default:
		dst = binary.AppendUvarint(dst, uint64(len(p)))
	}
	return append(dst, p...)
}

// appendDocsEntry appends the entry of hash h whose posting holds docs
// (sorted, without repeats, at least one), with bm as scratch for a
// roaring bitmap. It costs O(len(docs)), and the serialization of a bitmap
// for a posting that is one.
func (c groupCodec) appendDocsEntry(dst []byte, h uint64, docs []uint32, bm *roaring.Bitmap) ([]byte, error) {
	switch {
	case len(docs) == 1 && c.tagged:
		return binary.AppendUvarint(c.appendHash(dst, h), uint64(docs[0])<<1|1), nil
	case len(docs) == 1:
		var b [singletonSize]byte
		return c.appendPosting(c.appendHash(dst, h), appendSingletonPosting(b[:0], docs[0])), nil
	case c.lists && len(docs) <= maxListDocs:
		return appendDocList(c.appendHash(dst, h), docs), nil
	}
	dst = c.appendHash(dst, h)
	// The bitmap is serialized at the end of dst, then moved past its
	// length tag.
	n := len(dst)
	if b, ok := appendSmallPosting(dst, docs); ok {
		p := slices.Clone(b[n:])
		return c.appendPosting(b[:n], p), nil
	}
	bm.Clear()
	bm.AddMany(docs)
	bm.RunOptimize()
	p, err := bm.ToBytes()
	if err != nil {
		return dst, err
	}
	return c.appendPosting(dst, p), nil
}

// appendDocList appends the uvarint tag and the numbers of a posting of
// docs (sorted, without repeats, 2 to maxListDocs of them) in a listed
// group.
func appendDocList(dst []byte, docs []uint32) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(docs)-2)<<2|2)
	dst = binary.AppendUvarint(dst, uint64(docs[0]))
	for i := 1; i < len(docs); i++ {
		dst = binary.AppendUvarint(dst, uint64(docs[i]-docs[i-1]-1))
	}
	return dst
}

// entries calls fn with the hash and the posting of each entry of the
// value v of the group of key, in order, until fn returns an error. It
// fails with ErrCorrupt if v is not a sequence of entries in increasing
// hash order. A roaring posting aliases v; a posting of one document of a
// tagged group is its singletonPosting, and one of a list in a listed
// group a roaring bitmap, in memory entries allocates (in blocks, never
// reused: the postings outlive the call).
func (c groupCodec) entries(key, v []byte, fn func(h uint64, p []byte) error) error {
	var mem postingMem
	return c.scan(key, v, func(e *groupEntry) error {
		p, err := mem.posting(e)
		if err != nil {
			return err
		}
		return fn(e.h, p)
	})
}

// groupEntry is an entry of a band group as scan reads it: its hash, its
// bytes in the group's value, and its posting, one of: the number n of its
// one document (p and docs nil), the numbers docs of a list (valid until
// the next entry), or p, the roaring bitmap or the posting of an untagged
// group (aliasing the value).
type groupEntry struct {
	h    uint64
	raw  []byte
	n    uint32
	docs []uint32
	p    []byte
}

// postingMem makes the posting bytes of entries whose posting a group does
// not hold as bytes: a singletonPosting for one document, a roaring bitmap
// for a list. Each is cut from a block that is never written again.
type postingMem struct {
	block []byte
	bm    roaring.Bitmap
}

// posting returns the posting of e as readPosting reads it.
func (m *postingMem) posting(e *groupEntry) ([]byte, error) {
	switch {
	case e.p != nil:
		return e.p, nil
	case e.docs == nil:
		if cap(m.block)-len(m.block) < singletonSize {
			m.block = make([]byte, 0, 64*singletonSize)
		}
		m.block = appendSingletonPosting(m.block, e.n)
		return m.block[len(m.block)-singletonSize : len(m.block) : len(m.block)], nil
	}
	// appendSmallPosting writes at most 8+10 bytes a document.
	if need := 8 + 10*len(e.docs); cap(m.block)-len(m.block) < need {
		m.block = make([]byte, 0, max(need, 64*singletonSize))
	}
	s := len(m.block)
	if b, ok := appendSmallPosting(m.block, e.docs); ok {
		m.block = b
		return m.block[s:len(m.block):len(m.block)], nil
	}
	m.bm.Clear()
	m.bm.AddMany(e.docs)
	m.bm.RunOptimize()
	return m.bm.ToBytes()
}

// scan calls fn with each entry of the value v of the group of key, in
// order, until fn returns an error, without making postings: see
// groupEntry. e is reused from one call to the next. skipTo reads the
// entries' lengths as scan does, and changes with it.
func (c groupCodec) scan(key, v []byte, fn func(e *groupEntry) error) error {
	var prefix uint32
	if len(key) == bandGroupKeyLen {
		prefix = binary.BigEndian.Uint32(key[1:])
	}
	var last uint64
	var e groupEntry
	var docs []uint32
	for i := 0; len(v) > 0; i++ {
		if len(v) < c.w+1 {
			return fmt.Errorf("%w: band group entry truncated", ErrCorrupt)
		}
		whole := v
		h := c.hash(prefix, v)
		x, w := binary.Uvarint(v[c.w:])
		if w <= 0 {
			return fmt.Errorf("%w: band group entry of hash %016x malformed", ErrCorrupt, h)
		}
		if i > 0 && h <= last {
			return fmt.Errorf("%w: band group entries out of order at hash %016x", ErrCorrupt, h)
		}
		last = h
		v = v[c.w+w:]
		e = groupEntry{h: h}
		switch {
		case c.tagged && x&1 != 0:
			if x>>1 > math.MaxUint32 {
				return fmt.Errorf("%w: band group entry of hash %016x malformed", ErrCorrupt, h)
			}
			e.n = uint32(x >> 1)
		case c.lists && x&2 != 0:
			var err error
			if docs, v, err = readDocList(docs[:0], v, x>>2+2); err != nil {
				return fmt.Errorf("%w: band group entry of hash %016x: %v", ErrCorrupt, h, err)
			}
			e.docs = docs
		default:
			if c.lists {
				x >>= 2
			} else if c.tagged {
				x >>= 1
			}
			if x == 0 || uint64(len(v)) < x {
				return fmt.Errorf("%w: band group entry of hash %016x malformed", ErrCorrupt, h)
			}
			e.p = v[:x]
			v = v[x:]
		}
		e.raw = whole[:len(whole)-len(v)]
		if err := fn(&e); err != nil {
			return err
		}
	}
	return nil
}

// readDocList appends to dst the c numbers (2 or more, as the tag gives
// them) of a list posting at the start of v, and returns them and the
// rest of v. It fails if the list is truncated, holds more than
// maxListDocs numbers, or a number beyond 32 bits.
func readDocList(dst []uint32, v []byte, c uint64) ([]uint32, []byte, error) {
	if c > maxListDocs {
		return dst, v, errors.New("list of too many documents")
	}
	var n uint64
	for i := range c {
		d, w := binary.Uvarint(v)
		if w <= 0 {
			return dst, v, errors.New("list truncated")
		}
		v = v[w:]
		if d > math.MaxUint32 {
			return dst, v, errors.New("document number beyond 32 bits")
		}
		if i > 0 {
			if d += n + 1; d > math.MaxUint32 {
				return dst, v, errors.New("document number beyond 32 bits")
			}
		}
		n = d
		dst = append(dst, uint32(n))
	}
	return dst, v, nil
}

// posting returns the posting of hash h in the value v of the group of
// key, or nil if the group has none. The entries before h's are skipped by
// their lengths (skipTo), a few nanoseconds each, and h's is decoded as
// scan decodes it.
func (c groupCodec) posting(key, v []byte, h uint64) ([]byte, error) {
	var found []byte
	err := c.scan(key, v[c.skipTo(key, v, h):], func(e *groupEntry) error {
		if e.h >= h {
			if e.h == h {
				if e.p == nil && e.docs == nil { // one document
					found = appendSingletonPosting(make([]byte, 0, singletonSize), e.n)
					return errStop
				}
				var mem postingMem
				p, err := mem.posting(e)
				if err != nil {
					return err
				}
				found = p
			}
			return errStop
		}
		return nil
	})
	if err == errStop {
		err = nil
	}
	return found, err
}

// skipTo returns the offset in the value v of the group of key of the
// first entry whose hash may be h or greater: the entries before it are
// skipped by the lengths of their postings, without decoding them. It
// stops early, for scan to report, at an entry that is truncated or
// malformed, or at the one before an entry out of order; it skips none
// in an untagged group or for a hash of another group. The numbers of a
// list it skips are not decoded: a number beyond 32 bits, a sum of
// distances that overflows or a varint longer than 10 bytes in an entry
// before h's goes unnoticed here, and is found by scan of that entry and
// by Check.
func (c groupCodec) skipTo(key, v []byte, h uint64) int {
	if !c.tagged || c.w == 8 || len(key) != bandGroupKeyLen {
		return 0
	}
	p := uint32(h >> 32)
	if c.g < 32 {
		p &^= 1<<(32-c.g) - 1
	}
	if p != binary.BigEndian.Uint32(key[1:]) {
		return 0
	}
	// An entry of bytes s holds hash p<<32 | s<<(64-8w)>>g: it is before
	// h if s is less than want.
	want := h << c.g >> (64 - 8*c.w)
	off, prev := 0, 0
	var last uint64
	for off < len(v) {
		e := v[off:]
		if len(e) < c.w+1 {
			return off
		}
		var s uint64
		if len(e) >= 8 {
			s = binary.BigEndian.Uint64(e) >> (64 - 8*c.w)
		} else {
			for _, b := range e[:c.w] {
				s = s<<8 | uint64(b)
			}
		}
		if off > 0 && s <= last {
			return prev
		}
		if s >= want {
			return off
		}
		var x uint64
		var n int
		if b := e[c.w]; b < 0x80 {
			x, n = uint64(b), 1
		} else if len(e) >= c.w+2 && e[c.w+1] < 0x80 {
			x, n = uint64(b&0x7f)|uint64(e[c.w+1])<<7, 2
		} else if len(e) >= c.w+3 && e[c.w+2] < 0x80 {
			x, n = uint64(b&0x7f)|uint64(e[c.w+1]&0x7f)<<7|uint64(e[c.w+2])<<14, 3
		} else if x, n = binary.Uvarint(e[c.w:]); n <= 0 {
			return off
		}
		rest := e[c.w+n:]
		switch {
		case x&1 != 0: // one document
			if x>>1 > math.MaxUint32 {
				return off
			}
		case c.lists && x&2 != 0: // a list of k numbers, uvarints
			k := x>>2 + 2
			if k > maxListDocs {
				return off
			}
			i := 0
			for ; k > 0 && i < len(rest); i++ {
				if rest[i] < 0x80 {
					k--
				}
			}
			if k > 0 {
				return off
			}
			rest = rest[i:]
		default: // a roaring bitmap of l bytes
			l := x >> 1
			if c.lists {
				l = x >> 2
			}
			if l == 0 || uint64(len(rest)) < l {
				return off
			}
			rest = rest[l:]
		}
		last, prev, off = s, off, len(v)-len(rest)
	}
	return off
}

// bandPosting returns the posting of band b's hash h through c, a cursor
// of the bands bucket, or nil if there is none: one seek, and in a
// grouped bucket a skip over the group's entries before h's
// (groupCodec.posting).
func (x *Index) bandPosting(c *bolt.Cursor, b int, h uint64) ([]byte, error) {
	var kb [9]byte
	if x.groups.g < 0 {
		key := appendBandKey(kb[:0], b, h)
		if k, v := c.Seek(key); v != nil && bytes.Equal(k, key) {
			return v, nil
		}
		return nil, nil
	}
	key := bandGroupKey(kb[:0], b, h, x.groups.g)
	k, v := c.Seek(key)
	if v == nil || !bytes.Equal(k, key) {
		return nil, nil
	}
	return x.groups.posting(key, v, h)
}

// eachBandPosting calls fn with the band, the hash and the posting of
// every posting of the bands bucket bb, in key order, until fn returns an
// error. A key of the wrong length, or a group whose entries are not
// those of its key, is reported to bad with what is wrong with it, and
// skipped; with bad nil, a damaged group fails the scan with ErrCorrupt
// (a key of the wrong length is skipped). It costs a scan of the bucket.
func (x *Index) eachBandPosting(bb *bolt.Bucket, bad func(key []byte, what string), fn func(b int, h uint64, p []byte) error) error {
	return x.eachBand(bb, bad, true, fn)
}

// eachBand is eachBandPosting that, with postings false, gives fn a nil
// posting for the entries of a group: the scan of the hashes alone.
func (x *Index) eachBand(bb *bolt.Bucket, bad func(key []byte, what string), postings bool, fn func(b int, h uint64, p []byte) error) error {
	var mem postingMem
	return x.eachBandEntry(bb, bad, func(b int, e *groupEntry) error {
		if !postings && x.groups.g >= 0 {
			return fn(b, e.h, nil)
		}
		p, err := mem.posting(e)
		if err != nil {
			return err
		}
		return fn(b, e.h, p)
	})
}

// eachBandEntry is eachBandPosting that gives fn each posting as scan
// reads it (groupEntry: valid until fn returns), without making posting
// bytes of a document's number or of a list; a key per hash (before
// schema 9) is an entry of its posting bytes (groupEntry.p).
func (x *Index) eachBandEntry(bb *bolt.Bucket, bad func(key []byte, what string), fn func(b int, e *groupEntry) error) error {
	c := bb.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if x.groups.g < 0 {
			if len(k) != 9 {
				if bad != nil {
					bad(k, "malformed")
				}
				continue
			}
			if err := fn(int(k[0]), &groupEntry{h: binary.BigEndian.Uint64(k[1:]), p: v}); err != nil {
				return err
			}
			continue
		}
		if len(k) != bandGroupKeyLen {
			if bad != nil {
				bad(k, "malformed")
			}
			continue
		}
		b := int(k[0])
		err := x.groups.scan(k, v, func(e *groupEntry) error {
			var kb [bandGroupKeyLen]byte
			if !bytes.Equal(bandGroupKey(kb[:0], b, e.h, x.groups.g), k) {
				return fmt.Errorf("%w: band group %x holds hash %016x", ErrCorrupt, k, e.h)
			}
			return fn(b, e)
		})
		if err != nil {
			if bad == nil || !errors.Is(err, ErrCorrupt) {
				return err
			}
			bad(k, strings.TrimPrefix(err.Error(), ErrCorrupt.Error()+": "))
		}
	}
	return nil
}

// updateBandGroups applies ops, sorted as updatePostings sorts them, to
// the grouped bands bucket bb: each group changed is read, its postings
// updated, and written once, or removed when it becomes empty. The entries
// no op changes are copied as they are; a posting changed is written as
// appendDocsEntry writes it. Cost: a read and a write of each group
// changed, and the decoding of the postings changed.
func (x *Index) updateBandGroups(bb *bolt.Bucket, ops []postingOp) error {
	if len(ops) == 0 {
		return nil
	}
	if bb == nil {
		return fmt.Errorf("%w: band postings missing", ErrCorrupt)
	}
	sortPostingOps(ops)
	gc := x.groups
	g := gc.g
	var kb, ka [bandGroupKeyLen]byte
	bm := roaring.New()
	var docs []uint32 // a changed posting of at most maxListDocs
	for i := 0; i < len(ops); {
		key := bandGroupKey(kb[:0], int(ops[i].b), ops[i].h, g)
		j := i + 1
		for j < len(ops) && bytes.Equal(bandGroupKey(ka[:0], int(ops[j].b), ops[j].h, g), key) {
			j++
		}
		old := bb.Get(key)
		// bbolt keeps the value until the commit: a new slice per group.
		nv := make([]byte, 0, len(old)+(j-i)*(gc.w+1+singletonSize))
		grp := ops[i:j]
		// Merge the entries of the group with the hashes of its ops; e is
		// the entry of hash h, or nil if the group has none.
		next := func(e *groupEntry, h uint64) error {
			k := 0
			for k < len(grp) && grp[k].h == h {
				k++
			}
			if k == 0 {
				nv = append(nv, e.raw...)
				return nil
			}
			bm.Clear()
			switch {
			case e == nil:
			case e.p != nil:
				if err := readPosting(bm, e.p); err != nil {
					return fmt.Errorf("%w: band posting: %v", ErrCorrupt, err)
				}
				bm = bm.Clone() // FromBuffer's bitmap reads the page
			case e.docs != nil:
				bm.AddMany(e.docs)
			default:
				bm.Add(e.n)
			}
			for _, op := range grp[:k] {
				if op.del {
					bm.Remove(op.n)
				} else {
					bm.Add(op.n)
				}
			}
			grp = grp[k:]
			switch n := bm.GetCardinality(); {
			case n == 0:
				return nil
			case n <= maxListDocs:
				docs = bm.ToArray()
				var err error
				nv, err = gc.appendDocsEntry(nv, h, docs, bm)
				return err
			}
			bm.RunOptimize()
			p, err := bm.ToBytes()
			if err != nil {
				return err
			}
			nv = gc.appendBitmapEntry(nv, h, p)
			return nil
		}
		err := gc.scan(key, old, func(e *groupEntry) error {
			// The hashes of ops before this entry have no posting yet.
			for len(grp) > 0 && grp[0].h < e.h {
				if err := next(nil, grp[0].h); err != nil {
					return err
				}
			}
			return next(e, e.h)
		})
		for err == nil && len(grp) > 0 {
			err = next(nil, grp[0].h)
		}
		if err != nil {
			return err
		}
		if len(nv) == 0 {
			if old != nil {
				if err := bb.Delete(key); err != nil {
					return err
				}
			}
		} else if err := bb.Put(key, nv); err != nil { // Put copies the key
			return err
		}
		i = j
	}
	return nil
}
