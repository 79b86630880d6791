package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/simidx/simidx/internal/testcorpus"
)

// testBeamResults are the results of a run of beam: every kind of row.
func testBeamResults() *beamResults {
	same, differ := true, false
	return &beamResults{
		Command: "cd bench && go run . beam -n 1000,2000", Machine: "test", Corpus: "gencorpus -seed 7", LimitBytes: 20e9,
		Sizes: []*beamSize{
			{Docs: 1000, CorpusBytes: 1e6, Runs: []beamRun{
				{Tool: "simidx dedup", WallSeconds: 0.5, PeakRSS: 3e7, Lines: []int{10, 4, 8, 2}},
				{Tool: "simidx-beam --runner prism", WallSeconds: 3, PeakRSS: 2e8, Lines: []int{10, 4, 8, 2}, Same: &same},
				{Tool: "simidx-beam --runner direct", WallSeconds: 1, PeakRSS: 1e8, Lines: []int{10, 4, 8, 1}, Same: &differ, Differs: "drop: 1 lines, simidx dedup 2"},
			}},
			{Docs: 2000, CorpusBytes: 2e6, Runs: []beamRun{
				{Tool: "simidx dedup", WallSeconds: 1, PeakRSS: 4e7, Lines: []int{20, 8, 16, 4}},
				{Tool: "simidx-beam --runner prism", Killed: "resident 20.1 GB after 300 s, above the limit of 20 GB"},
				{Tool: "simidx-beam --runner direct", Skipped: "predicted 30 GB"},
			}},
		},
	}
}

func TestBeamResultsRoundTrip(t *testing.T) {
	res := testBeamResults()
	path := filepath.Join(t.TempDir(), "beam.json")
	if err := writeResultsJSON(path, res); err != nil {
		t.Fatal(err)
	}
	got, err := readBeamResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, res) {
		t.Fatalf("read back %+v, wrote %+v", got, res)
	}
	var b strings.Builder
	writeBeamSection(&b, got)
	for _, want := range []string{beamHeading + "\n", "| 1000 | 1 MB | `simidx-beam --runner prism` | 3.0 s | 0.20 GB | 200.0 KB | 10 / 4 / 8 / 2 | yes |",
		"**no**: drop: 1 lines", "killed: resident 20.1 GB", "not run: predicted 30 GB"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the section lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	writeBeamSection(&b, nil)
	if !strings.Contains(b.String(), "go run . beam -n 100000,1000000 -json") {
		t.Errorf("the note lacks the command:\n%s", b.String())
	}
}

// TestKeys runs the key simulation on the bundled sample: its table and
// band keys, candidates, and an extrapolation that keeps the measured
// order (random collisions below this kind's, local below boilerplate).
func TestKeys(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(testcorpus.SamplePath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sample.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := runKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Corpora) != 2 || res.Corpora[1].Name != "all" {
		t.Fatalf("corpora %+v", res.Corpora)
	}
	c := res.Corpora[0]
	if c.Docs == 0 || c.Distinct == 0 || c.Table.Entries != int64(c.Distinct)*4 || c.Band.Entries == 0 || c.Table.Largest < 1 {
		t.Errorf("keys of the sample: %+v", c)
	}
	if c.MeanDistance <= 0 || c.MeanDistance > 64 || c.CollapseBytes < 600 || c.TableBytes != 4*27 {
		t.Errorf("distance %v, bytes %v %v", c.MeanDistance, c.CollapseBytes, c.TableBytes)
	}
	a := c.At
	if !(a.LocalPairs <= a.BoilerPairs && a.LocalCands <= a.BoilerCands && a.ShuffleLocal <= a.ShuffleBoiler && a.AnalyzeHours > 0 && a.HoursLocal >= a.AnalyzeHours) {
		t.Errorf("extrapolation %+v", a)
	}
	var s strings.Builder
	writeKeysSection(&s, res)
	if !strings.Contains(s.String(), keysHeading) || !strings.Contains(s.String(), "| all |") {
		t.Errorf("section:\n%s", s.String())
	}
}
