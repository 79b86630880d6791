package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

const beamHeading = "### simidx-beam against simidx dedup"

// beamNote is the section when all is given no results of beam.
const beamNote = beamHeading + `

Not part of this run: simidx-beam (the Beam pipeline of ` + "`simidx dedup`" + `, docs/scale.md) on
Prism and on the direct runner against ` + "`simidx dedup`" + ` holds every collection in memory and
takes many minutes a corpus, so it is run on its own:

` + "```" + `
cd bench && go run . beam -n 100000,1000000 -json /tmp/beam-results/beam.json
` + "```" + `

and its results given to ` + "`all --beam-results /tmp/beam-results/beam.json`" + `.
`

// beamIntro says what the table holds.
const beamIntro = "Subcommand `beam`: for each size, a corpus from `beam/cmd/gencorpus`; `simidx dedup -q --format jsonl --emit E` " +
	"for each of pairs, clusters, keep and drop (four runs; the wall time is their sum, the peak the largest), then " +
	"`simidx-beam --runner R` once (the four outputs), each output sorted and compared with dedup's. " +
	"Peak RSS is getrusage's ru_maxrss of the process (what `/usr/bin/time -v` reports as Maximum resident set size); " +
	"a run whose resident size goes above the limit is killed, and a run predicted above it from the bytes per document " +
	"measured on a smaller corpus is not started."

// readBeamResults reads the results that beam -json wrote.
func readBeamResults(path string) (*beamResults, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res beamResults
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(res.Sizes) == 0 {
		return nil, fmt.Errorf("%s: no sizes", path)
	}
	return &res, nil
}

// writeBeamSection writes the section of docs/benchmarks.md on
// simidx-beam against simidx dedup: res, or without results the note on
// how to run it.
func writeBeamSection(w io.Writer, res *beamResults) {
	if res == nil {
		fmt.Fprint(w, beamNote+"\n")
		return
	}
	fmt.Fprint(w, beamHeading+"\n\n")
	fmt.Fprint(w, beamIntro+"\n\n")
	fmt.Fprintf(w, "```\n%s\n```\n\n", res.Command)
	fmt.Fprintf(w, "- machine: %s\n", res.Machine)
	fmt.Fprintf(w, "- corpus: %s\n", res.Corpus)
	fmt.Fprintf(w, "- limit: %.0f GB resident\n\n", float64(res.LimitBytes)/1e9)
	head := []string{"documents", "corpus", "tool", "wall", "peak RSS", "RSS a document", "pairs / clusters / keep / drop", "sorted, same as dedup"}
	mdRow(w, head)
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, s := range res.Sizes {
		for _, r := range s.Runs {
			cells := []string{fmt.Sprintf("%d", s.Docs), fmt.Sprintf("%.0f MB", float64(s.CorpusBytes)/1e6), "`" + r.Tool + "`"}
			switch {
			case r.Skipped != "":
				cells = append(cells, "not run: "+r.Skipped, "", "", "", "")
			case r.Killed != "":
				cells = append(cells, fmt.Sprintf("killed: %s", r.Killed), "", "", "", "")
			case r.Error != "":
				cells = append(cells, "failed: "+firstLine(r.Error), "", "", "", "")
			default:
				same := ""
				if r.Same != nil {
					same = "yes"
					if !*r.Same {
						same = "**no**: " + r.Differs
					}
				}
				var lines []string
				for _, l := range r.Lines {
					lines = append(lines, fmt.Sprintf("%d", l))
				}
				cells = append(cells, fmt.Sprintf("%.1f s", r.WallSeconds), fmt.Sprintf("%.2f GB", float64(r.PeakRSS)/1e9),
					fmt.Sprintf("%.1f KB", float64(r.PeakRSS)/float64(s.Docs)/1e3), strings.Join(lines, " / "), same)
			}
			mdRow(w, cells)
		}
	}
	fmt.Fprintln(w)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
