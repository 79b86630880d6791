package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestRecordLayout pins the encoding of document records. Without a set
// method a record of schema 13 is exactly fingerprint | flags | exact |
// sig (1 byte a value, 8 bits: flagCompact and flagSig8; 2 bytes, 16
// bits, without flagSig8 in an index created by schema 10 to 12) | [count | short
// set, 4 bytes a value] | ID | CRC-32C of the rest (schema 6, flagCRC in
// the flags), its bands computed from the signature and the short set; a
// record of a wide index (schema 8 and 9) has 4 bytes a signature value
// (flagSig32), its bands and 8-byte short-set values; a set method adds a
// count byte and the set before the short set. Records of older schemas,
// without the checksum or with 8 bytes a signature value, still decode; a
// record whose checksum fails is ErrCorrupt.
func TestRecordLayout(t *testing.T) {
	be := binary.BigEndian
	crc := func(b []byte) []byte { return be.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli))) }
	r := record{id: "doc", fp: 0x0102030405060708, text: true, exact: 9, sig: []uint64{10, 11}, bands: []uint64{12}}
	var old []byte // as schema 5 wrote it
	for _, v := range []uint64{r.fp} {
		old = be.AppendUint64(old, v)
	}
	old = append(old, flagText)
	for _, v := range []uint64{9, 10, 11, 12} {
		old = be.AppendUint64(old, v)
	}
	old = append(old, "doc"...)
	var want []byte // as schema 8 and 9 write it
	want = be.AppendUint64(want, r.fp)
	want = append(want, flagText|flagSig32|flagCRC)
	want = be.AppendUint64(want, 9)
	want = be.AppendUint32(be.AppendUint32(want, 10), 11)
	want = crc(append(be.AppendUint64(want, 12), "doc"...))
	// As schema 6 and 7 wrote it: 8 bytes a signature value.
	v7 := bytes.Clone(old)
	v7[8] |= flagCRC
	v7 = crc(v7)
	mh := layout{k: 2, bands: 1, wide: true}
	if got := encodeRecord(nil, &r, mh); string(got) != string(want) {
		t.Fatalf("MinHash record %x, want %x", got, want)
	}
	for _, v := range [][]byte{old, v7} {
		if got, err := decodeRecord(v, mh, true); err != nil || !reflect.DeepEqual(got, r) {
			t.Fatalf("a record of an older schema (%x): %+v, %v", v, got, err)
		}
		if got := sigOf(nil, v, 2); !reflect.DeepEqual(got, r.sig) {
			t.Fatalf("sigOf(%x) = %v", v, got)
		}
		if got := bandsOf(v, mh); !reflect.DeepEqual(got, r.bands) {
			t.Fatalf("bandsOf(%x) = %v", v, got)
		}
	}
	// Only the low 32 bits of a signature value are stored.
	big := r
	big.sig = []uint64{1<<40 | 10, 11}
	if got := encodeRecord(nil, &big, mh); string(got) != string(want) {
		t.Fatalf("MinHash record of a signature of 64-bit values %x, want %x", got, want)
	}

	// Schema 13: 8-bit signature values (flagSig8), 32-bit short-set
	// values, the bands computed from them (two of the signature, three
	// of the short set); schema 10 to 12: 16-bit signature values, without
	// flagSig8.
	bh := smallBandHasher(t, false)
	var cl layout
	var cr record
	for _, sig16 := range []bool{true, false} {
		cl = layout{k: 4, bands: 5, bh: bh, sig16: sig16}
		cr = record{id: "doc", fp: r.fp, text: true, exact: 9, sig: []uint64{10, 11, 0xff, 0}, short: []uint64{3, 1 << 31}}
		if sig16 {
			cr.sig[2] = 0xffff
		}
		cr.bands = bh.appendBands(nil, cr.sig, cr.short)
		var cwant []byte
		cwant = be.AppendUint64(cwant, r.fp)
		if sig16 {
			cwant = append(cwant, flagText|flagShort|flagCompact|flagCRC)
		} else {
			cwant = append(cwant, flagText|flagShort|flagCompact|flagSig8|flagCRC)
		}
		cwant = be.AppendUint64(cwant, 9)
		for _, v := range cr.sig {
			if sig16 {
				cwant = be.AppendUint16(cwant, uint16(v))
			} else {
				cwant = append(cwant, byte(v))
			}
		}
		cwant = append(cwant, 2)
		cwant = be.AppendUint32(be.AppendUint32(cwant, 3), 1<<31)
		cwant = crc(append(cwant, "doc"...))
		if got := encodeRecord(nil, &cr, cl); string(got) != string(cwant) {
			t.Fatalf("compact record %x, want %x", got, cwant)
		}
		if got, err := decodeRecord(cwant, cl, true); err != nil || !reflect.DeepEqual(got, cr) {
			t.Fatalf("compact record %x: %+v, %v, want %+v", cwant, got, err, cr)
		}
		if got := bandsOf(cwant, cl); !reflect.DeepEqual(got, cr.bands) {
			t.Fatalf("bandsOf(%x) = %v, want %v", cwant, got, cr.bands)
		}
		for b, h := range cr.bands {
			if h&^bh.keep != 0 || h == 0 || bh.keep != bandHashMask(14, groupsLarge) { // the default ExpectedDocs
				t.Fatalf("band %d: %016x, want the bits of %016x", b, h, bh.keep)
			}
			if got, ok := bandOf(cwant, cl, b); !ok || got != h {
				t.Fatalf("bandOf(%d) = %016x, %v, want %016x", b, got, ok, h)
			}
		}
		if got := shortOf(nil, cwant, cl); !reflect.DeepEqual(got, cr.short) {
			t.Fatalf("shortOf(%x) = %v", cwant, got)
		}
		noShort := cr
		noShort.short = nil
		noShort.bands = bh.appendBands(nil, cr.sig, nil)
		if got, err := decodeRecord(encodeRecord(nil, &noShort, cl), cl, true); err != nil || !reflect.DeepEqual(got, noShort) || got.bands[4] != 0 {
			t.Fatalf("compact record without a short set: %+v, %v, want %+v", got, err, noShort)
		}
	}
	// A compact record of the other signature width is not the index's.
	for _, sig16 := range []bool{false, true} {
		from, to := cl, cl
		from.sig16, to.sig16 = sig16, !sig16
		if _, err := decodeRecord(encodeRecord(nil, &cr, from), to, true); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("a record of 16-bit values %v read as the other: %v, want ErrCorrupt", sig16, err)
		}
	}
	// Schema 14: 16-bit short-set values (flagShort16); a text whose short
	// set has at most (ShortUnits+1)/2 values (2 here) has no signature
	// bands, one with more has them.
	bh14 := smallBandHasher14(t)
	cl14 := layout{k: 4, bands: 5, bh: bh14, short16: true}
	cr14 := record{id: "doc", fp: r.fp, text: true, exact: 9, sig: []uint64{10, 11, 0xff, 0}, short: []uint64{3, 0xffff}}
	cr14.bands = bh14.appendBands(nil, cr14.sig, cr14.short)
	var want14 []byte
	want14 = be.AppendUint64(want14, r.fp)
	want14 = append(want14, flagText|flagShort|flagCompact|flagSig8|flagShort16|flagCRC)
	want14 = be.AppendUint64(want14, 9)
	want14 = append(want14, 10, 11, 0xff, 0, 2)
	want14 = be.AppendUint16(be.AppendUint16(want14, 3), 0xffff)
	want14 = crc(append(want14, "doc"...))
	if got := encodeRecord(nil, &cr14, cl14); string(got) != string(want14) {
		t.Fatalf("schema 14 record %x, want %x", got, want14)
	}
	if got, err := decodeRecord(want14, cl14, true); err != nil || !reflect.DeepEqual(got, cr14) {
		t.Fatalf("schema 14 record %x: %+v, %v, want %+v", want14, got, err, cr14)
	}
	three := cr14
	three.short = []uint64{3, 4, 0xffff}
	three.bands = bh14.appendBands(nil, three.sig, three.short)
	for _, c := range []struct {
		r      record
		sigled bool
	}{{cr14, false}, {three, true}} {
		v := encodeRecord(nil, &c.r, cl14)
		for b, h := range c.r.bands {
			if (h != 0) != (b >= 2 || c.sigled) {
				t.Fatalf("short set %v: band %d %016x", c.r.short, b, h)
			}
			if got, ok := bandOf(v, cl14, b); !ok || got != h {
				t.Fatalf("short set %v: bandOf(%d) = %016x, %v, want %016x", c.r.short, b, got, ok, h)
			}
		}
		if got := bandsOf(v, cl14); !reflect.DeepEqual(got, c.r.bands) {
			t.Fatalf("short set %v: bandsOf = %v, want %v", c.r.short, got, c.r.bands)
		}
		var l lazyRecord
		l.reset(body(v), cl14, nil, 0)
		for b, h := range c.r.bands {
			if got := l.band(b); got != h {
				t.Fatalf("short set %v: lazy band %d = %016x, want %016x", c.r.short, b, got, h)
			}
		}
		// With a bandCache: the first record computes the bands and
		// keeps them; a second one of the same document reads them,
		// from its first band on; the cache holds them as computed.
		cache := newBandCache(8, cl14)
		for round := range 3 {
			l.reset(body(v), cl14, cache, 3)
			for b := range c.r.bands {
				if round == 2 {
					b = len(c.r.bands) - 1 - b // the last band first
				}
				if got := l.band(b); got != c.r.bands[b] {
					t.Fatalf("short set %v, round %d: lazy band %d = %016x, want %016x", c.r.short, round, b, got, c.r.bands[b])
				}
				if round > 0 && len(l.bands) != len(c.r.bands) {
					t.Fatalf("short set %v, round %d: the bands were not read whole from the cache", c.r.short, round)
				}
			}
			if got, _ := cache.appendBands(nil, 3); !reflect.DeepEqual(got, c.r.bands) {
				t.Fatalf("short set %v, round %d: the cache holds %v, want %v", c.r.short, round, got, c.r.bands)
			}
		}
		if cache.has(2) || cache.has(100) {
			t.Fatal("the cache holds documents never put")
		}
		// A record that has its signature's bands reads the rest from
		// the cache if a worker put them all since (here made up, to
		// tell them from computed ones).
		made := slices.Clone(c.r.bands)
		for b := cl14.bh.bands; b < len(made); b++ {
			made[b] ^= 1 << 63
		}
		var m lazyRecord
		m.reset(body(v), cl14, cache, 5)
		m.band(0)
		if len(m.bands) != cl14.bh.bands {
			t.Fatalf("short set %v: %d bands computed for band 0, want the signature's %d", c.r.short, len(m.bands), cl14.bh.bands)
		}
		cache.put(5, made)
		for b := range made {
			if got := m.band(b); got != made[b] {
				t.Fatalf("short set %v: band %d after the cache got it = %016x, want %016x", c.r.short, b, got, made[b])
			}
		}
	}
	// flagShort16 in an index of 32-bit short sets, its absence in one of
	// 16-bit ones, and flagShort16 without a short set are corrupt.
	for _, c := range []struct {
		r    record
		from layout
		to   layout
	}{{cr14, cl14, cl}, {cr, cl, cl14}} {
		if _, err := decodeRecord(encodeRecord(nil, &c.r, c.from), c.to, true); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("a record of short16 %v read as one of %v: %v, want ErrCorrupt", c.from.short16, c.to.short16, err)
		}
	}
	if v := encodeRecord(nil, &record{id: "n", fp: 1, text: true, exact: 9, sig: cr14.sig}, cl14); true {
		v = v[:len(v)-4]
		v[8] |= flagShort16
		if _, err := decodeRecord(crc(v), cl14, true); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("flagShort16 without a short set: %v, want ErrCorrupt", err)
		}
	}

	// flagSig8 without flagCompact, and flagSig32 with it, are no
	// record's flags.
	for _, f := range []byte{flagText | flagSig8, flagText | flagSig32 | flagCompact, flagText | flagSig32 | flagCompact | flagSig8} {
		v := encodeRecord(nil, &cr, cl)
		v = v[:len(v)-4]
		v[8] = f | flagShort | flagCRC
		if _, err := decodeRecord(crc(v), cl, true); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("flags %#x: %v, want ErrCorrupt", f, err)
		}
	}
	plain := record{id: "p", fp: 7}
	if got := encodeRecord(nil, &plain, layout{}); string(got[:len(got)-4]) != "\x00\x00\x00\x00\x00\x00\x00\x07\x80p" {
		t.Fatalf("precomputed record %x", got)
	}
	for _, tc := range []struct {
		r record
		l layout
	}{
		{r, mh},
		{cr, cl},
		{plain, layout{}},
		{cr14, cl14},
		{record{id: "s", fp: 1, text: true, exact: 2, set: []uint64{3, 4, 5}}, layout{sets: true}},
		{record{id: "e", fp: 1, text: true, exact: 2}, layout{sets: true}},
	} {
		v := encodeRecord(nil, &tc.r, tc.l)
		got, err := decodeRecord(v, tc.l, true)
		if err != nil || !reflect.DeepEqual(got, tc.r) && !(len(got.set) == 0 && len(tc.r.set) == 0 && got.id == tc.r.id) {
			t.Fatalf("decode %+v: %+v, %v", tc.r, got, err)
		}
		if id := idOf(v, tc.l); id != tc.r.id {
			t.Fatalf("idOf %q, want %q", id, tc.r.id)
		}
		if set := recordSet(nil, v, tc.l); len(set) != len(tc.r.set) {
			t.Fatalf("recordSet %v, want %v", set, tc.r.set)
		}
		// Any flipped bit: ErrCorrupt from a decode, a panic of the
		// partial readers, which transactions turn into ErrCorrupt.
		for i := range v {
			bad := bytes.Clone(v)
			bad[i] ^= 0x10
			if i == 8 && bad[8]&flagCRC == 0 {
				continue // the flag itself: read as a record without a checksum
			}
			if _, err := decodeRecord(bad, tc.l, true); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d flipped: decode %v, want ErrCorrupt", i, err)
			}
			func() {
				defer func() {
					if _, ok := recover().(corruptRecord); !ok {
						t.Fatalf("byte %d flipped: idOf did not panic with corruptRecord", i)
					}
				}()
				idOf(bad, tc.l)
			}()
		}
	}
}

