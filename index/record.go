package index

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"iter"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/simidx/simidx/shingle"
	bolt "go.etcd.io/bbolt"
)

// A record is the value of a document in the docs bucket, or its slot in a
// group of records (see docgroups.go):
//
//	fingerprint uint64 | flags byte | [exact uint64 | sig k*w | [bands b*uint64] | [n byte | set n*uint64] | [m byte | short m*s]] | ID
//
// The bracketed part is present when flags has flagText; sig and bands are
// present when the index has MinHash, n and set when it has a set method
// (MethodNshash, MethodShort), m and short when flags has flagShort (schema
// 7: a text with a short set in an index with the short-text layer; see
// Settings.ShortUnits). The bands are the Bands bands of the signature
// (zero for a text without them: see bands.go), then, in an index with the
// short-text layer, the ShortBands bands of the short set, zero for a text
// without one. A record with flagCompact (schema 10) has 16-bit signature
// values (w = 2; 8-bit, w = 1, with flagSig8 too, schema 13), 32-bit
// short-set values (s = 4; 16-bit, s = 2, with flagShort16 too, schema 14)
// and no bands, which are computed from them (see bands.go); one without has
// 64-bit short-set values (s = 8), w = 4 with flagSig32 (schema 8) and 8
// before. Integers are big-endian. The ID takes the
// rest of the value, but for the last 4 bytes when flags has flagCRC
// (schema 6, every record written since): the CRC-32C (Castagnoli) of the
// bytes before them, big-endian, checked whenever the record is read (see
// body), so that damage bbolt cannot see (it checksums only its meta
// pages) is reported as ErrCorrupt instead of a wrong answer.
type record struct {
	id    string
	fp    uint64
	text  bool // added with text: exact (and sig, bands, set) are valid
	exact uint64
	sig   []uint64
	bands []uint64
	set   []uint64 // sorted, without repeats
	// short is the short set of a short text (see shortSet), sorted,
	// without repeats; nil for other documents.
	short []uint64
	// shingles is the shingle set of a new text document in an index
	// with Settings.StoreShingles, stored in its own bucket, not in the
	// record.
	shingles []uint64
}

const (
	flagText    = 1
	flagShort   = 2    // a text record with a short set
	flagSig32   = 4    // the signature holds the low 32 bits of each value
	flagCompact = 8    // 16-bit signature values, 32-bit short set, no bands
	flagSig8    = 16   // with flagCompact: 8-bit signature values
	flagShort16 = 32   // with flagCompact and flagShort: 16-bit short-set values
	flagCRC     = 0x80 // the record ends with its checksum
)

// sigWidth returns the bytes per signature value of text record v (at
// least 9 bytes): 1 from schema 13 on (flagCompact and flagSig8), 2 from
// schema 10 on (flagCompact), 4 from schema 8 on (flagSig32), 8 before.
// The signature is compared by the low 32 bits of its values
// (shingle.Estimate), so the high bits need no storing; in a compact
// record they are 0.
func sigWidth(v []byte) int {
	switch {
	case v[8]&(flagCompact|flagSig8) == flagCompact|flagSig8:
		return 1
	case v[8]&flagCompact != 0:
		return 2
	case v[8]&flagSig32 != 0:
		return 4
	}
	return 8
}

// compact reports whether text record v (at least 9 bytes) has flagCompact.
func compact(v []byte) bool { return v[8]&flagCompact != 0 }

// textParts are the offsets of the parts of a text record: the exact hash
// at 9, the signature at 17, then the bands, the set and the short set.
type textParts struct {
	bands  int // the stored bands; -1 in a compact record
	set    int // the set's count byte (an index with a set method)
	short  int // the short set's count byte; -1 without one
	shortW int // bytes of a short-set value
	end    int // the ID
}

