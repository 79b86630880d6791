package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestGoldenIDHash pins the hash of an ID in a grouped ids bucket and the
// group key and entry bits taken from it: they are persisted.
func TestGoldenIDHash(t *testing.T) {
	for _, c := range []struct {
		id   string
		h    uint64
		g    int
		key  string
		frag uint32
	}{
		{"a", 0xd24ec4f1a98c6e5b, 15, "d24e0000", 0x6278d4c6},
		{"doc-000001", 0xc2acf358cf7785e7, 0, "00000000", 0xc2acf358},
		{"fortune:ru/2001.06:78", 0xa7ad65e13a0e3397, 20, "a7ad6000", 0x5e13a0e3},
		{"新闻/東京", 0x40f5654089ba4217, 32, "40f56540", 0x89ba4217},
	} {
		h := idHash(c.id)
		ic := idGroups(c.g)
		got := fmt.Sprintf("%016x %x %08x", h, ic.key(nil, h), ic.bits(h))
		want := fmt.Sprintf("%016x %s %08x", c.h, c.key, c.frag)
		if got != want {
			t.Errorf("%q g %d: got %s, want %s", c.id, c.g, got, want)
		}
	}
}

// collidingIDs are pairs of IDs whose hashes share their leading 48 bits:
// in a grouped ids bucket of width up to 16 each pair shares a group and
// an entry's bits, so that a lookup must tell them apart by the record.
var collidingIDs = [][2]string{
	{"id7038635", "id18079712"},
	{"id12315593", "id33235161"},
	{"id31095333", "id37158158"},
}

func TestCollidingIDs(t *testing.T) {
	for _, p := range collidingIDs {
		a, b := idHash(p[0]), idHash(p[1])
		if a == b || a>>16 != b>>16 {
			t.Fatalf("%q and %q: hashes %016x and %016x do not share 48 bits", p[0], p[1], a, b)
		}
	}
	for _, expected := range []int{10, 1000, 1 << 20} {
		t.Run(strconv.Itoa(expected), func(t *testing.T) {
			x, err := Open(filepath.Join(t.TempDir(), "x.simidx"), &Options{NoSync: true, Log: directLogInternal,
				Settings: &Settings{ExpectedDocs: expected, NoMinHash: true}})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if g := x.ids.g; g != hashGroupBits(expected) || g > 16 {
				t.Fatalf("group width %d", g)
			}
			want := map[string]uint64{}
			var docs []Doc
			for i, p := range collidingIDs {
				for j, id := range p {
					docs = append(docs, Doc{ID: id, Fingerprint: uint64(10*i + j), Precomputed: true})
				}
				// A later document of the first ID replaces it in the load.
				docs = append(docs, Doc{ID: p[0], Fingerprint: uint64(100 + i), Precomputed: true})
				want[p[0]], want[p[1]] = uint64(100+i), uint64(10*i+1)
			}
			var replaced []string
			st, err := x.Load(context.Background(), docSeq(docs), &LoadOptions{Replaced: func(id string) { replaced = append(replaced, id) }})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(replaced)
			if st.Replaced != 3 || !slices.Equal(replaced, []string{"id12315593", "id31095333", "id7038635"}) {
				t.Fatalf("replaced %d: %q", st.Replaced, replaced)
			}
			check := func(when string) {
				t.Helper()
				for _, id := range slices.Sorted(maps.Keys(want)) {
					d, err := x.Get(id)
					if err != nil || d.Fingerprint != want[id] {
						t.Fatalf("%s: Get(%q) = %v, %v; want fingerprint %d", when, id, d, err, want[id])
					}
				}
				for _, p := range collidingIDs {
					for _, id := range p {
						if _, ok := want[id]; !ok {
							if _, err := x.Get(id); !errors.Is(err, ErrNotFound) {
								t.Fatalf("%s: Get(%q) of a deleted ID: %v", when, id, err)
							}
						}
					}
				}
				if err := x.Check(); err != nil {
					t.Fatalf("%s: %v", when, err)
				}
			}
			check("after the load")
			// Online: replace one of each pair, delete the other, add it back.
			for i, p := range collidingIDs {
				if err := x.AddFingerprint(p[1], uint64(200+i)); err != nil {
					t.Fatal(err)
				}
				want[p[1]] = uint64(200 + i)
				if n, err := x.Delete(p[0]); err != nil || n != 1 {
					t.Fatalf("Delete(%q) = %d, %v", p[0], n, err)
				}
				delete(want, p[0])
			}
			check("after the replacements and deletes")
			for i, p := range collidingIDs {
				if err := x.AddFingerprint(p[0], uint64(300+i)); err != nil {
					t.Fatal(err)
				}
				want[p[0]] = uint64(300 + i)
			}
			check("after the adds")
		})
	}
}

