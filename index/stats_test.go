package index_test

import (
	"context"
	"testing"
)

// TestBucketStats checks the buckets that BucketStats reports for an index
// of the licences: every bucket of the layout, in name order, sizes that
// add up to no more than the data, and bytes per document consistent.
func TestBucketStats(t *testing.T) {
	x := newIndex(t, nil)
	if _, err := x.Load(context.Background(), seqDocs(licenseTexts(t)), nil); err != nil {
		t.Fatal(err)
	}
	st, err := x.Stats()
	if err != nil {
		t.Fatal(err)
	}
	bs, err := x.BucketStats()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var sum int64
	for _, b := range bs {
		names = append(names, b.Name)
		sum += b.Bytes
		if b.InUse > b.Bytes || b.BytesPerDoc != float64(b.Bytes)/float64(st.Docs) {
			t.Errorf("bucket %+v of an index of %d documents", b, st.Docs)
		}
		if b.Name != "meta" && (b.Keys == 0 || b.Bytes == 0) {
			t.Errorf("bucket %+v is empty", b)
		}
	}
	for _, want := range []string{"bands", "docs", "exact", "ids", "meta", "tables"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("no bucket %s in %v", want, names)
		}
	}
	if sum > st.DataBytes {
		t.Errorf("buckets of %d bytes in all, data of %d", sum, st.DataBytes)
	}
}