// partsOf returns the parts of text record v (flagText set; with or
// without its checksum) in an index of layout l, and false if v is too
// short to hold them.
func partsOf(v []byte, l layout) (textParts, bool) {
	p := textParts{bands: -1, short: -1, shortW: 8}
	n := 17 + sigWidth(v)*l.k
	if compact(v) {
		p.shortW = 4
		if v[8]&flagShort16 != 0 {
			p.shortW = 2
		}
	} else {
		p.bands = n
		n += 8 * l.bands
	}
	if len(v) < n {
		return p, false
	}
	if l.sets {
		p.set = n
		if len(v) < n+1 {
			return p, false
		}
		n += 1 + 8*int(v[n])
		if len(v) < n {
			return p, false
		}
	}
	if v[8]&flagShort != 0 {
		p.short = n
		if len(v) < n+1 {
			return p, false
		}
		n += 1 + p.shortW*int(v[n])
		if len(v) < n {
			return p, false
		}
	}
	p.end = n
	return p, true
}

// isText reports whether record v (at least 9 bytes) is of a document
// added with text.
func isText(v []byte) bool { return v[8]&flagText != 0 }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// corruptRecord is the panic of body on a record whose checksum fails;
// the transaction it happens in returns it as an error wrapping
// ErrCorrupt (recoverCorrupt).
type corruptRecord struct{ fp uint64 }

func (c corruptRecord) String() string {
	return fmt.Sprintf("document record of fingerprint %016x fails its checksum", c.fp)
}

// body returns record v without its checksum, after checking it, and v
// itself for a record written without one (before schema 6). A record
// whose checksum fails panics with corruptRecord: records are read inside
// transactions, whose recovery turns it into ErrCorrupt. Cost: a CRC-32C
// of the record (hardware-accelerated: a few ns per 100 bytes).
func body(v []byte) []byte {
	if len(v) < 9 || v[8]&flagCRC == 0 {
		return v
	}
	n := len(v) - 4
	if n < 9 || crc32.Checksum(v[:n], castagnoli) != binary.BigEndian.Uint32(v[n:]) {
		panic(corruptRecord{binary.BigEndian.Uint64(v)})
	}
	return v[:n]
}

// recordFlags returns the flags of record v (at least 9 bytes) without
// flagCRC.
func recordFlags(v []byte) byte { return v[8] &^ flagCRC }

// fpOf returns the fingerprint of record v (at least 8 bytes), checked.
func fpOf(v []byte) uint64 { return binary.BigEndian.Uint64(body(v)) }

// layout is what decoding a record needs to know about its index.
type layout struct {
	k, bands int  // MinHash values and bands, 0 without MinHash
	sets     bool // the records of text documents hold a set
	// wide says the index writes records without flagCompact (see
	// bands.go), sig16 that it writes compact records of 16-bit signature
	// values, without flagSig8 (an index created by schema 10 to 12); bh
	// computes the bands of a compact record, nil without MinHash.
	wide, sig16 bool
	// short16 says the index writes 16-bit short-set values (flagShort16:
	// an index created by schema 14 or later).
	short16 bool
	bh      *bandHasher
}

// docKey returns the key of document number n in the docs bucket.
func docKey(n uint32) []byte { return binary.BigEndian.AppendUint32(make([]byte, 0, 4), n) }