// docSeq yields docs.
func docSeq(docs []Doc) iter.Seq2[Doc, error] {
	return func(yield func(Doc, error) bool) {
		for _, d := range docs {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// TestIDGroupsModel checks the ids bucket against a map of the IDs
// stored: a bulk load with repeated IDs, then random adds, replacements
// and deletes, one at a time and in batches (Load into a non-empty
// index), with a reopen; every ID of the pool is looked up after each
// round, and Check passes. The pool holds the colliding IDs, and the
// group widths include 0, one group for all.
func TestIDGroupsModel(t *testing.T) {
	pool := []string{}
	for _, p := range collidingIDs {
		pool = append(pool, p[0], p[1])
	}
	for i := range 300 {
		pool = append(pool, "doc-"+strconv.Itoa(i))
	}
	for _, expected := range []int{1, 100, 1 << 20} {
		t.Run(strconv.Itoa(expected), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(expected), 7))
			path := filepath.Join(t.TempDir(), "x.simidx")
			opts := &Options{NoSync: true, Log: directLogInternal, Settings: &Settings{ExpectedDocs: expected, NoMinHash: true}}
			x, err := Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { x.Close() }()
			want := map[string]uint64{}
			batch := func(k int) []Doc {
				docs := make([]Doc, k)
				for i := range docs {
					docs[i] = Doc{ID: pool[rng.IntN(len(pool))], Fingerprint: rng.Uint64(), Precomputed: true}
					want[docs[i].ID] = docs[i].Fingerprint
				}
				return docs
			}
			if _, err := x.Load(context.Background(), docSeq(batch(400)), nil); err != nil {
				t.Fatal(err)
			}
			verify := func(round int) {
				t.Helper()
				for _, id := range pool {
					d, err := x.Get(id)
					fp, ok := want[id]
					switch {
					case ok && (err != nil || d.Fingerprint != fp):
						t.Fatalf("round %d: Get(%q) = %v, %v; want fingerprint %x", round, id, d, err, fp)
					case !ok && !errors.Is(err, ErrNotFound):
						t.Fatalf("round %d: Get(%q) of an ID not stored = %v, %v", round, id, d, err)
					}
				}
				if n := x.Len(); n != len(want) {
					t.Fatalf("round %d: %d documents, want %d", round, n, len(want))
				}
				if err := x.Check(); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			verify(0)
			for round := 1; round <= 6; round++ {
				for range 40 {
					id := pool[rng.IntN(len(pool))]
					if rng.IntN(3) == 0 {
						if _, err := x.Delete(id); err != nil {
							t.Fatal(err)
						}
						delete(want, id)
						continue
					}
					fp := rng.Uint64()
					if err := x.AddFingerprint(id, fp); err != nil {
						t.Fatal(err)
					}
					want[id] = fp
				}
				if _, err := x.Load(context.Background(), docSeq(batch(50)), &LoadOptions{BatchSize: 16}); err != nil {
					t.Fatal(err)
				}
				verify(round)
				if round == 3 {
					if err := x.Close(); err != nil {
						t.Fatal(err)
					}
					if x, err = Open(path, opts); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// TestHashGroupsCodec round-trips random hashes and numbers through the
// entries of an exact group (every bit of the hash after the group's) and
// an ID group (32 of them), for every group width.
func TestHashGroupsCodec(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for g := 0; g <= 32; g++ {
		for _, c := range []hashGroups{exactGroups(g), idGroups(g)} {
			for range 200 {
				h, n := rng.Uint64(), rng.Uint32()
				key := c.key(nil, h)
				if p := uint64(binary.BigEndian.Uint32(key)) << 32; p>>(64-g) != h>>(64-g) && g > 0 || len(key) != 4 {
					t.Fatalf("g %d: key %x of %016x", g, key, h)
				}
				v := c.appendEntry(nil, hashEntry{c.bits(h), n})
				if len(v) != c.size() {
					t.Fatalf("g %d w %d: entry of %d bytes", g, c.w, len(v))
				}
				e := c.entryAt(v, 0)
				if e.n != n || e.bits != c.bits(h) {
					t.Fatalf("g %d w %d: entry %+v, want %x %d", g, c.w, e, c.bits(h), n)
				}
				if c.w == exactGroups(g).w {
					if got := c.hash(key, e.bits); got != h {
						t.Fatalf("g %d: hash %016x, want %016x", g, got, h)
					}
				}
			}
		}
	}
}

// TestHashGroupsDamage damages an ID group and an exact group of an index
// (a truncated entry, two entries out of order, an extra entry of a
// missing document) and checks that Check reports each, and that a
// lookup or a write through a truncated group fails with ErrCorrupt
// instead of answering, with and without the band filter, leaving the
// index as it was.
func TestHashGroupsDamage(t *testing.T) {
	for _, c := range []struct {
		bucket, damage, want string
		filter               bool
	}{
		{"ids", "truncate", "hash group of 23 bytes", false},
		{"ids", "order", "out of order", false},
		{"ids", "extra", "4 ids for 3 documents", false},
		{"exact", "truncate", "hash group of 35 bytes", false},
		{"exact", "truncate", "hash group of 35 bytes", true},
		{"exact", "order", "out of order", false},
		{"exact", "extra", "4 exact keys for 3 documents", false},
	} {
		t.Run(fmt.Sprintf("%s %s filter=%v", c.bucket, c.damage, c.filter), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.simidx")
			o := &Options{Log: directLogInternal, NoSync: true, BandFilter: c.filter, Settings: &Settings{ExpectedDocs: 1, NoMinHash: true}}
			x, err := Open(path, o)
			if err != nil {
				t.Fatal(err)
			}
			text := []byte("the same text of a few words, twice over")
			for _, id := range []string{"a", "b", "c"} {
				if err := x.Add(Doc{ID: id, Text: text}); err != nil {
					t.Fatal(err)
				}
			}
			hc := x.ids
			if c.bucket == "exact" {
				hc = x.exact
			}
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
			updateFile(t, path, func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte(c.bucket))
				k, v := b.Cursor().First() // one group: ExpectedDocs 1
				if m, _ := hc.entries(v); m != 3 {
					return fmt.Errorf("%d entries in the group, want 3", m)
				}
				switch c.damage {
				case "truncate":
					v = slices.Clone(v[:len(v)-1])
				case "order": // entries 1, 0, 2
					s := hc.size()
					v = slices.Concat(v[s:2*s], v[:s], v[2*s:])
				case "extra":
					e := hc.entryAt(v, 2)
					e.n += 100
					v = hc.appendEntry(slices.Clone(v), e)
				}
				return b.Put(slices.Clone(k), v)
			})
			if x, err = Open(path, o); err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if err := x.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check: %v, want %q", err, c.want)
			}
			if c.damage != "truncate" {
				return
			}
			if c.bucket == "ids" {
				if _, err := x.Get("a"); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Get through a truncated group: %v, want ErrCorrupt", err)
				}
				if err := x.Add(Doc{ID: "d", Text: []byte("another text")}); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Add through a truncated group: %v, want ErrCorrupt", err)
				}
			} else {
				if _, err := x.Query(text, nil); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Query through a truncated group: %v, want ErrCorrupt", err)
				}
				if err := x.Add(Doc{ID: "d", Text: text}); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Add through a truncated group: %v, want ErrCorrupt", err)
				}
			}
			if n := x.Len(); n != 3 {
				t.Fatalf("%d documents after a failed add, want 3", n)
			}
			if c.bucket == "ids" { // every exact hash is in the one exact group
				if ms, err := x.Query([]byte("a text of other words altogether"), nil); err != nil || len(ms) != 0 {
					t.Fatalf("a query away from the damage: %v, %v", ms, err)
				}
			}
		})
	}
}

