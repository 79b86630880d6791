package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
)

// legacyBands opens, at path, a new index whose bands bucket has one key
// per hash, as an index created before schema 9 has.
func legacyBands(t *testing.T, path string, o *Options) *Index {
	t.Helper()
	x, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	updateFile(t, path, func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keyBandGroups) })
	if x, err = Open(path, o); err != nil {
		t.Fatal(err)
	}
	if x.groups.g >= 0 {
		t.Fatalf("band groups of width %d, want none", x.groups.g)
	}
	return x
}

// updateFile runs fn in a write transaction of the closed index file at
// path, through bbolt alone.
func updateFile(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(fn)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// bandPostings returns every posting of x's bands bucket: the documents
// of each band and hash.
func bandPostings(t *testing.T, x *Index) map[[2]uint64][]uint32 {
	t.Helper()
	got := make(map[[2]uint64][]uint32)
	err := x.view(func(tx *bolt.Tx) error {
		bad := func(k []byte, what string) { t.Errorf("band key %x: %s", k, what) }
		return x.eachBandPosting(tx.Bucket(bucketBands), bad, func(b int, h uint64, p []byte) error {
			var bm roaring.Bitmap
			if err := readPosting(&bm, p); err != nil {
				return err
			}
			got[[2]uint64{uint64(b), h}] = bm.ToArray()
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBandGroupsAgreeWithKeys makes the same adds, replaces and deletes
// in an index with grouped band postings (narrow groups, so that each
// holds many hashes) and in one with a key per hash, and checks that both
// hold the same postings, pass Check, and report the same pairs, with the
// in-memory levels merged after every commit and every few commits.
func TestBandGroupsAgreeWithKeys(t *testing.T) {
	for _, recent := range []int{-1, 5} {
		t.Run(fmt.Sprint("recent ", recent), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			o := func() *Options {
				return &Options{Log: directLogInternal, NoSync: true, RecentBands: recent, BandFilter: true,
					Settings: &Settings{ExpectedDocs: 40}}
			}
			grouped, err := Open(filepath.Join(dir, "grouped.simidx"), o())
			if err != nil {
				t.Fatal(err)
			}
			defer grouped.Close()
			if grouped.groups.g != 1 {
				t.Fatalf("group width %d, want 1", grouped.groups.g)
			}
			keyed := legacyBands(t, filepath.Join(dir, "keyed.simidx"), o())
			defer keyed.Close()

			rng := rand.New(rand.NewPCG(5, uint64(recent+2)))
			base := make([][]string, 8)
			for i := range base {
				for range 12 + rng.IntN(40) {
					base[i] = append(base[i], fmt.Sprintf("w%d", rng.IntN(3000)))
				}
			}
			text := func() []byte {
				w := slices.Clone(base[rng.IntN(len(base))])
				for range rng.IntN(3) {
					w[rng.IntN(len(w))] = fmt.Sprintf("e%d", rng.IntN(100))
				}
				return []byte(strings.Join(w, " "))
			}
			pairs := func(x *Index) map[[2]string]float64 {
				got := make(map[[2]string]float64)
				err := x.Pairs(context.Background(), nil, func(p Pair) error {
					got[[2]string{p.A, p.B}] = p.Similarity
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			for step := range 150 {
				id := fmt.Sprint(rng.IntN(60))
				var err1, err2 error
				switch r := rng.IntN(10); {
				case r < 8:
					d := Doc{ID: id, Text: text()}
					err1, err2 = grouped.Add(d), keyed.Add(d)
				default:
					_, err1 = grouped.Delete(id)
					_, err2 = keyed.Delete(id)
				}
				if err1 != nil || err2 != nil {
					t.Fatalf("step %d: %v, %v", step, err1, err2)
				}
				if step%10 != 9 {
					continue
				}
				for _, x := range []*Index{grouped, keyed} {
					if err := x.Check(); err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
				}
				g, k := bandPostings(t, grouped), bandPostings(t, keyed)
				if !maps.EqualFunc(g, k, slices.Equal) {
					t.Fatalf("step %d: postings differ: %d grouped, %d keyed", step, len(g), len(k))
				}
				if pg, pk := pairs(grouped), pairs(keyed); !maps.Equal(pg, pk) {
					t.Fatalf("step %d: pairs differ:\n%v\n%v", step, pg, pk)
				} else if step == 149 && len(pg) == 0 {
					t.Fatal("no pairs")
				}
			}
			st, err := grouped.Stats()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d documents", st.Docs)
		})
	}
}

// TestBandGroupEntries checks the decoding of group values: the hashes of
// the entries, whole (wide) or after the group's bits, read back as they
// were written for every group width, the postings of one document and of
// several, untagged, tagged (schema 13) and listed (schema 14), the
// entries in order, and the damage it reports.
func TestBandGroupEntries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	several := slices.Clone(appendSmallPostingT(t, 3, 70000, 1<<31))
	for _, wide := range []bool{true, false} {
		for _, form := range []byte{groupsUntagged, groupsTagged, groupsListed, groupsLarge} {
			if wide && form != groupsUntagged {
				continue
			}
			tagged := form != groupsUntagged
			single := singletonSize + 1 // a length byte and the number
			if tagged {
				single = 1 // 7<<1 | 1, one byte
			}
			for g := 1; g <= 32; g++ {
				c := groupCodecFor(g, wide, form)
				mask := uint64(bandMask)
				if tagged {
					mask = bandHashMask(g, form)
				}
				if kept := 64 - bits.TrailingZeros64(mask); !wide && g+8*c.w < kept {
					t.Fatalf("width %d: %d bytes hold %d bits of %d", g, c.w, g+8*c.w, kept)
				}
				for range 100 {
					h := rng.Uint64()
					if !wide {
						h &= mask
					}
					key := bandGroupKey(nil, 3, h, g)
					v := c.appendEntry(nil, h, singletonPosting(7))
					if len(v) != c.w+single {
						t.Fatalf("width %d, tagged %v: entry %x", g, tagged, v)
					}
					if got := c.hash(binary.BigEndian.Uint32(key[1:]), v); got != h {
						t.Fatalf("wide %v, width %d: hash %016x read back as %016x", wide, g, h, got)
					}
				}
			}
			c := groupCodecFor(16, wide, form)
			key := bandGroupKey(nil, 0, 0, 16)
			step := uint64(1)
			switch {
			case wide:
			case tagged:
				step = 1 << 24 // 40 bits of hash
			default:
				step = 1 << 16
			}
			var v []byte
			v = c.appendEntry(v, 3*step, singletonPosting(7))
			v = c.appendEntry(v, 5*step, several)
			v = c.appendEntry(v, 9*step, singletonPosting(1<<32-1))
			if p, err := c.posting(key, v, 9*step); err != nil || !bytes.Equal(p, singletonPosting(1<<32-1)) {
				t.Fatalf("tagged %v, hash 9: %x, %v", tagged, p, err)
			}
			if p, err := c.posting(key, v, 5*step); err != nil || !bytes.Equal(p, several) {
				t.Fatalf("tagged %v, hash 5: %x, %v", tagged, p, err)
			}
			if p, err := c.posting(key, v, 4*step); err != nil || p != nil {
				t.Fatalf("tagged %v, hash 4: %x, %v", tagged, p, err)
			}
			var got [][]byte
			if err := c.entries(key, v, func(_ uint64, p []byte) error { got = append(got, p); return nil }); err != nil ||
				!slices.EqualFunc(got, [][]byte{singletonPosting(7), several, singletonPosting(1<<32 - 1)}, bytes.Equal) {
				t.Fatalf("tagged %v: entries %x, %v", tagged, got, err)
			}
			bad := map[string][]byte{
				"truncated":    v[:len(v)-1],
				"out of order": c.appendEntry(slices.Clone(v), 4*step, singletonPosting(2)),
				"repeated":     c.appendEntry(slices.Clone(v), 9*step, singletonPosting(2)),
				"empty entry":  append(c.appendHash(slices.Clone(v), 10*step), 0),
			}
			if form == groupsListed {
				list := func(x ...uint64) []byte {
					b := c.appendHash(slices.Clone(v), 10*step)
					for _, y := range x {
						b = binary.AppendUvarint(b, y)
					}
					return b
				}
				bad["list truncated"] = list(1<<2|2, 5, 0)
				bad["list of 34"] = list(32<<2|2, 1, 0)
				bad["list number of 33 bits"] = list(0<<2|2, 1<<32, 0)
				bad["list beyond 32 bits"] = list(0<<2|2, 1<<32-1, 0)
				bad["bitmap truncated"] = list(8 << 2)
			}
			if tagged {
				bad["number of 33 bits"] = binary.AppendUvarint(c.appendHash(slices.Clone(v), 10*step), 1<<33|1)
				bad["posting truncated"] = binary.AppendUvarint(c.appendHash(slices.Clone(v), 10*step), 8<<1)
			}
			for name, b := range bad {
				err := c.entries(key, b, func(uint64, []byte) error { return nil })
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("wide %v, tagged %v, %s: %v, want ErrCorrupt", wide, tagged, name, err)
				}
			}
		}
	}
}

// appendEntry appends the entry of hash h whose posting holds the
// documents of posting p (a singletonPosting or a roaring bitmap), as the
// index writes it (appendDocsEntry).
func (c groupCodec) appendEntry(dst []byte, h uint64, p []byte) []byte {
	var bm roaring.Bitmap
	if err := readPosting(&bm, p); err != nil {
		panic(err)
	}
	dst, err := c.appendDocsEntry(dst, h, bm.ToArray(), &bm)
	if err != nil {
		panic(err)
	}
	return dst
}

// appendSmallPostingT returns the posting of docs, sorted, as a roaring
// bitmap of them.
func appendSmallPostingT(t *testing.T, docs ...uint32) []byte {
	t.Helper()
	p, ok := appendSmallPosting(nil, docs)
	if !ok {
		t.Fatalf("no small posting of %v", docs)
	}
	return p
}

// TestCheckBandGroups checks that Check reports a group whose entries are
// out of order, and, in a wide index, whose entries hold whole hashes, one
// that holds a hash of another group.
func TestCheckBandGroups(t *testing.T) {
	for _, c := range []struct {
		damage string
		wide   bool
	}{{"order", false}, {"order", true}, {"other group", true}} {
		t.Run(fmt.Sprintf("%s wide=%v", c.damage, c.wide), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.simidx")
			o := &Options{Log: directLogInternal, NoSync: true, RecentBands: -1, Settings: &Settings{wide: c.wide}}
			x, err := Open(path, o)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				if err := x.Add(Doc{ID: fmt.Sprint(i), Text: fmt.Appendf(nil, "document %d of a few words, with more words to fill it", i)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			gc := x.groups
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			updateFile(t, path, func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketBands)
				k, v := b.Cursor().First()
				var h uint64
				if err := gc.entries(k, v, func(e uint64, _ []byte) error { h = e; return nil }); err != nil {
					return err
				}
				if c.damage == "order" {
					v = gc.appendEntry(slices.Clone(v), h-1<<16, singletonPosting(0))
				} else {
					v = gc.appendEntry(slices.Clone(v), h^1<<63, singletonPosting(0))
				}
				return b.Put(slices.Clone(k), v)
			})
			if x, err = Open(path, &Options{Log: directLogInternal, NoSync: true, RecentBands: -1}); err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if x.settings.wide != c.wide {
				t.Fatalf("reopened wide %v, created %v", x.settings.wide, c.wide)
			}
			if err := x.Check(); err == nil || !strings.Contains(err.Error(), "band key") {
				t.Fatalf("Check: %v, want a damaged band key", err)
			}
		})
	}
}

// TestGroups16Kept opens a copy of testdata/v14.simidx, written by schema
// 14: its band groups keep the width and form of schema 14 (about 16
// hashes a group, band hashes of 40 bits: Settings.groups16) after the
// upgrade, and so do those of a new index made with its settings, while a
// new index of the default settings has the large groups of schema 15
// (about 64 hashes, 38 bits).
func TestGroups16Kept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "v14.simidx"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "v14.simidx")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(x *Index, name string, g int, form byte) {
		t.Helper()
		var v []byte
		err := x.view(func(tx *bolt.Tx) error {
			v = slices.Clone(tx.Bucket(bucketMeta).Get(keyBandGroups))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := groupCodecFor(g, false, form); x.groups != want || x.lay.bh.keep != bandHashMask(g, form) ||
			x.settings.groups16 != (form != groupsLarge) || !bytes.Equal(v, []byte{byte(g), form}) {
			t.Fatalf("%s: groups %+v, band hash mask %016x, groups16 %v, meta bandgroups %x; want %+v, %016x, form %d",
				name, x.groups, x.lay.bh.keep, x.settings.groups16, v, want, bandHashMask(g, form), form)
		}
	}
	x, err := Open(path, &Options{Log: directLogInternal})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	check(x, "upgraded schema 14 file", 16, groupsListed)
	st := x.Settings()
	y, err := Open(filepath.Join(dir, "same.simidx"), &Options{Log: directLogInternal, Settings: &st})
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	check(y, "new index of its settings", 16, groupsListed)
	z, err := Open(filepath.Join(dir, "new.simidx"), &Options{Log: directLogInternal})
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	check(z, "new index", 14, groupsLarge)
}

// TestBandGroupsMatchSettings checks that Open refuses a file whose band
// groups are not those its settings imply (ErrNotIndex): untagged groups
// in an index of schema 13's analysis, tagged, listed or large groups of
// another width than their form's, or tagged, listed or large groups in an
// index created by schema 10 to 12 (sig16), whose band hashes have 48
// bits; and that it refuses a schema 12 file so before its upgrade writes
// anything.
func TestBandGroupsMatchSettings(t *testing.T) {
	for _, c := range []struct {
		name  string
		sig16 bool
		value []byte
	}{
		{"untagged", false, []byte{16}},
		{"other width", false, []byte{17, 1}},
		{"listed of the large width", false, []byte{14, 2}},
		{"large of the listed width", false, []byte{16, 3}},
		{"unknown format", false, []byte{14, 4}},
		{"tagged with 16-bit signatures", true, []byte{16, 1}},
		{"listed with 16-bit signatures", true, []byte{16, 2}},
		{"large with 16-bit signatures", true, []byte{14, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.simidx")
			x, err := Open(path, &Options{Log: directLogInternal, NoSync: true, Settings: &Settings{sig16: c.sig16}})
			if err != nil {
				t.Fatal(err)
			}
			if x.groups.tagged == c.sig16 || x.groups.lists == c.sig16 {
				t.Fatalf("created with tagged groups %v, listed %v", x.groups.tagged, x.groups.lists)
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			updateFile(t, path, func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyBandGroups, c.value) })
			if x, err := Open(path, &Options{ReadOnly: true}); !errors.Is(err, ErrNotIndex) {
				if err == nil {
					x.Close()
				}
				t.Fatalf("Open: %v, want ErrNotIndex", err)
			}
		})
	}
	// A file of schema 12 whose groups are refused is not upgraded: the
	// refusal comes before any write.
	b, err := os.ReadFile(filepath.Join("testdata", "v12.simidx"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v12.simidx")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	updateFile(t, path, func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyBandGroups, []byte{16, 1}) })
	if x, err := Open(path, &Options{Log: directLogInternal}); !errors.Is(err, ErrNotIndex) {
		if err == nil {
			x.Close()
		}
		t.Fatalf("Open of a schema 12 file with tagged groups: %v, want ErrNotIndex", err)
	}
	updateFile(t, path, func(tx *bolt.Tx) error {
		if v := binary.BigEndian.Uint32(tx.Bucket(bucketMeta).Get(keyVersion)); v != 12 {
			t.Errorf("version %d after a refused Open, want 12", v)
		}
		return nil
	})
}

// FuzzBandGroupEntries decodes arbitrary bytes as the value of a band
// group, with every codec (wide or not; untagged, tagged, listed or large): the decode fails
// with ErrCorrupt or gives entries in increasing hash order, and the
// posting that posting finds of each hash, of the hashes next to it and of
// hashes of other groups is the entry's, or nil where there is none; in a
// value that fails, posting finds each entry decoded before the damage.
func FuzzBandGroupEntries(f *testing.F) {
	codecs := []groupCodec{groupCodecFor(14, false, groupsLarge), groupCodecFor(16, false, groupsListed), groupCodecFor(16, false, groupsTagged), groupCodecFor(16, false, groupsUntagged), groupCodecFor(16, true, groupsUntagged)}
	for _, c := range codecs {
		var v []byte
		v = c.appendEntry(v, 3<<24, singletonPosting(7))
		v = c.appendEntry(v, 5<<24, []byte{0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0x10, 0, 0, 0, 1, 0, 2, 0})
		f.Add(v)
	}
	key := bandGroupKey(nil, 2, 0, 16)
	f.Fuzz(func(t *testing.T, v []byte) {
		for _, c := range codecs {
			var hs []uint64
			var ps [][]byte
			err := c.entries(key, v, func(h uint64, p []byte) error {
				hs = append(hs, h)
				ps = append(ps, slices.Clone(p))
				return nil
			})
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%+v: entries of %x: %v, want ErrCorrupt", c, v, err)
				}
				// The entries before the damage are found as they
				// decoded.
				for i, h := range hs {
					if p, err := c.posting(key, v, h); err != nil || !bytes.Equal(p, ps[i]) {
						t.Fatalf("%+v: posting %016x of %x, damaged after it: %x, %v, want %x", c, h, v, p, err, ps[i])
					}
				}
				continue
			}
			for i, h := range hs {
				if i > 0 && h <= hs[i-1] {
					t.Fatalf("%+v: entries of %x out of order", c, v)
				}
			}
			// The posting of each hash, of those next to it and of
			// hashes of other groups is the entry's, or nil.
			for _, h := range append(slices.Clone(hs), 0, ^uint64(0), 1<<63) {
				for _, q := range []uint64{h - 1, h, h + 1} {
					var want []byte
					if i, ok := slices.BinarySearch(hs, q); ok {
						want = ps[i]
					}
					if p, err := c.posting(key, v, q); err != nil || !bytes.Equal(p, want) || (p == nil) != (want == nil) {
						t.Fatalf("%+v: posting %016x of %x: %x, %v, want %x", c, q, v, p, err, want)
					}
				}
			}
		}
	})
}

// TestBandGroupLists checks the postings of a listed group (schema 14):
// the documents of postings of 1 to 40 numbers, spread or crowded into one
// 2^16 block (whose roaring form appendSmallPosting cannot write), read
// back as written; up to maxListDocs are a list, of the bytes its
// numbers' distances take, and more a roaring bitmap.
func TestBandGroupLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := groupCodecFor(16, false, groupsListed)
	bm := roaring.New()
	// The bytes of schema 14, pinned: the hash's 3 bytes after the key's
	// 16 bits, the tag (3-2)<<2|2, the first number, the distances less one.
	if v, err := c.appendDocsEntry(nil, 0x0001_abcdef_000000, []uint32{5, 7, 300}, bm); err != nil ||
		!bytes.Equal(v, []byte{0xab, 0xcd, 0xef, 6, 5, 1, 0xa4, 0x02}) {
		t.Fatalf("list of 5, 7, 300: %x, %v", v, err)
	}
	for _, spread := range []uint32{1 << 31, 1 << 20, 40} {
		for n := 1; n <= 40; n++ {
			set := map[uint32]bool{}
			for len(set) < n {
				set[rng.Uint32N(spread)] = true
			}
			docs := slices.Sorted(maps.Keys(set))
			h := rng.Uint64() & bandHashMask(16, groupsListed)
			key := bandGroupKey(nil, 1, h, 16)
			v, err := c.appendDocsEntry(nil, h, docs, bm)
			if err != nil {
				t.Fatal(err)
			}
			if n >= 2 && n <= maxListDocs {
				want := c.w + 1
				for i, d := range docs {
					if i > 0 {
						d -= docs[i-1] + 1
					}
					want += len(binary.AppendUvarint(nil, uint64(d)))
				}
				if len(v) != want {
					t.Fatalf("spread %d, %d documents: entry of %d bytes, want %d", spread, n, len(v), want)
				}
			}
			var got []uint32
			err = c.entries(key, v, func(e uint64, p []byte) error {
				if e != h {
					t.Fatalf("hash %016x read back as %016x", h, e)
				}
				var b roaring.Bitmap
				if err := readPosting(&b, p); err != nil {
					return err
				}
				got = b.ToArray()
				return nil
			})
			if err != nil || !slices.Equal(got, docs) {
				t.Fatalf("spread %d, %d documents: read back %v, %v, want %v", spread, n, got, err, docs)
			}
			if p, err := c.posting(key, v, h); err != nil || p == nil {
				t.Fatalf("spread %d, %d documents: posting %x, %v", spread, n, p, err)
			}
		}
	}
}

// BenchmarkBandGroupPosting looks up the posting of each hash of a band
// group of n entries at the expected size of schema 14's groups (16) and
// schema 15's (64), most postings of one document and one in eight of
// three, as a query does for each of its bands (bandPosting, after the
// seek). It reports the time per lookup.
func BenchmarkBandGroupPosting(b *testing.B) {
	for _, c := range []struct {
		n    int
		g    int
		form byte
	}{{16, 16, groupsListed}, {64, 14, groupsLarge}} {
		b.Run(fmt.Sprint(c.n), func(b *testing.B) {
			codec := groupCodecFor(c.g, false, c.form)
			rng := rand.New(rand.NewPCG(1, 2))
			set := map[uint64]bool{}
			for len(set) < c.n {
				set[rng.Uint64()>>c.g&bandHashMask(c.g, c.form)] = true // in the group of prefix 0
			}
			hs := slices.Sorted(maps.Keys(set))
			var v []byte
			bm := roaring.New()
			for i, h := range hs {
				docs := []uint32{rng.Uint32N(1 << 20)}
				if i%8 == 0 {
					docs = []uint32{docs[0] / 2, docs[0]/2 + 9, docs[0] + 77}
				}
				var err error
				if v, err = codec.appendDocsEntry(v, h, docs, bm); err != nil {
					b.Fatal(err)
				}
			}
			key := bandGroupKey(nil, 3, hs[0], c.g)
			b.SetBytes(int64(len(v)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if p, err := codec.posting(key, v, hs[i%len(hs)]); err != nil || p == nil {
					b.Fatal(p, err)
				}
			}
		})
	}
}