// encodeRecord appends the encoding of r to b for an index of layout l.
func encodeRecord(b []byte, r *record, l layout) []byte {
	start := len(b)
	b = binary.BigEndian.AppendUint64(b, r.fp)
	if !r.text {
		b = append(b, flagCRC)
		b = append(b, r.id...)
		return binary.BigEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
	}
	flags := byte(flagText | flagCompact | flagCRC)
	switch {
	case l.wide:
		flags = flagText | flagSig32 | flagCRC
	case !l.sig16 && l.k > 0:
		flags |= flagSig8
	}
	if len(r.short) > 0 {
		flags |= flagShort
		if l.short16 {
			flags |= flagShort16
		}
	}
	b = append(b, flags)
	b = binary.BigEndian.AppendUint64(b, r.exact)
	if l.wide {
		for _, v := range r.sig {
			b = binary.BigEndian.AppendUint32(b, uint32(v))
		}
		for _, v := range r.bands {
			b = binary.BigEndian.AppendUint64(b, v)
		}
	} else if l.sig16 {
		for _, v := range r.sig {
			b = binary.BigEndian.AppendUint16(b, uint16(v))
		}
	} else {
		for _, v := range r.sig {
			b = append(b, byte(v))
		}
	}
	if l.sets {
		b = append(b, byte(len(r.set)))
		for _, v := range r.set {
			b = binary.BigEndian.AppendUint64(b, v)
		}
	}
	if len(r.short) > 0 {
		b = append(b, byte(len(r.short)))
		for _, v := range r.short {
			switch {
			case l.wide:
				b = binary.BigEndian.AppendUint64(b, v)
			case l.short16:
				b = binary.BigEndian.AppendUint16(b, uint16(v))
			default:
				b = binary.BigEndian.AppendUint32(b, uint32(v))
			}
		}
	}
	b = append(b, r.id...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// textLen returns the length of the bracketed part of the text record v
// (without its first 9 bytes), or -1 if v is too short.
func textLen(v []byte, l layout) int {
	if len(v) < 9 {
		return -1
	}
	p, ok := partsOf(v, l)
	if !ok {
		return -1
	}
	return p.end - 9
}

// shortOf decodes only the short set of record v into dst (empty for a
// record without one).
func shortOf(dst []uint64, v []byte, l layout) []uint64 {
	dst = dst[:0]
	v = body(v)
	if len(v) < 9 || v[8]&(flagText|flagShort) != flagText|flagShort {
		return dst
	}
	if p, ok := partsOf(v, l); ok {
		dst = setOfWidth(dst, v[p.short:], p.shortW)
	}
	return dst
}

// decodeRecord decodes v for an index of layout l. With full unset it
// skips the signature, the bands and the set.
func decodeRecord(v []byte, l layout, full bool) (record, error) {
	return decodeRecordBands(v, l, full, full)
}

// decodeRecordBands is decodeRecord that, with bands false, leaves the
// bands of a compact record out (see decodeFields).
func decodeRecordBands(v []byte, l layout, full, bands bool) (record, error) {
	var r record
	err := decodeRecordInto(&r, v, l, full, bands, true)
	return r, err
}

// decodeRecordInto is decodeRecordBands into r, reusing r's slices; with
// id false it leaves r.id empty, and costs no allocation once r's slices
// have grown to the record's values. On an error r holds nothing of use.
func decodeRecordInto(r *record, v []byte, l layout, full, bands, id bool) error {
	if len(v) < 9 {
		return fmt.Errorf("%w: short document record", ErrCorrupt)
	}
	if n := len(v) - 4; v[8]&flagCRC != 0 && (n < 9 || crc32.Checksum(v[:n], castagnoli) != binary.BigEndian.Uint32(v[n:])) {
		return fmt.Errorf("%w: %v", ErrCorrupt, corruptRecord{binary.BigEndian.Uint64(v)})
	}
	return decodeFields(r, v, l, full, bands, id)
}

// decodeFields is decodeRecord of a record v whose checksum was checked
// (by decodeRecordInto): it decodes v into r, reusing r's slices, and does
// not check the checksum again. With bands false it leaves the bands of a
// compact record out: their computation (with a short set, a MinHash of
// it) is most of the cost of a full decode. With id false it leaves r.id
// empty: the ID costs an allocation.
func decodeFields(r *record, v []byte, l layout, full, bands, id bool) error {
	if len(v) < 9 {
		return fmt.Errorf("%w: short document record", ErrCorrupt)
	}
	if v[8]&flagCRC != 0 {
		if len(v) < 13 {
			return fmt.Errorf("%w: short document record", ErrCorrupt)
		}
		v = v[:len(v)-4]
	}
	*r = record{sig: r.sig[:0], bands: r.bands[:0], set: r.set[:0], short: r.short[:0]}
	r.fp = binary.BigEndian.Uint64(v)
	flags := recordFlags(v)
	if flags&(flagSig32|flagCompact) == flagSig32|flagCompact || flags&(flagSig8|flagCompact) == flagSig8 ||
		l.k > 0 && !l.wide && flags&(flagText|flagCompact) == flagText|flagCompact && (flags&flagSig8 != 0) == l.sig16 {
		// The last: a compact text record whose signature width is not
		// the index's.
		return fmt.Errorf("%w: bad document record flags %#x", ErrCorrupt, flags)
	}
	if short := flags&(flagText|flagCompact|flagShort) == flagText|flagCompact|flagShort; flags&flagShort16 != 0 && !short ||
		short && l.k > 0 && !l.wide && (flags&flagShort16 != 0) != l.short16 {
		// A short set of 16-bit values in a record that has none, or of
		// a width that is not the index's.
		return fmt.Errorf("%w: bad document record flags %#x", ErrCorrupt, flags)
	}
	switch flags &^ (flagSig32 | flagCompact | flagSig8 | flagShort16) {
	case 0:
		if flags != 0 {
			return fmt.Errorf("%w: bad document record flags %#x", ErrCorrupt, flags)
		}
		v = v[9:]
	case flagText, flagText | flagShort:
		p, ok := partsOf(v, l)
		if !ok {
			return fmt.Errorf("%w: short document record", ErrCorrupt)
		}
		r.text = true
		r.exact = binary.BigEndian.Uint64(v[9:])
		if full {
			r.sig = sigValues(r.sig, v, l.k)
			if l.sets {
				r.set = setOfWidth(r.set, v[p.set:], 8)
			}
			if p.short >= 0 {
				r.short = setOfWidth(r.short, v[p.short:], p.shortW)
			}
			switch {
			case l.bands == 0:
			case p.bands >= 0:
				for i := range l.bands {
					r.bands = append(r.bands, binary.BigEndian.Uint64(v[p.bands+8*i:]))
				}
			case bands:
				r.bands = l.bh.appendBands(r.bands, r.sig, r.short)
			}
		}
		v = v[p.end:]
	default:
		return fmt.Errorf("%w: bad document record flags %#x", ErrCorrupt, flags)
	}
	if id {
		r.id = string(v)
	}
	return nil
}

// sigValues appends to dst the k signature values of text record v, which
// must hold them.
func sigValues(dst []uint64, v []byte, k int) []uint64 {
	dst = slices.Grow(dst, k)
	switch sigWidth(v) {
	case 1:
		for i := range k {
			dst = append(dst, uint64(v[17+i]))
		}
	case 2:
		for i := range k {
			dst = append(dst, uint64(binary.BigEndian.Uint16(v[17+2*i:])))
		}
	case 4:
		for i := range k {
			dst = append(dst, uint64(binary.BigEndian.Uint32(v[17+4*i:])))
		}
	default:
		for i := range k {
			dst = append(dst, binary.BigEndian.Uint64(v[17+8*i:]))
		}
	}
	return dst
}

// setOfWidth appends to dst the set encoded at the start of b: a count
// byte and the values, w bytes each (8, 4 or 2), which b must hold.
func setOfWidth(dst []uint64, b []byte, w int) []uint64 {
	n := int(b[0])
	switch w {
	case 2:
		for i := range n {
			dst = append(dst, uint64(binary.BigEndian.Uint16(b[1+2*i:])))
		}
		return dst
	case 4:
		for i := range n {
			dst = append(dst, uint64(binary.BigEndian.Uint32(b[1+4*i:])))
		}
		return dst
	}
	for i := range n {
		dst = append(dst, binary.BigEndian.Uint64(b[1+8*i:]))
	}
	return dst
}

// recordSet decodes only the set of record v into dst (empty for a record
// without text or an index without a set method).
func recordSet(dst []uint64, v []byte, l layout) []uint64 {
	dst = dst[:0]
	v = body(v)
	if !l.sets || len(v) < 9 || !isText(v) {
		return dst
	}
	if p, ok := partsOf(v, l); ok {
		dst = setOfWidth(dst, v[p.set:], 8)
	}
	return dst
}

// sigOf decodes only the MinHash signature of record v into dst.
func sigOf(dst []uint64, v []byte, k int) []uint64 {
	dst = dst[:0]
	v = body(v)
	if len(v) < 9 || !isText(v) || len(v) < 17+sigWidth(v)*k {
		return dst
	}
	return sigValues(dst, v, k)
}

// idOf returns the ID of record v without decoding the rest.
func idOf(v []byte, l layout) string { return string(idBytes(v, l)) }

// idBytes returns the ID of record v, aliasing v, without decoding the
// rest; nil if v is too short to hold one.
func idBytes(v []byte, l layout) []byte {
	v = body(v)
	if len(v) < 9 {
		return nil
	}
	n := 9
	if isText(v) {
		t := textLen(v, l)
		if t < 0 {
			return nil
		}
		n += t
	}
	return v[n:]
}

// textHash returns the canonical-text hash of the record v and whether v
// is a text record (without text, or too short, it returns false).
func textHash(v []byte) (uint64, bool) {
	v = body(v)
	if len(v) < 17 || !isText(v) {
		return 0, false
	}
	return binary.BigEndian.Uint64(v[9:]), true
}

// emptyText is the canonical-text hash of a text without units (words or
// characters) after canonicalization: shingle.Combine of none.
var emptyText = shingle.Combine(nil)

// isEmpty reports whether the record v is of a text with no units after
// canonicalization, which matches nothing (see Doc), whatever the method:
// its markup alone (MethodDOM) or its bytes (MethodMfonda) are not
// compared either.
func (x *Index) isEmpty(v []byte) bool {
	h, ok := textHash(v)
	return ok && h == emptyText
}

// emptyProbe reports whether a probe or record of text with canonical hash
// h is empty (see isEmpty).
func (x *Index) emptyProbe(text bool, h uint64) bool {
	return text && h == emptyText
}

// emptyDocs returns the documents of tx's snapshot with an empty text:
// those under the empty text's hash in the exact bucket and the levels.
// Cost: a lookup per such document.
func (x *Index) emptyDocs(tx *bolt.Tx) map[uint32]bool {
	ns := x.appendExact(nil, tx, tx.Bucket(bucketDocs).Cursor(), emptyText)
	if len(ns) == 0 {
		return nil
	}
	m := make(map[uint32]bool, len(ns))
	for _, n := range ns {
		m[n] = true
	}
	return m
}

// exactKey returns the key of document n with canonical-text hash h in the
// exact bucket.
func exactKey(h uint64, n uint32) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 12), h)
	return binary.BigEndian.AppendUint32(b, n)
}

