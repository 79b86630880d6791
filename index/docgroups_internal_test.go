package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// openNew opens a new index in a temporary directory, with settings st, a
// direct log and no syncs; opts opens it again.
func openNew(t *testing.T, st Settings) (x *Index, path string, opts *Options) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "x.simidx")
	opts = &Options{NoSync: true, Log: directLogInternal, Settings: &st}
	x, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return x, path, opts
}

// loadAndEdit bulk-loads docs into a new index without MinHash, changes
// its docs bucket behind its back with edit, and opens it again.
func loadAndEdit(t *testing.T, docs []Doc, edit func(b *bolt.Bucket) error) *Index {
	t.Helper()
	x, path, opts := openNew(t, Settings{NoMinHash: true})
	if _, err := x.Load(context.Background(), docSeq(docs), nil); err != nil {
		t.Fatal(err)
	}
	x.Close()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return edit(tx.Bucket(bucketDocs)) })
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if x, err = Open(path, opts); err != nil {
		t.Fatal(err)
	}
	return x
}

// TestGoldenDocGroup pins the encoding of a group of records: the key is
// the last document's number and a zero byte, the value the number of
// slots, their 16-bit ends and the records.
func TestGoldenDocGroup(t *testing.T) {
	recs := [][]byte{
		encodeRecord(nil, &record{id: "a", fp: 1}, layout{}),
		nil,
		encodeRecord(nil, &record{id: "bc", fp: 2}, layout{}),
	}
	k, v := docGroupKey(9), appendDocGroup(nil, recs)
	if got := fmt.Sprintf("%x", k); got != "0000000900" {
		t.Errorf("key %s", got)
	}
	want := "03" + "000e" + "000e" + "001d" +
		"0000000000000001" + "80" + "61" + fmt.Sprintf("%08x", binary.BigEndian.Uint32(recs[0][len(recs[0])-4:])) +
		"0000000000000002" + "80" + "6263" + fmt.Sprintf("%08x", binary.BigEndian.Uint32(recs[2][len(recs[2])-4:]))
	if got := fmt.Sprintf("%x", v); got != want {
		t.Errorf("value\n got %s\nwant %s", got, want)
	}
	g, what := openDocGroup(k, v)
	if what != "" || g.first != 7 || g.last != 9 || g.problem() != "" {
		t.Fatalf("open: %+v %q %q", g, what, g.problem())
	}
	for i, r := range recs {
		if got, what := g.slot(i); what != "" || !bytes.Equal(got, r) {
			t.Errorf("slot %d: %x %q, want %x", i, got, what, r)
		}
	}
	if got := g.records(); fmt.Sprint(got) != fmt.Sprint(recs) {
		t.Errorf("records %x", got)
	}
	if p := partOf(recs[1:]); !bytes.Equal(p, appendDocGroup(nil, recs[1:])) {
		t.Errorf("part 8-9: %x", p)
	}
	if p := partOf(recs[1:2]); p != nil {
		t.Errorf("part of an empty slot: %x", p)
	}
}

