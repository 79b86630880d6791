package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// recommendCorpora are the corpora `simidx bench` recommends settings for
// in the report, each for two preferences.
var recommendCorpora = []string{"spdx-licenses", "spamassassin-body"}

// recommendRow is what `simidx bench --format jsonl` recommended for one
// corpus and preference, beside the settings given (the defaults).
type recommendRow struct {
	Corpus, Prefer   string
	Docs, TruePairs  int
	Seconds          float64 // the join and the sweep
	Yours, Recommend recommendSetting
}

// recommendSetting is a setting of the sweep and its scores.
type recommendSetting struct {
	K             *int     `json:"k"`
	MinSimilarity *float64 `json:"min_similarity"`
	Precision     float64  `json:"precision"`
	Recall        float64  `json:"recall"`
	F1            float64  `json:"f1"`
	Reported      int      `json:"reported"`
	Dedup         string   `json:"dedup"`
}

// flags returns the command-line flags of s.
func (s recommendSetting) flags() string {
	var f []string
	if s.K != nil {
		f = append(f, fmt.Sprintf("-k %d", *s.K))
	}
	if s.MinSimilarity != nil {
		f = append(f, fmt.Sprintf("--min-similarity %g", *s.MinSimilarity))
	}
	return strings.Join(f, " ")
}

// runRecommend runs `simidx bench --format jsonl --prefer P --join-sample
// sample` of the simidx at bin on corpus, for P in f1 and precision, and
// returns what it recommended.
func runRecommend(bin, name, corpus string, sample int) ([]recommendRow, error) {
	var rows []recommendRow
	for _, prefer := range []string{"f1", "precision"} {
		cmd := exec.Command(bin, "bench", "--format", "jsonl", "--prefer", prefer, "--join-sample", fmt.Sprint(sample), corpus)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("simidx bench %s: %v\n%s", name, err, stderr.String())
		}
		row := recommendRow{Corpus: name, Prefer: prefer}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var g struct {
				Group        string  `json:"group"`
				Docs         int     `json:"docs"`
				TruePairs    int     `json:"true_pairs"`
				JoinSeconds  float64 `json:"join_seconds"`
				SweepSeconds float64 `json:"sweep_seconds"`
			}
			if json.Unmarshal(sc.Bytes(), &g) != nil {
				continue
			}
			switch g.Group {
			case "real sample":
				row.Docs, row.TruePairs = g.Docs, g.TruePairs
				row.Seconds = g.JoinSeconds + g.SweepSeconds
			case "yours":
				json.Unmarshal(sc.Bytes(), &row.Yours)
			case "recommended":
				json.Unmarshal(sc.Bytes(), &row.Recommend)
			}
		}
		if row.Recommend.Dedup == "" {
			return nil, fmt.Errorf("simidx bench %s --prefer %s recommended nothing", name, prefer)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// writeRecommend writes the section of the recommendations.
func writeRecommend(w io.Writer, rows []recommendRow) {
	fmt.Fprintln(w, "`simidx bench CORPUS --prefer P` of this tree on the shared corpora (`--format jsonl`): an exact join of a sample of the corpus gives the true pairs (J >= the target similarity over the index's shingles), a sweep of -k and --min-similarity on an index of the sample scores each setting by the index's own rule, a reported pair below the target counting against it; the best for the preference is recommended, beside the default settings (-k 3, --min-similarity 0.6).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| corpus | sample | true pairs | prefer | recommended | P / R / F1 | defaults: P / R / F1 | seconds |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d | %d | %s | `%s` | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %.1f |\n",
			r.Corpus, r.Docs, r.TruePairs, r.Prefer, r.Recommend.flags(),
			r.Recommend.Precision, r.Recommend.Recall, r.Recommend.F1,
			r.Yours.Precision, r.Yours.Recall, r.Yours.F1, r.Seconds)
	}
	fmt.Fprintln(w)
}

// recommendBinary builds simidx once for the section, in a directory the
// caller removes.
func recommendBinary() (bin, dir string, err error) {
	dir, err = os.MkdirTemp("", "simidx-recommend-")
	if err != nil {
		return "", "", err
	}
	bin, err = buildSimidx(dir)
	return bin, dir, err
}
