// Package testcorpus loads JSONL corpora ({"id", "lang", "text"} per line)
// for tests and benchmarks.
package testcorpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Doc is one document of a corpus.
type Doc struct {
	ID   string `json:"id"`
	Lang string `json:"lang"`
	Text string `json:"text"`
}

// Load reads the JSONL corpus at path.
func Load(path string) ([]Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []Doc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 256<<20)
	for line := 1; sc.Scan(); line++ {
		var d Doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		docs = append(docs, d)
	}
	return docs, sc.Err()
}

// SamplePath returns the path of the bundled multilingual sample,
// shingle/testdata/sample.jsonl.
func SamplePath() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "shingle", "testdata", "sample.jsonl")
}

// Bench returns the texts of the corpus named by the SIMIDX_BENCH_CORPUS
// environment variable, or of the bundled sample, and their total size.
func Bench() ([][]byte, int64, error) {
	path := os.Getenv("SIMIDX_BENCH_CORPUS")
	if path == "" {
		path = SamplePath()
	}
	docs, err := Load(path)
	if err != nil {
		return nil, 0, err
	}
	texts := make([][]byte, len(docs))
	var n int64
	for i, d := range docs {
		texts[i] = []byte(d.Text)
		n += int64(len(d.Text))
	}
	return texts, n, nil
}
