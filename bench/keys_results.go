package main

import (
	"fmt"
	"io"
	"strings"
)

const keysHeading = "### Keys at 10^9 documents: a simulation"

// keysIntro says what the tables hold and the model of the extrapolation.
const keysIntro = "Subcommand `keys` (also a step of `all`): every corpus analysed with simidx-beam's default settings " +
	"(`index.Fingerprinter.AnalyzeText`), exact copies collapsed by canonical-text hash, then the keys the pipeline " +
	"groups by: one per permuted table of `index.DesignFor(k, N)` (`index.TableKeys`, N the corpus's documents) and one " +
	"per band hash. *pairs* is the sum of C(g, 2) over the groups, the comparisons of the group stage; *random* what " +
	"random fingerprints would give the table keys at that N (N/2 × `Design.Candidates`); *skew* the largest group over " +
	"the mean one; *candidates* the pairs the group stage emits (each from the first key the two share); *shuffle* the " +
	"bytes shuffled per distinct text (the collapse's record, the table and band keys' entries). The row *all* is every " +
	"corpus as one."

// keysModel states the extrapolation.
const keysModel = "Extrapolated to 10^9 documents of each corpus's kind (s = 10^9/N): the same share of exact copies; " +
	"table keys of the design for 10^9 documents. Their pairs beyond k bits are the texts' fingerprints colliding: " +
	"N/2 × `Design.Candidates` for random fingerprints, and for this kind of text the pairs measured on the corpus " +
	"under that design (*pairs beyond k at the 10^9 design*), grown with N²: texts drawn from one distribution " +
	"collide at a fixed rate per pair. The near duplicates' pairs (table pairs within k, every band pair) grow s times if they " +
	"are *local* (more clusters of the same sizes) and s² times if they are *boilerplate* (every group of near " +
	"duplicates s times larger); candidates likewise. The groups of table keys grow s times (those measured under the " +
	"10^9 design), and under boilerplate the band keys' too. A group of g texts over `--max-group 2000` is split into " +
	"S = ⌈g/2000⌉ sub-groups (S(S+1)/2 blocks of at most about 4,000 texts, about 4 million comparisons a block, " +
	"on one worker), each member shuffled S times. Shuffle: the bytes per distinct text measured " +
	"(the table keys for the design's tables), the signatures of both texts of each candidate, and the hot groups' " +
	"extra copies. Core-hours: the analysis at the measured throughput of one core, the comparisons at the " +
	"measured rate of one core, the shuffle at an assumed 100 MB/s a core (not measured here)."

// writeKeysSection writes the section on the simulated keys at 10^9
// documents.
func writeKeysSection(w io.Writer, res *keysResults) {
	if res == nil {
		return
	}
	fmt.Fprint(w, keysHeading+"\n\n")
	fmt.Fprint(w, keysIntro+"\n\n")
	fmt.Fprintf(w, "```\n%s\n```\n\n", res.Command)
	fmt.Fprintf(w, "- machine: %s\n", res.Machine)
	fmt.Fprintf(w, "- settings: %s\n", res.Settings)
	fmt.Fprintf(w, "- measured on one core: analysis %.1f MB/s of text; group stage %.0f million comparisons a second (a block of 2,000 × 2,000 entries of a table key)\n", res.AnalyzeMBps, res.ComparesPerSec/1e6)
	fmt.Fprintf(w, "- wall time: %.1f s\n\n", res.Seconds)
	head := []string{"corpus", "documents", "distinct texts", "design", "table keys: largest / p99 / skew", "table pairs (random)", "band keys: largest / p99 / skew", "band pairs", "candidates", "shuffle per distinct text", "mean distance", "pairs beyond k at the 10^9 design (random)"}
	mdRow(w, head)
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, c := range res.Corpora {
		mdRow(w, []string{c.Name, fmt.Sprint(c.Docs), fmt.Sprint(c.Distinct), c.Design,
			fmt.Sprintf("%d / %d / %.0f", c.Table.Largest, c.Table.P99, c.Table.Skew),
			fmt.Sprintf("%d (%.0f)", c.Table.Pairs, c.Table.Random),
			fmt.Sprintf("%d / %d / %.0f", c.Band.Largest, c.Band.P99, c.Band.Skew),
			fmt.Sprint(c.Band.Pairs), fmt.Sprint(c.Candidates),
			fmt.Sprintf("%.0f B (collapse %.0f, tables %.0f, bands %.0f)", c.CollapseBytes+c.TableBytes+c.BandBytes, c.CollapseBytes, c.TableBytes, c.BandBytes),
			fmt.Sprintf("%.1f", c.MeanDistance), fmt.Sprintf("%d (%.2g)", c.TargetPairs, c.TargetRandom)})
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, keysModel+"\n\n")
	head = []string{"at 10^9, like", "design", "table pairs beyond k: random / this kind", "compared pairs: local / boilerplate", "candidates: local / boilerplate", "largest group: local / boilerplate", "shuffle: local / boilerplate", "core-hours: analysis / local / boilerplate"}
	mdRow(w, head)
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, c := range res.Corpora {
		a := c.At
		mdRow(w, []string{c.Name, a.Design, sci(a.RandomPairs) + " / " + sci(a.UnrelatedPairs), sci(a.LocalPairs) + " / " + sci(a.BoilerPairs), sci(a.LocalCands) + " / " + sci(a.BoilerCands),
			fmt.Sprintf("%s / %s", sci(a.LargestLocal), sci(a.LargestBoiler)),
			fmt.Sprintf("%.1f TB / %.1f TB", a.ShuffleLocal/1e12, a.ShuffleBoiler/1e12),
			fmt.Sprintf("%s / %s / %s", sci(a.AnalyzeHours), sci(a.HoursLocal), sci(a.HoursBoiler))})
	}
	fmt.Fprintln(w)
}

// sci formats v with three significant digits, in powers of ten past a
// million.
func sci(v float64) string {
	switch {
	case v < 100:
		return fmt.Sprintf("%.3g", v)
	case v < 1e6:
		return fmt.Sprintf("%.0f", v)
	}
	s := fmt.Sprintf("%.2e", v)
	m, e, _ := strings.Cut(s, "e+")
	e = strings.TrimLeft(e, "0")
	return m + "×10^" + e
}
