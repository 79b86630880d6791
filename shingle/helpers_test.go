package shingle_test

import (
	"testing"

	"github.com/simidx/simidx/internal/testcorpus"
)

// loadSample returns the documents of testdata/sample.jsonl.
func loadSample(t testing.TB) []testcorpus.Doc {
	t.Helper()
	docs, err := testcorpus.Load(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	return docs
}
