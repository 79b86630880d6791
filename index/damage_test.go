package index_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// TestDamagedPages overwrites pages of a small index in turn, on a copy,
// with zeros, with ones or with random bytes, and runs every
// operation on the damaged file: each answers or fails with an error, and
// none panics or crashes the process (bbolt panics on a page it cannot
// read, or reads its mapping at a wild page number).
func TestDamagedPages(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx%d", i, rng.IntN(1000))
	}
	var all []index.Doc
	for i := range 1000 {
		ws := make([]string, 30+rng.IntN(30))
		for j := range ws {
			ws[j] = vocab[rng.IntN(len(vocab))]
		}
		all = append(all, index.Doc{ID: fmt.Sprint("doc", i), Text: []byte(strings.Join(ws, " "))})
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src.simidx")
	// Every commit merged: Open reads no document into the levels, so
	// that most damaged pages are met by the operations.
	x, err := index.Open(src, &index.Options{NoSync: true, RecentBands: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(all); i += 500 {
		if err := x.Add(all[i:min(i+500, len(all))]...); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	clean, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096 // bbolt's page size on this file (the OS page size)
	if os.Getpagesize() != page {
		t.Skipf("page size %d", os.Getpagesize())
	}
	corrupt, opened := 0, 0
	path := filepath.Join(dir, "damaged.simidx")
	// Pages 0 and 1 are bbolt's meta pages, which carry a checksum.
	// About a hundred pages, spread over the file (forty unless stress).
	pages := len(clean) / page
	damaged := 40
	if stress() {
		damaged = 100
	}
	for p := 2; p < pages; p += max(1, pages/damaged) {
		fill := p % 3
		b := bytes.Clone(clean)
		pg := b[p*page : (p+1)*page]
		for i := range pg {
			switch fill {
			case 0:
				pg[i] = 0
			case 1:
				pg[i] = 0xff
			default:
				pg[i] = byte(rng.Uint32())
			}
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		o, c := exerciseDamaged(t, path, all[(p*7)%len(all)])
		opened += o
		corrupt += c
	}
	t.Logf("%d pages: opened %d times, %d operations failed with ErrCorrupt", pages, opened, corrupt)
	if corrupt == 0 {
		t.Fatal("no operation met a damaged page")
	}
}

// exerciseDamaged opens the index at path and runs each operation once;
// it returns whether it opened and how many operations reported
// ErrCorrupt.
func exerciseDamaged(t *testing.T, path string, d index.Doc) (opened, corrupt int) {
	t.Helper()
	count := func(err error) {
		if errors.Is(err, index.ErrCorrupt) {
			corrupt++
		}
	}
	// With the filter and the mirror, Open reads the band postings and
	// the tables.
	if y, err := index.Open(path, &index.Options{NoSync: true, TableMirror: true, BandFilter: true}); err != nil {
		count(err)
	} else {
		_, err = y.Query(d.Text, nil)
		count(err)
		count(y.Close())
	}
	x, err := index.Open(path, &index.Options{NoSync: true})
	if err != nil {
		count(err)
		return 0, corrupt
	}
	ctx := context.Background()
	_, err = x.Query(d.Text, nil)
	count(err)
	_, err = x.QueryID(d.ID, nil)
	count(err)
	_, err = x.QueryFingerprint(0x0123456789abcdef, nil)
	count(err)
	_, err = x.Get(d.ID)
	count(err)
	count(x.Pairs(ctx, nil, func(index.Pair) error { return nil }))
	count(x.Clusters(ctx, nil, func(index.Cluster) error { return nil }))
	_, err = x.SimilarID(d.ID)
	count(err)
	_, err = x.Stats()
	count(err)
	count(x.Check())
	count(x.Add(index.Doc{ID: "new", Text: []byte("a new document added to a damaged index")}, d))
	_, err = x.Delete(d.ID)
	count(err)
	count(x.Close())
	return 1, corrupt
}

// TestPairsCallerPanic checks that a panic of the function given to Pairs
// reaches the caller as it was, not as an error of a damaged file.
func TestPairsCallerPanic(t *testing.T) {
	t.Parallel()
	x := nearPair(t)
	defer func() {
		if r := recover(); r != "the caller's own" {
			t.Errorf("recovered %v, want the caller's panic", r)
		}
	}()
	err := x.Pairs(context.Background(), nil, func(index.Pair) error { panic("the caller's own") })
	t.Fatalf("Pairs returned %v instead of panicking", err)
}