// TestDocGroupsModel bulk-loads documents, so that their records are in
// groups, then replaces, deletes and adds documents at random, at the
// first, last and middle slots of groups, and checks each document, the
// order of Members and docRange from numbers inside groups, against a
// model, with Check after each round and after a reopen.
func TestDocGroupsModel(t *testing.T) {
	for _, c := range []struct {
		name string
		st   Settings
	}{
		{"fingerprints", Settings{NoMinHash: true}},
		{"minhash", Settings{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, uint64(len(c.name))))
			x, path, opts := openNew(t, c.st)
			defer func() { x.Close() }()
			type doc struct {
				text string
				fp   uint64
			}
			want := map[string]doc{}
			// gen returns a new document of ID id; note puts it in the
			// model, once it is added.
			gen := func(id string) Doc {
				if rng.IntN(3) == 0 {
					return Doc{ID: id, Fingerprint: rng.Uint64(), Precomputed: true}
				}
				// Texts of 5 to 200 words: records of tens to hundreds of
				// bytes, so that groups end by count and by size.
				var b strings.Builder
				for range 5 + rng.IntN(196) {
					fmt.Fprintf(&b, "w%d ", rng.IntN(5000))
				}
				return Doc{ID: id, Text: []byte(b.String())}
			}
			note := func(ds ...Doc) {
				for _, d := range ds {
					want[d.ID] = doc{text: string(d.Text), fp: d.Fingerprint}
				}
			}
			var load []Doc
			for i := range 900 {
				load = append(load, gen("d"+strconv.Itoa(i)))
			}
			for range 40 { // replaced within the load: dropped from their group
				i := rng.IntN(900)
				load = append(load, gen("d"+strconv.Itoa(i)))
			}
			if _, err := x.Load(context.Background(), docSeq(load), nil); err != nil {
				t.Fatal(err)
			}
			note(load...)
			// The load's groups: each of at most docGroupValue bytes, of
			// two or more slots, and not ended before a record that fits
			// (unless a replacement in the load emptied a slot).
			groups := 0
			x.view(func(tx *bolt.Tx) error {
				c := tx.Bucket(bucketDocs).Cursor()
				for k, v := c.First(); k != nil; k, v = c.Next() {
					if !isDocGroupKey(k) {
						continue
					}
					groups++
					g, what := openDocGroup(k, v)
					if what != "" || len(v) > docGroupValue || g.last == g.first {
						t.Fatalf("group %x: %d bytes, %d slots, %q", k, len(v), g.last-g.first+1, what)
					}
					full := !slices.ContainsFunc(g.records(), func(r []byte) bool { return r == nil }) // no record dropped by a replacement in the load
					if nk, nv := c.Next(); nk != nil && full {
						next := nv
						if isDocGroupKey(nk) {
							ng, _ := openDocGroup(nk, nv)
							next, _ = ng.slot(0)
						}
						if len(v)+2+len(next) <= docGroupValue && len(next) > 0 {
							t.Fatalf("group %x of %d bytes ends before a record of %d", k, len(v), len(next))
						}
					}
					c.Seek(k)
				}
				return nil
			})
			if groups < 3 {
				t.Fatalf("%d groups after a bulk load of 900 documents", groups)
			}
			verify := func(round int) {
				t.Helper()
				for id, w := range want {
					d, err := x.Get(id)
					if err != nil {
						t.Fatalf("round %d: Get(%q): %v", round, id, err)
					}
					if w.text == "" && (d.Fingerprint != w.fp || !d.Precomputed) || w.text != "" && d.Precomputed {
						t.Fatalf("round %d: Get(%q) = %+v, want %+v", round, id, d, w)
					}
					if w.text != "" {
						ms, err := x.Query([]byte(w.text), &QueryOptions{MaxDistance: ZeroDistance})
						if err != nil {
							t.Fatal(err)
						}
						found := false
						for _, m := range ms {
							found = found || m.ID == id
						}
						if !found {
							t.Fatalf("round %d: %q does not find itself: %v", round, id, ms)
						}
					}
				}
				var seqs []uint32
				ids := map[string]bool{}
				if err := x.Members(context.Background(), func(m Member) error {
					if len(seqs) > 0 && m.Seq <= seqs[len(seqs)-1] {
						return fmt.Errorf("member %d after %d", m.Seq, seqs[len(seqs)-1])
					}
					seqs = append(seqs, m.Seq)
					ids[m.ID] = true
					return nil
				}); err != nil {
					t.Fatalf("round %d: Members: %v", round, err)
				}
				if len(ids) != len(want) || x.Len() != len(want) {
					t.Fatalf("round %d: %d members, Len %d, want %d", round, len(ids), x.Len(), len(want))
				}
				// From each member's number and the one after it, up to
				// a few numbers on: the documents of the model there.
				x.view(func(tx *bolt.Tx) error {
					for range 50 {
						i := rng.IntN(len(seqs))
						from := seqs[i] + uint32(rng.IntN(2))
						to := from + uint32(rng.IntN(70))
						var got, exp []uint32
						for n := range docRange(tx, from, to) {
							got = append(got, n)
						}
						for _, n := range seqs[i:] {
							if n >= from && n < to {
								exp = append(exp, n)
							}
						}
						if fmt.Sprint(got) != fmt.Sprint(exp) {
							t.Fatalf("round %d: docRange(%d, %d) = %v, want %v", round, from, to, got, exp)
						}
					}
					return nil
				})
				if err := x.Check(); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			verify(0)
			for round := 1; round <= 5; round++ {
				var batch []Doc
				for range 60 {
					id := "d" + strconv.Itoa(rng.IntN(960))
					switch rng.IntN(4) {
					case 0:
						if _, err := x.Delete(id); err != nil {
							t.Fatal(err)
						}
						delete(want, id)
					case 1:
						batch = append(batch, gen(id))
					default:
						d := gen(id)
						if err := x.Add(d); err != nil {
							t.Fatal(err)
						}
						note(d)
					}
				}
				if err := x.Add(batch...); err != nil {
					t.Fatal(err)
				}
				note(batch...)
				verify(round)
			}
			// Every document of one group, last to first: its key goes.
			var k []byte
			x.view(func(tx *bolt.Tx) error {
				c := tx.Bucket(bucketDocs).Cursor()
				for kk, _ := c.First(); kk != nil && k == nil; kk, _ = c.Next() {
					if isDocGroupKey(kk) {
						k = bytes.Clone(kk)
					}
				}
				return nil
			})
			if k == nil {
				t.Fatal("no group left")
			}
			var gone []string
			x.view(func(tx *bolt.Tx) error {
				g, _ := openDocGroup(k, tx.Bucket(bucketDocs).Get(k))
				for i := int(g.last - g.first); i >= 0; i-- {
					if r, _ := g.slot(i); r != nil {
						gone = append(gone, idOf(r, x.lay))
					}
				}
				return nil
			})
			for _, id := range gone {
				if n, err := x.Delete(id); n != 1 || err != nil {
					t.Fatalf("Delete(%q) = %d, %v", id, n, err)
				}
				delete(want, id)
			}
			x.view(func(tx *bolt.Tx) error {
				if v := tx.Bucket(bucketDocs).Get(k); v != nil {
					t.Errorf("group %x left after deleting its documents %v: %x", k, gone, v)
				}
				return nil
			})
			verify(6)
			x.Close()
			var err error
			if x, err = Open(path, opts); err != nil {
				t.Fatal(err)
			}
			verify(7)
		})
	}
}

