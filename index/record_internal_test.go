package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestRecordLayout pins the encoding of document records: without a set
// method a record is exactly fingerprint | flags | exact | sig (4 bytes a
// value, the low 32 bits: flagSig32, schema 8) | bands | ID | CRC-32C of
// the rest (schema 6, flagCRC in the flags); a set method adds a count
// byte and the set before the ID. Records of older schemas, without the
// checksum or with 8 bytes a signature value, still decode; a record
// whose checksum fails is ErrCorrupt.
func TestRecordLayout(t *testing.T) {
	be := binary.BigEndian
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
	var want []byte // as schema 8 writes it
	want = be.AppendUint64(want, r.fp)
	want = append(want, flagText|flagSig32|flagCRC)
	want = be.AppendUint64(want, 9)
	want = be.AppendUint32(be.AppendUint32(want, 10), 11)
	want = append(be.AppendUint64(want, 12), "doc"...)
	want = be.AppendUint32(want, crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli)))
	// As schema 6 and 7 wrote it: 8 bytes a signature value.
	v7 := bytes.Clone(old)
	v7[8] |= flagCRC
	v7 = be.AppendUint32(v7, crc32.Checksum(v7, crc32.MakeTable(crc32.Castagnoli)))
	mh := layout{k: 2, bands: 1}
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
	plain := record{id: "p", fp: 7}
	if got := encodeRecord(nil, &plain, layout{}); string(got[:len(got)-4]) != "\x00\x00\x00\x00\x00\x00\x00\x07\x80p" {
		t.Fatalf("precomputed record %x", got)
	}
	for _, tc := range []struct {
		r record
		l layout
	}{
		{r, mh},
		{plain, layout{}},
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