// appendBandKey appends the key of band i's hash h to dst.
func appendBandKey(dst []byte, i int, h uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, byte(i)), h)
}

// setKey returns the key of hash h in the sets bucket.
func setKey(h uint64) []byte { return appendSetKey(make([]byte, 0, 8), h) }

// appendSetKey appends the key of hash h in the sets bucket to dst.
func appendSetKey(dst []byte, h uint64) []byte { return binary.BigEndian.AppendUint64(dst, h) }

// singletonPosting returns the encoding of a posting that holds document n
// alone: n, big-endian (schema 8). A posting of more documents is a
// serialized roaring bitmap, which is never 4 bytes long; so is a posting
// of one document written by schema 7 and before.
func singletonPosting(n uint32) []byte {
	return appendSingletonPosting(make([]byte, 0, singletonSize), n)
}

// singletonSize is the length of a singletonPosting.
const singletonSize = 4

// appendSingletonPosting appends singletonPosting(n) to b.
func appendSingletonPosting(b []byte, n uint32) []byte {
	return binary.BigEndian.AppendUint32(b, n)
}

// singleDoc returns the document of posting v if v is a singletonPosting.
func singleDoc(v []byte) (uint32, bool) {
	if len(v) != singletonSize {
		return 0, false
	}
	return binary.BigEndian.Uint32(v), true
}

