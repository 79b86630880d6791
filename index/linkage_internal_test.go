package index

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestPairedMembers checks pairedMembers, on both of its ways (a scan of
// the records and a seek each), against a record read per document: sets
// of paired documents from sparse to dense over a bulk-loaded index with
// holes (deleted documents), and a paired document without a record, which
// is an ErrCorrupt either way.
func TestPairedMembers(t *testing.T) {
	x, _, _ := openNew(t, Settings{NoMinHash: true})
	defer x.Close()
	const n = 5000
	docs := make([]Doc, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range docs {
		docs[i] = Doc{ID: fmt.Sprint("d", i), Fingerprint: rng.Uint64(), Precomputed: true}
	}
	if _, err := x.Load(context.Background(), docSeq(docs), nil); err != nil {
		t.Fatal(err)
	}
	var gone []string
	deleted := map[uint32]bool{}
	for i := 100; i < n; i += 97 {
		gone = append(gone, docs[i].ID)
		deleted[uint32(i)] = true
	}
	if _, err := x.Delete(gone...); err != nil {
		t.Fatal(err)
	}
	words := (n + 63) / 64
	check := func(t *testing.T, paired []uint64, wantErr bool) {
		t.Helper()
		err := x.view(func(tx *bolt.Tx) error {
			docs := tx.Bucket(bucketDocs)
			var want []Member
			for w, bits := range paired {
				for b := range 64 {
					if bits&(1<<b) != 0 {
						m := uint32(w*64 + b)
						if v := getRecord(docs, m); len(v) >= 9 {
							want = append(want, x.member(m, v))
						}
					}
				}
			}
			got, err := x.pairedMembers(docs.Cursor(), paired)
			if wantErr {
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("a paired document without a record: %v, want ErrCorrupt", err)
				}
				return nil
			}
			if err != nil {
				return err
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %d members, want %d (first difference among %v...)", len(got), len(want), got[:min(3, len(got))])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, share := range []float64{0, 0.001, 0.01, 0.1, 0.2, 0.5, 1} {
		for _, from := range []int{0, 1000} {
			paired := make([]uint64, words)
			for m := from; m < n; m++ {
				if !deleted[uint32(m)] && rng.Float64() < share {
					paired[m/64] |= 1 << (m % 64)
				}
			}
			t.Run(fmt.Sprintf("share=%v,from=%d", share, from), func(t *testing.T) { check(t, paired, false) })
			// A deleted document among them, first, inside or last.
			for _, d := range []uint32{100, 2040, 4950} {
				bad := slices.Clone(paired)
				bad[d/64] |= 1 << (d % 64)
				t.Run(fmt.Sprintf("share=%v,from=%d,deleted=%d", share, from, d), func(t *testing.T) { check(t, bad, true) })
			}
		}
	}
}
