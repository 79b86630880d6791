package shingle_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

type sampleDoc struct {
	ID   string `json:"id"`
	Lang string `json:"lang"`
	Text string `json:"text"`
}

// loadSample returns the documents of testdata/sample.jsonl.
func loadSample(t testing.TB) []sampleDoc {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []sampleDoc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var d sampleDoc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}