// readPosting sets bm to the documents of posting v (of any schema). A
// roaring bitmap is read in place: bm must be cloned before it is changed
// or kept beyond the transaction. Cost: O(1) for a roaring bitmap, which
// decodes as it is read.
func readPosting(bm *roaring.Bitmap, v []byte) error {
	if n, ok := singleDoc(v); ok {
		bm.Clear()
		bm.Add(n)
		return nil
	}
	_, err := bm.FromBuffer(v)
	return err
}

// docRange yields the number and record of every document numbered from
// `from` up to `to` in tx, in order. It costs a cursor seek and a step per
// record. A damaged group of records panics with groupDamage.
func docRange(tx *bolt.Tx, from, to uint32) iter.Seq2[uint32, []byte] {
	return func(yield func(uint32, []byte) bool) {
		for n, v := range eachRecord(tx.Bucket(bucketDocs).Cursor(), from) {
			if n >= to || !yield(n, v) {
				return
			}
		}
	}
}

// bandOf returns band b of record v, if it has text and bands, or with b
// exactBand its exact hash, if it has text. A band of a compact record is
// computed (bandHasher.band).
func bandOf(v []byte, l layout, b int) (uint64, bool) {
	v = body(v)
	if len(v) < 9 || !isText(v) {
		return 0, false
	}
	p, ok := partsOf(v, l)
	if !ok {
		return 0, false
	}
	if b == exactBand {
		return binary.BigEndian.Uint64(v[9:]), true
	}
	if b >= l.bands {
		return 0, false
	}
	if p.bands >= 0 {
		return binary.BigEndian.Uint64(v[p.bands+8*b:]), true
	}
	if b < l.bh.bands && l.bh.noSigBands(shortCount(v, p)) {
		return 0, true
	}
	var sb [128]uint64
	sig, short := compactValues(sb[:0], v, p, l, b >= l.bh.bands)
	return l.bh.band(sig, short, b), true
}

