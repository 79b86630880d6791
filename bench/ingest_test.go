package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIngestSection renders the ingest section from results written and
// read back as ingest -json and all --ingest-results do.
func TestIngestSection(t *testing.T) {
	r := &ingestResults{Command: "cd bench && go run . ingest", Commit: "abc", Machine: "m",
		Corpora: []ingestCorpus{{Name: mixedCorpus, Docs: 10, TextBytes: 2e6, InputBytes: 3e6}},
		Kernels: []ingestKernel{{Corpus: mixedCorpus, Settings: "default (MinHash on)", MBps: 10}},
		Runs: []ingestRun{
			{Corpus: mixedCorpus, Command: "index", Procs: 1, Wall: time.Second, MaxRSS: 5e7, FileBytes: 1e4},
			{Corpus: mixedCorpus, Command: "index", Procs: 2, Wall: time.Second / 2, MaxRSS: 6e7, FileBytes: 1e4},
		},
		Profile: []ingestProfile{{Label: mixedCorpus, Procs: 2, Top: []string{"flat flat%", "1s 50% f"}}},
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ingest.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readIngestResults(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	writeIngestSection(&out, got, got)
	for _, want := range []string{"| mixed-300mb | `simidx index` | 2 | 1 | 0.50 s | 4.0 | 2.0 | 20% | 20 | 2.00x | 60 MB | 1000 |", "1s 50% f", "earlier revision"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the section lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	writeIngestSection(&out, nil, nil)
	if !strings.Contains(out.String(), "go run . ingest") {
		t.Errorf("the section without results says not how to get them:\n%s", out.String())
	}
}
