package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func readAll(t *testing.T, j *Journal) []Record {
	t.Helper()
	var got []Record
	if _, err := j.Replay(func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func sample(n int) []Record {
	var rs []Record
	for i := range n {
		if i%3 == 2 {
			rs = append(rs, Record{Op: OpDelete, ID: fmt.Sprintf("doc%d", i-1)})
			continue
		}
		rs = append(rs, Record{Op: OpAdd, ID: fmt.Sprintf("doc%d", i), Text: []byte(fmt.Sprintf("text of document %d", i))})
	}
	return rs
}

// firstAppend is the offset of the first append in a new segment: after
// its header and the batch of its size at creation.
var firstAppend = len(createdBatch(0, 0))

// createdAs returns segment b (written by Journal) as if it had been
// created with no zeros ahead of its appends, which then extended it: a
// cut of its end is then what a torn extension looks like, not a cut of
// the file.
func createdAs(b []byte) []byte {
	b = slices.Clone(b)
	copy(b, createdBatch(segmentSalt(b), int64(firstAppend)))
	return b
}

// batchesEnd returns the end of the batches of appends in a new segment.
func batchesEnd(t *testing.T, appends ...[]Record) int {
	t.Helper()
	end := firstAppend
	for _, rs := range appends {
		b, err := appendBatch(nil, rs, batchPos{}, prevSegment{})
		if err != nil {
			t.Fatal(err)
		}
		end += len(b)
	}
	return end
}

// appended makes a journal in a new directory, appends each of appends
// in turn and closes it; it returns the directory, the newest segment's
// path and that segment's bytes.
func appended(t *testing.T, appends ...[]Record) (dir, seg string, b []byte) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "x.journal")
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range appends {
		if err := j.Append(rs); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	seg = lastSegment(t, dir)
	if b, err = os.ReadFile(seg); err != nil {
		t.Fatal(err)
	}
	return dir, seg, b
}

func equal(a, b []Record) bool {
	return slices.EqualFunc(a, b, func(x, y Record) bool {
		return x.Op == y.Op && x.ID == y.ID && bytes.Equal(x.Text, y.Text)
	})
}

func TestAppendReplay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := sample(10)
	if err := j.Append(want[:4]); err != nil {
		t.Fatal(err)
	}
	if err := j.Prepare(); err != nil {
		t.Fatal(err)
	}
	if _, n, err := j.Rotate(); err != nil || n != 4 {
		t.Fatalf("Rotate sealed %d records, %v; want 4", n, err)
	}
	if err := j.Append(want[4:]); err != nil {
		t.Fatal(err)
	}
	j.Close() // as a crash would: segments left behind

	if n, err := Count(dir); err != nil || n != 10 {
		t.Fatalf("Count = %d, %v; want 10", n, err)
	}
	j, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, j); !equal(got, want) {
		t.Fatalf("replayed %v, want %v", got, want)
	}
	// Replaying twice gives the same records.
	if got := readAll(t, j); !equal(got, want) {
		t.Fatalf("second replay %v, want %v", got, want)
	}
	if err := j.Append(sample(2)); err != nil {
		t.Fatal(err)
	}
	sealed, _, err := j.Rotate()
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Remove(sealed); err != nil {
		t.Fatal(err)
	}
	if n, err := Count(dir); err != nil || n != 0 {
		t.Fatalf("Count after Remove = %d, %v; want 0", n, err)
	}
	if err := j.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal directory left after Destroy: %v", err)
	}
	if n, err := Count(dir); err != nil || n != 0 {
		t.Fatalf("Count of a missing journal = %d, %v", n, err)
	}
}

// TestRemoveKeepsNewer checks that Remove leaves the segments sealed after
// the one given, and the current one.
func TestRemoveKeepsNewer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rs := sample(9)
	j.Append(rs[:3])
	first, _, _ := j.Rotate()
	j.Append(rs[3:6])
	j.Rotate()
	j.Append(rs[6:])
	if err := j.Remove(first); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got := readAll(t, j); !equal(got, rs[3:]) {
		t.Fatalf("after Remove(first): %v, want %v", got, rs[3:])
	}
}

// lastSegment returns the path of the newest segment in dir.
func lastSegment(t *testing.T, dir string) string {
	t.Helper()
	seqs, err := segments(dir)
	if err != nil || len(seqs) == 0 {
		t.Fatalf("no segments in %s: %v", dir, err)
	}
	return filepath.Join(dir, segmentName(seqs[len(seqs)-1]))
}