// TestDocGroupsDamage damages a group of records in the file and checks
// that Check names it and that Get, Query, Members, Pairs, and a replace and
// a delete of a document of the group fail with ErrCorrupt and change
// nothing.
func TestDocGroupsDamage(t *testing.T) {
	// Each damage changes the value v of the first group, under key k, and
	// returns the key the group is then under.
	for _, c := range []struct {
		name   string
		damage func(b *bolt.Bucket, k, v []byte) ([]byte, error)
	}{
		{"truncated", func(b *bolt.Bucket, k, v []byte) ([]byte, error) { return k, b.Put(k, v[:len(v)-1]) }},
		{"no slots", func(b *bolt.Bucket, k, v []byte) ([]byte, error) { v[0] = 0; return k, b.Put(k, v) }},
		{"too many slots", func(b *bolt.Bucket, k, v []byte) ([]byte, error) { v[0] = 200; return k, b.Put(k, v) }},
		{"ends out of order", func(b *bolt.Bucket, k, v []byte) ([]byte, error) { v[2], v[4] = v[4], v[2]; return k, b.Put(k, v) }},
		{"a slot too short", func(b *bolt.Bucket, k, v []byte) ([]byte, error) {
			binary.BigEndian.PutUint16(v[1:], 5)
			return k, b.Put(k, v)
		}},
		{"a record without its checksum", func(b *bolt.Bucket, k, v []byte) ([]byte, error) {
			// The first record's flags, the others whole.
			v[1+2*int(v[0])+8] &^= flagCRC
			return k, b.Put(k, v)
		}},
		{"no records", func(b *bolt.Bucket, k, v []byte) ([]byte, error) {
			return k, b.Put(k, make([]byte, 1+2*int(v[0])))
		}},
		{"more slots than numbers", func(b *bolt.Bucket, k, v []byte) ([]byte, error) {
			// The group under the key of a group that ends at document
			// 3: 4 numbers for its slots.
			if err := b.Delete(k); err != nil {
				return nil, err
			}
			nk := docGroupKey(3)
			return nk, b.Put(nk, v)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var load []Doc
			for i := range 100 {
				load = append(load, Doc{ID: "d" + strconv.Itoa(i), Text: fmt.Appendf(nil, "document %d of the damaged group test, with words", i)})
			}
			load[1].Text = load[0].Text // a pair that Pairs reads the records of
			var key []byte
			x := loadAndEdit(t, load, func(b *bolt.Bucket) error {
				k, v := b.Cursor().First()
				if !isDocGroupKey(k) || v[0] < 10 {
					return fmt.Errorf("first key %x is no group of 10 documents or more", k)
				}
				var err error
				key, err = c.damage(b, bytes.Clone(k), bytes.Clone(v))
				return err
			})
			defer x.Close()
			if err := x.Check(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("docs group %x", key)) {
				t.Errorf("Check: %v", err)
			}
			if _, err := x.Get("d0"); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Get: %v", err)
			}
			if _, err := x.Query(load[0].Text, nil); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Query: %v", err)
			}
			if err := x.Members(context.Background(), func(Member) error { return nil }); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Members: %v", err)
			}
			if err := x.Pairs(context.Background(), nil, func(Pair) error { return nil }); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Pairs: %v", err)
			}
			var before []byte
			x.view(func(tx *bolt.Tx) error { before = bytes.Clone(tx.Bucket(bucketDocs).Get(key)); return nil })
			if err := x.Add(Doc{ID: "d5", Text: []byte("a replacement")}); !errors.Is(err, ErrCorrupt) {
				t.Errorf("replacing a document of the group: %v", err)
			}
			if _, err := x.Delete("d6"); !errors.Is(err, ErrCorrupt) {
				t.Errorf("deleting a document of the group: %v", err)
			}
			x.view(func(tx *bolt.Tx) error {
				if after := tx.Bucket(bucketDocs).Get(key); !bytes.Equal(after, before) {
					t.Errorf("the group changed: %x, was %x", after, before)
				}
				return nil
			})
		})
	}
}

