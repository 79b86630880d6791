package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

func TestStats(t *testing.T) {
	db := buildIndex(t, "--minhash")
	r := mustRun(t, "", "stats", "--db", db)
	for _, want := range []string{"path", "documents", "68", "max distance (k)", "minhash values", "file size",
		"method simhash", "features units+pairs"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stats table lacks %q:\n%s", want, r.stdout)
		}
	}
	r = mustRun(t, "", "stats", "--db", db, "--format", "jsonl", "--check")
	if strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("stats --format jsonl is not one line: %q", r.stdout)
	}
	var s struct {
		Path          string  `json:"path"`
		Docs          int     `json:"docs"`
		SchemaVersion int     `json:"schema_version"`
		MaxDistance   int     `json:"max_distance"`
		Tables        int     `json:"tables"`
		Blocks        []int   `json:"blocks"`
		MinHash       bool    `json:"minhash"`
		SignatureBits int     `json:"signature_bits"`
		FileBytes     int64   `json:"file_bytes"`
		BytesPerDoc   float64 `json:"bytes_per_doc"`
		Check         bool    `json:"check"`
		Text          map[string]any
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Path != db || s.Docs != 68 || s.SchemaVersion != index.SchemaVersion || s.MaxDistance != 3 || s.Tables == 0 || s.SignatureBits != 8 ||
		len(s.Blocks) == 0 || !s.MinHash || s.FileBytes == 0 || s.BytesPerDoc == 0 || !s.Check || s.Text == nil {
		t.Errorf("stats: %+v", s)
	}
	if r := simidx(t, "", "stats", "--db", db, "extra"); r.code != 2 {
		t.Errorf("stats with an argument: %v", r)
	}
}