// TestTornTail cuts the last record short, or damages it, as a crash in
// the middle of an append would, and checks that the records before it are
// replayed, the tail is truncated and appends go on.
func TestTornTail(t *testing.T) {
	for _, tc := range []struct {
		name string
		tear func(b []byte) []byte
	}{
		{"cut in the payload", func(b []byte) []byte { return b[:len(b)-5] }},
		{"cut in the frame", func(b []byte) []byte { return b[:len(b)-(len(b)-headerSize)%7-3] }},
		{"zeros after the end", func(b []byte) []byte { return append(b, make([]byte, 4096)...) }},
		{"last byte flipped", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
	} {
		// The file ends at the torn append, or zeros written ahead of
		// the appends follow the damage.
		for _, ahead := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/zeros ahead %v", tc.name, ahead), func(t *testing.T) {
				tornTail(t, tc.name, tc.tear, ahead)
			})
		}
	}
}

func tornTail(t *testing.T, name string, tear func([]byte) []byte, ahead bool) {
	t.Helper()
	rs := sample(6)
	dir, seg, b := appended(t, rs[:5], rs[5:])
	end := batchesEnd(t, rs[:5], rs[5:])
	if !allZero(b[end:]) || len(b) < firstAppend+minPrealloc {
		t.Fatalf("segment of %d bytes, records end at %d: want zeros after them to %d", len(b), end, firstAppend+minPrealloc)
	}
	b = b[:end]
	torn := tear(slices.Clone(b))
	file := torn
	if ahead {
		file = append(slices.Clone(torn), make([]byte, minPrealloc)...)
	} else {
		file = createdAs(file)
	}
	os.WriteFile(seg, file, 0o644)
	want := rs
	if len(torn) < len(b) || !bytes.Equal(torn[:len(b)], b) {
		want = rs[:5]
	}
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, j); !equal(got, want) {
		t.Fatalf("replayed %d records, want %d", len(got), len(want))
	}
	// The torn tail is cut off, or zeroed in a segment whose size at
	// creation must stay.
	if got, _ := os.ReadFile(seg); name != "zeros after the end" && len(torn) < len(b) {
		if good := batchesEnd(t, rs[:5]); len(got) > good && !allZero(got[good:]) {
			t.Fatalf("torn tail left: %d bytes, not zeros after byte %d", len(got), good)
		}
	}
	more := []Record{{Op: OpAdd, ID: "after", Text: []byte("crash")}}
	if err := j.Append(more); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j, _ = Open(dir)
	defer j.Close()
	if got := readAll(t, j); !equal(got, append(slices.Clone(want), more...)) {
		t.Fatalf("after an append past the torn tail: %d records, want %d", len(got), len(want)+1)
	}
}

// TestCorruptBeforeEnd checks that damage followed by good records is an
// error wrapping ErrCorrupt, not a torn tail.
func TestCorruptBeforeEnd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, _ := Open(dir)
	j.Append(sample(3))
	j.Rotate()
	j.Append(sample(3))
	j.Close()
	seqs, _ := segments(dir)
	first := filepath.Join(dir, segmentName(seqs[0]))
	b, _ := os.ReadFile(first)
	b[headerSize+10] ^= 0xff
	os.WriteFile(first, b, 0o644)
	j, _ = Open(dir)
	defer j.Close()
	_, err := j.Replay(func(Record) error { return nil })
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Replay = %v, want ErrCorrupt", err)
	}
	if _, err := Count(dir); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Count = %v, want ErrCorrupt", err)
	}
}

// TestCorruptInLastSegment checks that damage in the middle of the newest
// segment, with a good append after it, is corruption, not a torn tail:
// the records after it are not dropped, and the segment is left as it is.
func TestCorruptInLastSegment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, _ := Open(dir)
	if err := j.Append(sample(5)); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(sample(2)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	seg := lastSegment(t, dir)
	b, _ := os.ReadFile(seg)
	b[headerSize+10] ^= 0xff // in the first record
	os.WriteFile(seg, b, 0o644)
	j, _ = Open(dir)
	defer j.Close()
	if _, err := j.Replay(func(Record) error { return nil }); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Replay = %v, want ErrCorrupt", err)
	}
	if _, err := Count(dir); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Count = %v, want ErrCorrupt", err)
	}
	if after, _ := os.ReadFile(seg); len(after) != len(b) {
		t.Fatalf("the damaged segment was cut from %d to %d bytes", len(b), len(after))
	}
}