// TestDocGroupsRewriteInPlace replaces and deletes documents of a bulk
// load: their groups are rewritten in place, so the docs bucket keeps its
// keys and does not grow.
func TestDocGroupsRewriteInPlace(t *testing.T) {
	x, _, _ := openNew(t, Settings{NoMinHash: true})
	defer x.Close()
	var load []Doc
	for i := range 20000 {
		load = append(load, Doc{ID: fmt.Sprintf("d%05d", i), Fingerprint: uint64(i) * 0x9e3779b97f4a7c15, Precomputed: true})
	}
	if _, err := x.Load(context.Background(), docSeq(load), nil); err != nil {
		t.Fatal(err)
	}
	docs := func() BucketStats {
		bs, err := x.BucketStats()
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if b.Name == "docs" {
				return b
			}
		}
		t.Fatal("no docs bucket")
		return BucketStats{}
	}
	before := docs()
	var repl []Doc
	for i := 0; i < len(load); i += 3 {
		repl = append(repl, Doc{ID: load[i].ID, Fingerprint: ^load[i].Fingerprint, Precomputed: true})
	}
	if err := x.Add(repl...); err != nil {
		t.Fatal(err)
	}
	var del []string
	for i := 1; i < len(load); i += 7 {
		del = append(del, load[i].ID)
	}
	if _, err := x.Delete(del...); err != nil {
		t.Fatal(err)
	}
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
	after := docs()
	if after.Keys != before.Keys || after.Bytes > before.Bytes {
		t.Errorf("docs bucket: %d keys and %d bytes after the load, %d and %d after replacing a third and deleting a seventh", before.Keys, before.Bytes, after.Keys, after.Bytes)
	}
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	if d, err := x.Get(load[3].ID); err != nil || d.Fingerprint != ^load[3].Fingerprint {
		t.Errorf("Get: %+v, %v", d, err)
	}
}

// TestDocGroupsOverlap puts a key of its own for a document of a group: a
// lookup would find that key, a scan the group's slot as well. Check
// reports the overlap.
func TestDocGroupsOverlap(t *testing.T) {
	var load []Doc
	for i := range 100 {
		load = append(load, Doc{ID: "d" + strconv.Itoa(i), Fingerprint: uint64(i), Precomputed: true})
	}
	x := loadAndEdit(t, load, func(b *bolt.Bucket) error {
		k, v := b.Cursor().First()
		g, what := openDocGroup(k, v)
		if what != "" || g.first > 5 || g.last < 5 {
			return fmt.Errorf("first key %x: %q", k, what)
		}
		r, _ := g.slot(int(5 - g.first))
		return b.Put(docKey(5), bytes.Clone(r))
	})
	defer x.Close()
	if err := x.Check(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "the key before it up to 5") {
		t.Errorf("Check: %v", err)
	}
}