// TestSingletonPosting checks the hand-made posting of one document
// against roaring's own encoding, byte for byte.
func TestSingletonPosting(t *testing.T) {
	for _, n := range []uint32{0, 1, 7, 65535, 65536, 1 << 20, 123456789, 1<<32 - 1} {
		v := singletonPosting(n)
		if len(v) != 4 || binary.BigEndian.Uint32(v) != n {
			t.Errorf("singletonPosting(%d) = %x, want its 4 bytes big-endian", n, v)
		}
		// Schema 7 and before wrote the roaring bitmap; both read as {n}.
		old := roaring.BitmapOf(n)
		old.RunOptimize()
		ob, err := old.ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range [][]byte{v, ob} {
			var bm roaring.Bitmap
			if err := readPosting(&bm, p); err != nil || bm.GetCardinality() != 1 || !bm.Contains(n) {
				t.Errorf("readPosting(%x) = %v, %v; want {%d}", p, bm.ToArray(), err, n)
			}
		}
		if _, ok := singleDoc(ob); ok {
			t.Errorf("the roaring bitmap of %d reads as a singleton posting", n)
		}
	}
}

// BenchmarkRecordChecksum measures the check of a record's checksum that
// every read of a record makes (body): a text record of the default
// settings (MinHash K 84, 14 bands).
func BenchmarkRecordChecksum(b *testing.B) {
	r := record{id: "https://example.com/some/page.html", fp: 1, text: true, exact: 2, sig: make([]uint64, 84), bands: make([]uint64, 14)}
	v := encodeRecord(nil, &r, layout{k: 84, bands: 14})
	b.SetBytes(int64(len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if len(body(v)) != len(v)-4 {
			b.Fatal("checksum")
		}
	}
}

// smallBandHasher returns the band hasher of an index of 4 MinHash values
// in 2 bands and 3 short-text bands of 2 values, wide or not.
func smallBandHasher(tb testing.TB, wide bool) *bandHasher {
	return smallBandHasherOf(tb, &Settings{MinHashK: 4, Bands: 2, ShortBands: 3, ShortRows: 2, wide: wide, shortV1: true})
}

// smallBandHasher14 returns the band hasher of schema 14's short-text
// layer for texts of at most 3 units (so a short set of at most 2 values
// has no signature bands), with smallBandHasher's bands.
func smallBandHasher14(tb testing.TB) *bandHasher {
	return smallBandHasherOf(tb, &Settings{MinHashK: 4, Bands: 2, ShortUnits: 3, ShortBands: 3, ShortRows: 2})
}

// smallBandHasherOf returns the band hasher of settings s.
func smallBandHasherOf(tb testing.TB, s *Settings) *bandHasher {
	tb.Helper()
	st, err := s.normalize()
	if err != nil {
		tb.Fatal(err)
	}
	bh, err := newBandHasher(&st, st.Text.Scheme)
	if err != nil {
		tb.Fatal(err)
	}
	return bh
}

// FuzzDecodeRecord decodes arbitrary bytes as a record of an index with
// MinHash and the short-text layer, wide and compact (8- and 16-bit
// signature values), and of one with a
// set method: a decode fails with ErrCorrupt or succeeds, and the partial
// readers of a record that decodes give what the decode gave.
func FuzzDecodeRecord(f *testing.F) {
	layouts := []layout{
		{k: 4, bands: 5, bh: smallBandHasher(f, false)},
		{k: 4, bands: 5, bh: smallBandHasher(f, false), sig16: true},
		{k: 4, bands: 5, bh: smallBandHasher(f, true), wide: true},
		{k: 4, bands: 5, bh: smallBandHasher14(f), short16: true},
		{sets: true},
	}
	r := record{id: "doc", fp: 1, text: true, exact: 9, sig: []uint64{10, 11, 12, 13}, short: []uint64{3, 1 << 31}, set: []uint64{5, 6}}
	for _, l := range layouts {
		c := r
		if l.k == 0 {
			c.sig, c.short = nil, nil
		} else {
			c.set = nil
			c.bands = l.bh.appendBands(nil, c.sig, c.short)
		}
		f.Add(encodeRecord(nil, &c, l))
	}
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x07\x00p"))
	f.Fuzz(func(t *testing.T, v []byte) {
		for _, l := range layouts {
			got, err := decodeRecord(v, l, true)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("decode %x: %v, want ErrCorrupt", v, err)
				}
				continue
			}
			if id := idOf(v, l); id != got.id {
				t.Fatalf("idOf(%x) = %q, decode %q", v, id, got.id)
			}
			if !got.text {
				continue
			}
			if l.k > 0 {
				if s := sigOf(nil, v, l.k); !reflect.DeepEqual(s, got.sig) {
					t.Fatalf("sigOf(%x) = %v, decode %v", v, s, got.sig)
				}
				if b := bandsOf(v, l); !reflect.DeepEqual(b, got.bands) {
					t.Fatalf("bandsOf(%x) = %v, decode %v", v, b, got.bands)
				}
				for i, h := range got.bands {
					if b, ok := bandOf(v, l, i); !ok || b != h {
						t.Fatalf("bandOf(%x, %d) = %x, %v, decode %x", v, i, b, ok, h)
					}
				}
			}
			if s := shortOf(nil, v, l); len(s) != len(got.short) || len(s) > 0 && !reflect.DeepEqual(s, got.short) {
				t.Fatalf("shortOf(%x) = %v, decode %v", v, s, got.short)
			}
			if s := recordSet(nil, v, l); len(s) != len(got.set) || len(s) > 0 && !reflect.DeepEqual(s, got.set) {
				t.Fatalf("recordSet(%x) = %v, decode %v", v, s, got.set)
			}
		}
	})
}