// TestZeroHeader checks that a newest segment whose size reached the disk
// before its header (all zeros) counts as cut off, not as corruption.
func TestZeroHeader(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, _ := Open(dir)
	recs := sample(3)
	if err := j.Append(recs); err != nil {
		t.Fatal(err)
	}
	j.Close()
	os.WriteFile(filepath.Join(dir, segmentName(1<<40)), make([]byte, headerSize), 0o644)
	j, _ = Open(dir)
	defer j.Close()
	if got := readAll(t, j); !equal(got, recs) {
		t.Fatalf("replayed %v, want %v", got, recs)
	}
}

// TestTornTailAndUnbornSpare checks a crash that tears an append while the
// next segment is being created: the torn tail is dropped, the spare whose
// header never reached the disk is no damage, and a spare without a header
// followed by records is.
func TestTornTailAndUnbornSpare(t *testing.T) {
	for _, spare := range [][]byte{make([]byte, headerSize), make([]byte, 4096), header(7)[:5]} {
		rs := sample(5)
		dir, seg, b := appended(t, rs[:3], rs[3:])
		end := batchesEnd(t, rs[:3], rs[3:])
		os.WriteFile(seg, createdAs(b[:end-3]), 0o644) // the last append torn
		os.WriteFile(filepath.Join(dir, segmentName(2)), spare, 0o644)
		j, _ := Open(dir)
		if got := readAll(t, j); !equal(got, rs[:3]) {
			t.Fatalf("spare of %d bytes: replayed %d records, want 3", len(spare), len(got))
		}
		j.Close()
	}
	// An unborn segment before one that holds records is damage.
	dir := filepath.Join(t.TempDir(), "x.journal")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, segmentName(1)), make([]byte, headerSize), 0o644)
	seg2, err := appendBatch(header(7), []Record{{Op: OpDelete, ID: "a"}}, batchPos{7, headerSize}, prevSegment{})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, segmentName(2)), seg2, 0o644)
	if _, err := Count(dir); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("unborn segment before records: %v, want ErrCorrupt", err)
	}
}

// TestDestroy checks that Destroy removes every segment and the directory.
func TestDestroy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, _ := Open(dir)
	for range 3 {
		j.Append(sample(2))
		j.Rotate()
	}
	if err := j.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal directory after Destroy: %v", err)
	}
}

func TestBadHeader(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	os.Mkdir(dir, 0o755)
	h := header(0)
	h[8] = 9
	os.WriteFile(filepath.Join(dir, segmentName(1)), h, 0o644)
	if _, err := Count(dir); !errors.Is(err, ErrVersion) {
		t.Fatalf("newer version: %v, want ErrVersion", err)
	}
	os.WriteFile(filepath.Join(dir, segmentName(1)), []byte("not a journal at all"), 0o644)
	if _, err := Count(dir); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("bad magic: %v, want ErrCorrupt", err)
	}
}