// bandsOf decodes only the bands of record v: nil for a record without
// text (or too short to hold them). The bands of a compact record are
// computed (bandHasher.appendBands).
func bandsOf(v []byte, l layout) []uint64 {
	if l.bands == 0 {
		return nil
	}
	if bands := appendBandsOf(make([]uint64, 0, l.bands), v, l); len(bands) > 0 {
		return bands
	}
	return nil
}

// appendBandsOf appends the bands of record v to dst, as bandsOf returns
// them (nothing where bandsOf returns nil).
func appendBandsOf(dst []uint64, v []byte, l layout) []uint64 {
	v = body(v)
	if len(v) < 9 || !isText(v) || l.bands == 0 {
		return dst
	}
	p, ok := partsOf(v, l)
	if !ok {
		return dst
	}
	if p.bands >= 0 {
		for i := range l.bands {
			dst = append(dst, binary.BigEndian.Uint64(v[p.bands+8*i:]))
		}
		return dst
	}
	var sb [128]uint64
	sig, short := compactValues(sb[:0], v, p, l, true)
	return l.bh.appendBands(dst, sig, short)
}

// shortCount returns the number of values of the short set of text record
// v of parts p: 0 without one.
func shortCount(v []byte, p textParts) int {
	if p.short < 0 {
		return 0
	}
	return int(v[p.short])
}

// compactValues decodes, into buf's array where it fits, the signature of
// the compact text record v of parts p and, with withShort, its short
// set (nil without one): what its bands are computed from.
func compactValues(buf []uint64, v []byte, p textParts, l layout, withShort bool) (sig, short []uint64) {
	sig = sigValues(buf[:0], v, l.k)
	if withShort && p.short >= 0 {
		// Room for the short set after the signature, kept by a caller
		// that passes the returned sig back as buf.
		sig = slices.Grow(sig, int(v[p.short]))
		short = setOfWidth(sig[len(sig):len(sig):cap(sig)], v[p.short:], p.shortW)
	}
	return sig, short
}

// appendSmallPosting appends to dst the posting of docs (sorted, without
// repeats, at least two) as a roaring bitmap serializes it, run-optimized,
// when every 2^16-aligned block of numbers holds at most 3 of them: then
// each container is an array (runs would take more bytes), and the bytes
// are those of roaring's ToBytes, written without building a bitmap. It
// reports false, and appends nothing, for a posting of larger blocks.
func appendSmallPosting(dst []byte, docs []uint32) ([]byte, bool) {
	containers, run := 0, 0
	for i, n := range docs {
		if i > 0 && n>>16 == docs[i-1]>>16 {
			if run++; run > 3 {
				return dst, false
			}
			continue
		}
		containers, run = containers+1, 1
	}
	// The portable format without run containers: the cookie, the
	// number of containers, each container's key and cardinality - 1,
	// each container's offset, then each container's values.
	const cookieNoRuns = 12346
	dst = binary.LittleEndian.AppendUint32(dst, cookieNoRuns)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(containers))
	for i := 0; i < len(docs); {
		j := i + 1
		for j < len(docs) && docs[j]>>16 == docs[i]>>16 {
			j++
		}
		dst = binary.LittleEndian.AppendUint16(dst, uint16(docs[i]>>16))
		dst = binary.LittleEndian.AppendUint16(dst, uint16(j-i-1))
		i = j
	}
	off := 8 + 8*containers
	for i := 0; i < len(docs); {
		j := i + 1
		for j < len(docs) && docs[j]>>16 == docs[i]>>16 {
			j++
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(off))
		off += 2 * (j - i)
		i = j
	}
	for _, n := range docs {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(n))
	}
	return dst, true
}