// TestHashGroupsUpdate checks update on a bbolt bucket: ops that change
// nothing (an entry added that is there, one removed that is not) leave
// the group unwritten; several ops of one entry in a batch end as the
// last says; and the result equals a set of the pairs kept in the test.
func TestHashGroupsUpdate(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "u.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := []byte("g")
	for _, c := range []hashGroups{exactGroups(0), exactGroups(3), idGroups(2)} {
		rng := rand.New(rand.NewPCG(7, uint64(c.g)))
		want := map[hashEntry]bool{}
		hashes := make([]uint64, 40)
		for i := range hashes {
			hashes[i] = rng.Uint64()
		}
		err := db.Update(func(tx *bolt.Tx) error {
			_ = tx.DeleteBucket(name)
			_, err := tx.CreateBucket(name)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for round := range 30 {
			var ops []hashOp
			for range rng.IntN(20) {
				op := hashOp{h: hashes[rng.IntN(len(hashes))], n: uint32(rng.IntN(4)), del: rng.IntN(3) == 0}
				ops = append(ops, op)
				if op.del {
					delete(want, hashEntry{c.bits(op.h), op.n})
				} else {
					want[hashEntry{c.bits(op.h), op.n}] = true
				}
			}
			err := db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(name)
				if err := c.update(b, ops); err != nil {
					return err
				}
				// Ops that change nothing write nothing.
				k, v := b.Cursor().First()
				if k == nil {
					return nil
				}
				e := c.entryAt(v, 0)
				h := c.hash(k, e.bits)
				if c.w != exactGroups(c.g).w {
					return nil // an ID group's entries do not hold the whole hash
				}
				before := &b.Get(k)[0]
				if err := c.update(b, []hashOp{{h: h, n: e.n}, {h: h, n: e.n + 1<<31, del: true}}); err != nil {
					return err
				}
				if &b.Get(k)[0] != before {
					return fmt.Errorf("round %d: a group rewritten by ops that change nothing", round)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			got := map[hashEntry]bool{}
			db.View(func(tx *bolt.Tx) error {
				return tx.Bucket(name).ForEach(func(k, v []byte) error {
					if p := c.problem(v); p != "" || len(v) == 0 {
						t.Fatalf("round %d: group %x: %q", round, k, p)
					}
					for i := range len(v) / c.size() {
						got[c.entryAt(v, i)] = true
					}
					return nil
				})
			})
			if !maps.Equal(got, want) {
				t.Fatalf("g %d w %d round %d: %d entries, want %d", c.g, c.w, round, len(got), len(want))
			}
		}
	}
}