// TestGolden pins the byte format: a segment holding an add and a delete,
// in the format written (version 2: one batch) and in version 1 (two
// records), which is still read.
// A version 2 segment as written has zeros after its records.
func TestGolden(t *testing.T) {
	const salt = 0x5a17ed01
	rec3 := []Record{{Op: OpAdd, ID: "ad1", Text: []byte("Sunny flat, 2 rooms")}, {Op: OpDelete, ID: "ad0"},
		{Op: OpFingerprint, ID: "page7", Text: []byte{0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3}}}
	b, err := appendBatch(header(salt), rec3, batchPos{salt, headerSize}, prevSegment{})
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "segment-v3.golden")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("encoding changed:\n got %x\nwant %x", b, want)
	}
	v1, err := os.ReadFile(filepath.Join("testdata", "segment-v1.golden"))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := os.ReadFile(filepath.Join("testdata", "segment-v2.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for name, seg := range map[string][]byte{
		"version 3":                 want,
		"version 3, zeros after it": append(slices.Clone(want), make([]byte, 1000)...),
		"version 2":                 v2,
		"version 1":                 v1,
	} {
		dir := filepath.Join(t.TempDir(), "x.journal")
		os.Mkdir(dir, 0o755)
		// Two segments: damage in the first would be an error.
		os.WriteFile(filepath.Join(dir, segmentName(1)), seg, 0o644)
		os.WriteFile(filepath.Join(dir, segmentName(2)), seg, 0o644)
		j, _ := Open(dir)
		got := readAll(t, j)
		j.Close()
		rec := []Record{{Op: OpAdd, ID: "ad1", Text: []byte("Sunny flat, 2 rooms")}, {Op: OpDelete, ID: "ad0"}}
		if name == "version 3" || name == "version 3, zeros after it" {
			rec = rec3
		}
		if !equal(got, append(slices.Clone(rec), rec...)) {
			t.Errorf("golden segments (%s) replayed as %v", name, got)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add(AppendRecord(nil, &Record{Op: OpAdd, ID: "a", Text: []byte("b")}))
	f.Add(AppendRecord(nil, &Record{Op: OpDelete, ID: "id"}))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, n, err := DecodeRecord(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if n > len(b) {
			t.Fatalf("size %d > %d bytes", n, len(b))
		}
		if again := AppendRecord(nil, &r); !bytes.Equal(again, b[:n]) {
			t.Fatalf("re-encoding differs: %x vs %x", again, b[:n])
		}
	})
}

// TestPreallocate checks the zeros written ahead: appends within them leave
// the file's size alone, appends past them extend it, and a segment's
// zeros follow the size of the last one sealed.
func TestPreallocate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	size := func() int64 {
		t.Helper()
		fi, err := os.Stat(lastSegment(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	big := Record{Op: OpAdd, ID: "big", Text: bytes.Repeat([]byte("x"), 100<<10)}
	var want []Record
	for range 2 {
		if err := j.Append([]Record{big}); err != nil {
			t.Fatal(err)
		}
		want = append(want, big)
		if got := size(); got != int64(firstAppend+minPrealloc) {
			t.Fatalf("segment of %d bytes after an append within the zeros, want %d", got, firstAppend+minPrealloc)
		}
	}
	if err := j.Append([]Record{big}); err != nil { // past the zeros
		t.Fatal(err)
	}
	want = append(want, big)
	sealedSize := size()
	if sealedSize <= headerSize+minPrealloc {
		t.Fatalf("segment of %d bytes after an append past the zeros", sealedSize)
	}
	if _, n, err := j.Rotate(); err != nil || n != 3 {
		t.Fatalf("Rotate sealed %d records, %v", n, err)
	}
	// A segment prepared with no current one is sized by the last one
	// sealed.
	if err := j.Prepare(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(sample(3)); err != nil {
		t.Fatal(err)
	}
	want = append(want, sample(3)...)
	if got := size(); got != int64(firstAppend)+2*sealedSize {
		t.Fatalf("next segment of %d bytes, want the header and twice the %d bytes of the last one", got, sealedSize)
	}
	// One created by an append, with none prepared, gets the fewest
	// zeros.
	if _, _, err := j.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(sample(1)); err != nil {
		t.Fatal(err)
	}
	want = append(want, sample(1)...)
	if got := size(); got != int64(firstAppend+minPrealloc) {
		t.Fatalf("segment created by an append of %d bytes, want %d", got, firstAppend+minPrealloc)
	}
	j.Close()
	j, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, j); !equal(got, want) {
		t.Fatalf("replayed %d records, want %d", len(got), len(want))
	}
}

// TestPrepareSizesByCurrent checks that a spare prepared before the
// current segment is sealed (as the index's applier does) gets zeros
// for the size of that segment.
func TestPrepareSizesByCurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, _ := Open(dir)
	defer j.Close()
	big := Record{Op: OpAdd, ID: "big", Text: bytes.Repeat([]byte("y"), 400<<10)}
	if err := j.Append([]Record{big}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(lastSegment(t, dir))
	cur := fi.Size()
	if err := j.Prepare(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(sample(1)); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(lastSegment(t, dir))
	if want := int64(firstAppend) + 2*cur; fi.Size() != want {
		t.Fatalf("spare of %d bytes after a segment of %d, want %d", fi.Size(), cur, want)
	}
}

// TestTornAppendReordered tears an append over the zeros written ahead as
// a power loss may: any of its pages reach the disk, in any order. The
// appends before it are replayed, the torn one is dropped whatever pages
// survived, and the journal opens.
func TestTornAppendReordered(t *testing.T) {
	first := sample(3)
	var torn []Record
	for i := range 4 {
		torn = append(torn, Record{Op: OpAdd, ID: fmt.Sprintf("big%d", i), Text: bytes.Repeat([]byte{'a' + byte(i)}, 3000)})
	}
	start := batchesEnd(t, first)
	end := batchesEnd(t, first, torn)
	const page = 4096
	pages := (end + page - 1) / page
	// Each case keeps a set of the pages the torn append wrote (by index
	// from the file's start) and loses the others: they read as before it,
	// zeros (page 0 keeps the header and the first append).
	for keep := 0; keep < 1<<pages; keep++ {
		dir, seg, b := appended(t, first, torn)
		all := keep == 1<<pages-1
		for p := range pages {
			if keep&(1<<p) == 0 {
				lo, hi := max(p*page, start), min((p+1)*page, end)
				clear(b[lo:hi])
			}
		}
		os.WriteFile(seg, b, 0o644)
		j, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []Record
		if _, err := j.Replay(func(r Record) error { got = append(got, r); return nil }); err != nil {
			t.Fatalf("pages kept %b: Replay: %v", keep, err)
		}
		want := first
		if all {
			want = append(slices.Clone(first), torn...)
		}
		if !equal(got, want) {
			t.Fatalf("pages kept %b: replayed %d records, want %d", keep, len(got), len(want))
		}
		j.Close()
	}
}

// TestBadAppendScanCost checks that a torn append followed by the zeros
// ahead, with text that holds many small record lengths, is read in about
// a pass: the search for a good append after a bad one looks for batch
// headers, not for records at every byte.
func TestBadAppendScanCost(t *testing.T) {
	first := sample(3)
	tricky := []Record{{Op: OpAdd, ID: "x", Text: bytes.Repeat([]byte{0, 0, 0, 1}, 64<<10)}}
	dir, seg, b := appended(t, first, tricky)
	end := batchesEnd(t, first, tricky)
	b = append(b[:end-100], make([]byte, 16<<20)...)
	// The torn append's header lost: the search for a good append after
	// it reads its text.
	start := batchesEnd(t, first)
	clear(b[start : start+batchHeaderSize])
	os.WriteFile(seg, b, 0o644)
	t0 := time.Now()
	n, err := Count(dir)
	if err != nil || n != len(first) {
		t.Fatalf("Count = %d, %v; want %d", n, err, len(first))
	}
	t.Logf("read a torn append and 16 MiB of zeros in %v", time.Since(t0))
}

// FuzzBatchDamage builds a batch of fuzzed records and damages one byte:
// the batch decodes to its records undamaged, and to an error wrapping
// ErrCorrupt damaged.
func FuzzBatchDamage(f *testing.F) {
	f.Add("ad1", []byte("Sunny flat"), uint16(0), byte(0))
	f.Add("x", []byte{}, uint16(3), byte(0x80))
	f.Add("id", bytes.Repeat([]byte{0, 0, 0, 1}, 40), uint16(40), byte(1))
	f.Fuzz(func(t *testing.T, id string, text []byte, at uint16, flip byte) {
		if id == "" {
			return
		}
		recs := []Record{{Op: OpAdd, ID: id, Text: text}, {Op: OpDelete, ID: id}}
		pos := batchPos{salt: 99, off: 1234}
		b, err := appendBatch(nil, recs, pos, prevSegment{5, 678})
		if err != nil {
			t.Fatal(err)
		}
		b[int(at)%len(b)] ^= flip
		got, prev, n, err := decodeBatch(b, pos)
		if flip == 0 {
			if err != nil || n != len(b) || prev != (prevSegment{5, 678}) || !equal(got, recs) {
				t.Fatalf("undamaged batch: %v, %d of %d bytes, prev %v", err, n, len(b), prev)
			}
			return
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped by %#x: decoded, error %v", int(at)%len(b), flip, err)
		}
	})
}

func FuzzDecodeBatch(f *testing.F) {
	b, _ := appendBatch(nil, sample(3), batchPos{}, prevSegment{})
	f.Add(b)
	b, _ = appendBatch(nil, []Record{{Op: OpDelete, ID: "a"}}, batchPos{}, prevSegment{3, 17})
	f.Add(b)
	f.Add(append(batchMagic[:], 0, 0, 0, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, prev, n, err := decodeBatch(b, batchPos{})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := appendBatch(nil, recs, batchPos{}, prev)
		if err != nil || !bytes.Equal(again, b[:n]) {
			t.Fatalf("batch of %d bytes does not encode back to itself: %v", n, err)
		}
	})
}

// TestForgedBatchInText tears an append whose document text holds a whole
// batch, written for the offset where it lies, with the wrong salt: the
// torn append is dropped, not taken for damage followed by a good append.
func TestForgedBatchInText(t *testing.T) {
	first := sample(3)
	for _, lose := range []string{"header page", "last page"} {
		for _, salt := range []uint32{0, 1} {
			start := batchesEnd(t, first)
			// The forged batch starts 5,000 bytes into the text, which
			// starts after the torn batch's header and record frame.
			textAt := start + batchHeaderSize + 8 + 1 + 1 + 1
			forged, _ := appendBatch(nil, []Record{{Op: OpDelete, ID: "z"}}, batchPos{salt, int64(textAt + 5000)}, prevSegment{})
			text := append(append(bytes.Repeat([]byte("a"), 5000), forged...), bytes.Repeat([]byte("b"), 5000)...)
			torn := []Record{{Op: OpAdd, ID: "x", Text: text}}
			dir, seg, b := appended(t, first, torn)
			end := batchesEnd(t, first, torn)
			if lose == "header page" {
				clear(b[start:4096])
			} else {
				clear(b[(end-1)/4096*4096 : end])
			}
			os.WriteFile(seg, b, 0o644)
			j, _ := Open(dir)
			var got []Record
			if _, err := j.Replay(func(r Record) error { got = append(got, r); return nil }); err != nil {
				t.Fatalf("%s lost, forged salt %d: Replay: %v", lose, salt, err)
			}
			if !equal(got, first) {
				t.Fatalf("%s lost, forged salt %d: replayed %d records, want %d", lose, salt, len(got), len(first))
			}
			j.Close()
		}
	}
}

// TestLostTailOfSealedSegment zeroes the last append of a sealed segment,
// as a lost write would: the next segment's first append says where the
// sealed one ended, so the loss is an error, not a clean end.
func TestLostTailOfSealedSegment(t *testing.T) {
	for _, lose := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "x.journal")
		j, _ := Open(dir)
		for _, rs := range [][]Record{sample(2), sample(3)} {
			if err := j.Append(rs); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Prepare(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := j.Rotate(); err != nil {
			t.Fatal(err)
		}
		if err := j.Append(sample(1)); err != nil {
			t.Fatal(err)
		}
		j.Close()
		seqs, _ := segments(dir)
		first := filepath.Join(dir, segmentName(seqs[0]))
		if lose {
			b, _ := os.ReadFile(first)
			clear(b[batchesEnd(t, sample(2)):])
			os.WriteFile(first, b, 0o644)
		}
		n, err := Count(dir)
		switch {
		case lose && !errors.Is(err, ErrCorrupt):
			t.Fatalf("last append of a sealed segment lost: Count = %d, %v; want ErrCorrupt", n, err)
		case !lose && (err != nil || n != 6):
			t.Fatalf("Count = %d, %v; want 6", n, err)
		}
	}
}

// TestMalformedBatch checks that a batch whose checksums hold but whose
// records do not decode is corruption even at the end of the newest
// segment: it was written so, not torn.
func TestMalformedBatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	os.Mkdir(dir, 0o755)
	const salt = 3
	b, _ := appendBatch(header(salt), sample(2), batchPos{salt, headerSize}, prevSegment{})
	at := len(b)
	b = append(b, make([]byte, batchHeaderSize)...)
	payload := []byte{9, 9, 9, 9, 9} // not a record
	b = append(b, payload...)
	h := b[at : at+batchHeaderSize]
	copy(h, batchMagic[:])
	binary.LittleEndian.PutUint32(h[4:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[8:], crc32.Checksum(payload, castagnoli))
	binary.LittleEndian.PutUint32(h[28:], headerSum(h, batchPos{salt, int64(at)}))
	os.WriteFile(filepath.Join(dir, segmentName(1)), b, 0o644)
	if _, err := Count(dir); !errors.Is(err, ErrCorrupt) || !errors.Is(err, errMalformed) {
		t.Fatalf("Count = %v, want a malformed batch", err)
	}
}

// TestVersionsTogether replays a version 1 segment (an older writer's)
// followed by version 2 ones.
func TestVersionsTogether(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	os.Mkdir(dir, 0o755)
	v1, err := os.ReadFile(filepath.Join("testdata", "segment-v1.golden"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, segmentName(1)), v1, 0o644)
	j, _ := Open(dir)
	if err := j.Append(sample(3)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j, _ = Open(dir)
	defer j.Close()
	want := append([]Record{{Op: OpAdd, ID: "ad1", Text: []byte("Sunny flat, 2 rooms")}, {Op: OpDelete, ID: "ad0"}}, sample(3)...)
	if got := readAll(t, j); !equal(got, want) {
		t.Fatalf("replayed %v, want %v", got, want)
	}
}

// TestTornPastTheZeros tears an append that runs past the zeros written
// ahead, with the file's new size on the disk or its old one.
func TestTornPastTheZeros(t *testing.T) {
	first := sample(3)
	big := []Record{{Op: OpAdd, ID: "big", Text: bytes.Repeat([]byte("z"), minPrealloc+1000)}}
	for _, newSize := range []bool{false, true} {
		dir, seg, b := appended(t, first, big)
		end := batchesEnd(t, first, big)
		if len(b) != end {
			t.Fatalf("segment of %d bytes, want %d: the append should have run past the zeros", len(b), end)
		}
		if newSize {
			clear(b[end-5000 : end-1000]) // pages in the middle lost
		} else {
			b = b[:firstAppend+minPrealloc] // the old size
		}
		os.WriteFile(seg, b, 0o644)
		j, _ := Open(dir)
		if got := readAll(t, j); !equal(got, first) {
			t.Fatalf("new size %v: replayed %d records, want %d", newSize, len(got), len(first))
		}
		j.Close()
	}
}

// TestPrepareDuringAppend runs a Prepare (writing megabytes of zeros)
// while an append finds no segment to write to: the append waits for the
// prepared segment, so that segments hold appends in the order of their
// numbers, and the journal replays whatever the interleaving.
func TestPrepareDuringAppend(t *testing.T) {
	for range 5 {
		dir := filepath.Join(t.TempDir(), "x.journal")
		j, _ := Open(dir)
		big := []Record{{Op: OpAdd, ID: "big", Text: bytes.Repeat([]byte("q"), 8<<20)}}
		if err := j.Append(big); err != nil {
			t.Fatal(err)
		}
		if _, _, err := j.Rotate(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- j.Prepare() }()
		time.Sleep(2 * time.Millisecond) // most often, Prepare is writing its zeros now
		next := sample(2)
		if err := j.Append(next); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if _, _, err := j.Rotate(); err != nil {
			t.Fatal(err)
		}
		last := sample(1)
		if err := j.Append(last); err != nil {
			t.Fatal(err)
		}
		j.Close()
		j, _ = Open(dir)
		want := append(append(slices.Clone(big), next...), last...)
		if got := readAll(t, j); !equal(got, want) {
			t.Fatalf("replayed %d records, want %d in order", len(got), len(want))
		}
		j.Close()
	}
}

// TestMissingMiddleSegment deletes a sealed segment between two others:
// the next one's first append names it, so the gap is an error even when
// the segments around it end at the same offset.
func TestMissingMiddleSegment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, _ := Open(dir)
	for range 3 {
		if err := j.Append(sample(3)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := j.Rotate(); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	seqs, _ := segments(dir)
	if n, err := Count(dir); err != nil || n != 9 {
		t.Fatalf("Count = %d, %v; want 9", n, err)
	}
	os.Remove(filepath.Join(dir, segmentName(seqs[1])))
	if _, err := Count(dir); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("middle segment missing: Count = %v, want ErrCorrupt", err)
	}
}

// TestAppendsWaitForPrepare holds a Prepare in flight while two appends
// need a segment: both wait, the first takes the prepared segment, the
// second writes after it, and no segment is skipped or left out.
func TestAppendsWaitForPrepare(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, _ := Open(dir)
	defer j.Close()
	if err := j.Append(sample(2)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Rotate(); err != nil {
		t.Fatal(err)
	}
	// What Prepare does before it creates the file.
	j.mu.Lock()
	seq := j.nextSeq
	j.nextSeq++
	j.preparing = true
	j.mu.Unlock()
	errs := make(chan error, 2)
	for i := range 2 {
		go func() { errs <- j.Append([]Record{{Op: OpDelete, ID: fmt.Sprint("w", i)}}) }()
	}
	time.Sleep(10 * time.Millisecond) // both appends are waiting, most often
	// What Prepare does once the file is there.
	f, salt, start, err := j.create(seq, minPrealloc)
	if err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	j.preparing = false
	j.prepared.Broadcast()
	j.spare, j.spareSeq, j.spareSalt, j.spareStart = f, seq, salt, start
	j.mu.Unlock()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := j.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(sample(1)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	seqs, _ := segments(dir)
	if len(seqs) != 3 {
		t.Fatalf("segments %v, want 3", seqs)
	}
	n, err := Count(dir)
	if err != nil || n != 5 {
		t.Fatalf("Count = %d, %v; want 5", n, err)
	}
}

// TestEmptySegmentInChain leaves an empty segment (as a creation whose
// removal did not reach the disk would) between two that hold appends:
// it is no link of the chain, and replay goes on.
func TestEmptySegmentInChain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x.journal")
	j, _ := Open(dir)
	if err := j.Append(sample(3)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Rotate(); err != nil {
		t.Fatal(err)
	}
	// The next number, taken by a creation that failed.
	j.mu.Lock()
	left := j.nextSeq
	j.nextSeq++
	j.mu.Unlock()
	if err := j.Append(sample(2)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	f, _, _, err := j.create(left, minPrealloc)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if seqs, _ := segments(dir); len(seqs) != 3 {
		t.Fatalf("segments %v, want 3", seqs)
	}
	if n, err := Count(dir); err != nil || n != 5 {
		t.Fatalf("Count = %d, %v; want 5", n, err)
	}
}

// TestCutSegment cuts a segment's file short, as a careless copy or a
// damaged disk does (an append never shortens a segment): Replay fails
// with ErrCorrupt rather than drop the appends after the cut as a torn
// tail, while a short newest segment that holds no append (a crash while
// it was being created) is no damage.
func TestCutSegment(t *testing.T) {
	rs := sample(40)
	var appends [][]Record
	for i := 0; i < len(rs); i += 4 {
		appends = append(appends, rs[i:i+4])
	}
	for _, cut := range []string{"half", "in the first append", "after the first append"} {
		t.Run(cut, func(t *testing.T) {
			dir, seg, b := appended(t, appends...)
			end := batchesEnd(t, appends...)
			var at int
			switch cut {
			case "half":
				at = end / 2
			case "in the first append":
				at = firstAppend + 10
			case "after the first append":
				at = batchesEnd(t, appends[0])
			}
			os.WriteFile(seg, b[:at], 0o644)
			j, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			n, err := j.Replay(func(Record) error { return nil })
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "cut off") {
				t.Fatalf("Replay of a segment cut at byte %d of %d: %d records, %v; want ErrCorrupt, cut off", at, len(b), n, err)
			}
			if c, err := Count(dir); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Count: %d, %v; want ErrCorrupt", c, err)
			}
		})
	}
	// A segment cut to a few bytes of its header, with a spare after it:
	// only the newest segment may have lost its header.
	t.Run("header, spare after", func(t *testing.T) {
		dir, seg, b := appended(t, appends...)
		os.WriteFile(seg, b[:10], 0o644)
		spare := createdBatch(9, int64(firstAppend+minPrealloc))
		spare = append(spare, make([]byte, minPrealloc)...)
		os.WriteFile(filepath.Join(dir, segmentName(2)), spare, 0o644)
		if c, err := Count(dir); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Count: %d, %v; want ErrCorrupt", c, err)
		}
	})
	// The newest segment, created but cut while its zeros were written:
	// a crash in Prepare.
	t.Run("creation cut", func(t *testing.T) {
		dir, _, _ := appended(t, appends[:2]...)
		spare := createdBatch(9, int64(firstAppend+minPrealloc))
		spare = append(spare, make([]byte, 4096)...)
		os.WriteFile(filepath.Join(dir, segmentName(2)), spare, 0o644)
		if c, err := Count(dir); err != nil || c != 8 {
			t.Fatalf("Count: %d, %v; want 8 records", c, err)
		}
	})
}

// TestSalvage damages a journal in the middle of a segment and cuts
// another, and checks that Salvage passes on every record of the intact
// batches, in order, and counts the damage.
func TestSalvage(t *testing.T) {
	rs := sample(30)
	dir, seg, b := appended(t, rs[:10], rs[10:20], rs[20:])
	mid := batchesEnd(t, rs[:10]) + 40 // inside the second append
	b[mid] ^= 0xff
	os.WriteFile(seg, b, 0o644)
	if _, err := Count(dir); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Count of a damaged journal: %v, want ErrCorrupt", err)
	}
	var got []Record
	st, err := Salvage(dir, func(r Record) error { got = append(got, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(rs[:10]), rs[20:]...)
	if !equal(got, want) || st.Records != 20 || st.Damaged != 1 || st.Dropped != int64(batchesEnd(t, rs[:10], rs[10:20])-batchesEnd(t, rs[:10])) {
		t.Fatalf("Salvage: %d records (%v), want the 20 of the first and last appends", len(got), st)
	}
	// Cut: the records before the cut.
	os.WriteFile(seg, b[:batchesEnd(t, rs[:10])], 0o644)
	got = nil
	st, err = Salvage(dir, func(r Record) error { got = append(got, r); return nil })
	if err != nil || !equal(got, rs[:10]) || st.Cut == 0 {
		t.Fatalf("Salvage of a cut segment: %d records, %v, %v", len(got), st, err)
	}
}
