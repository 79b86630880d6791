package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

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
	if p := g.part(8, 9); !bytes.Equal(p, appendDocGroup(nil, recs[1:])) {
		t.Errorf("part 8-9: %x", p)
	}
	if p := g.part(8, 8); p != nil {
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
			path := filepath.Join(t.TempDir(), "x.simidx")
			st := c.st
			opts := &Options{NoSync: true, Log: directLogInternal, Settings: &st}
			x, err := Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
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
			groups := 0
			x.view(func(tx *bolt.Tx) error {
				return tx.Bucket(bucketDocs).ForEach(func(k, _ []byte) error {
					if isDocGroupKey(k) {
						groups++
					}
					return nil
				})
			})
			if groups < 900/docGroupDocs {
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
			if x, err = Open(path, opts); err != nil {
				t.Fatal(err)
			}
			verify(7)
		})
	}
}

// TestDocGroupsDamage damages a group of records in the file and checks
// that Check names it and that Get, Query, Members and an add through it
// fail with ErrCorrupt.
func TestDocGroupsDamage(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(v []byte) []byte
	}{
		{"truncated", func(v []byte) []byte { return v[:len(v)-1] }},
		{"no slots", func(v []byte) []byte { v[0] = 0; return v }},
		{"too many slots", func(v []byte) []byte { v[0] = 200; return v }},
		{"ends out of order", func(v []byte) []byte { v[2], v[4] = v[4], v[2]; return v }},
		{"a slot too short", func(v []byte) []byte { binary.BigEndian.PutUint16(v[1:], 5); return v }},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.simidx")
			opts := &Options{NoSync: true, Log: directLogInternal, Settings: &Settings{NoMinHash: true}}
			x, err := Open(path, opts)
			if err != nil {
				t.Fatal(err)
			}
			var load []Doc
			for i := range 100 {
				load = append(load, Doc{ID: "d" + strconv.Itoa(i), Text: fmt.Appendf(nil, "document %d of the damaged group test, with words", i)})
			}
			if _, err := x.Load(context.Background(), docSeq(load), nil); err != nil {
				t.Fatal(err)
			}
			x.Close()
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			var key []byte
			err = db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(bucketDocs)
				k, v := b.Cursor().First()
				if !isDocGroupKey(k) {
					return fmt.Errorf("first key %x is no group", k)
				}
				key = bytes.Clone(k)
				return b.Put(key, c.damage(bytes.Clone(v)))
			})
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			if x, err = Open(path, opts); err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if err := x.Check(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("docs group %x", key)) {
				t.Errorf("Check: %v", err)
			}
			if _, err := x.Get("d1"); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Get: %v", err)
			}
			if _, err := x.Query(load[1].Text, nil); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Query: %v", err)
			}
			if err := x.Members(context.Background(), func(Member) error { return nil }); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Members: %v", err)
			}
			if err := x.Add(Doc{ID: "d1", Text: []byte("a replacement")}); !errors.Is(err, ErrCorrupt) {
				t.Errorf("replacing a document of the group: %v", err)
			}
		})
	}
}
