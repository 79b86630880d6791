package index

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestRecordLayout pins the encoding of document records: without a set
// method a record is exactly fingerprint | flags | exact | sig | bands | ID,
// as indexes already on disk hold it; a set method adds a count byte and
// the set before the ID.
func TestRecordLayout(t *testing.T) {
	be := binary.BigEndian
	r := record{id: "doc", fp: 0x0102030405060708, text: true, exact: 9, sig: []uint64{10, 11}, bands: []uint64{12}}
	var want []byte
	for _, v := range []uint64{r.fp} {
		want = be.AppendUint64(want, v)
	}
	want = append(want, flagText)
	for _, v := range []uint64{9, 10, 11, 12} {
		want = be.AppendUint64(want, v)
	}
	want = append(want, "doc"...)
	mh := layout{k: 2, bands: 1}
	if got := encodeRecord(nil, &r, mh); string(got) != string(want) {
		t.Fatalf("MinHash record %x, want %x", got, want)
	}
	plain := record{id: "p", fp: 7}
	if got := encodeRecord(nil, &plain, layout{}); string(got) != "\x00\x00\x00\x00\x00\x00\x00\x07\x00p" {
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
		if _, err := decodeRecord(v[:len(v)-len(tc.r.id)-1], tc.l, true); tc.r.text && len(tc.r.set) > 0 && err == nil {
			t.Fatalf("truncated record decoded")
		}
	}
}

// TestSingletonPosting checks the hand-made posting of one document
// against roaring's own encoding, byte for byte.
func TestSingletonPosting(t *testing.T) {
	for _, n := range []uint32{0, 1, 7, 65535, 65536, 1 << 20, 123456789, 1<<32 - 1} {
		bm := roaring.BitmapOf(n)
		bm.RunOptimize()
		want, err := bm.ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		if got := singletonPosting(n); !bytes.Equal(got, want) {
			t.Errorf("singletonPosting(%d) = %x, roaring %x", n, got, want)
		}
	}
}
