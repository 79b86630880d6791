package main

import (
	"flag"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/testcorpus"
	"github.com/simidx/simidx/shingle"
)

func init() { commands["keys"] = keysMain }

// keysTarget is the corpus size the simulation extrapolates to.
const keysTarget = 1e9

// keysMaxGroup is simidx-beam's default --max-group.
const keysMaxGroup = 2000

// keysShuffleRate is the assumed shuffle throughput of one core, bytes a
// second, for the machine-hours of the shuffle.
const keysShuffleRate = 100e6

// keysResults is what the keys subcommand measured: the keys of
// simidx-beam's pipeline over real corpora, and their extrapolation to
// 10^9 documents.
type keysResults struct {
	Command string `json:"command"`
	Machine string `json:"machine"`
	// Settings are the pipeline's defaults the keys are those of.
	Settings string `json:"settings"`
	// AnalyzeMBps is the analysis throughput of one core (AnalyzeText)
	// over all the corpora, MB of text a second; ComparesPerSec the
	// comparisons of one core in the group stage (a block of 2,000 x
	// 2,000 entries of a table key).
	AnalyzeMBps    float64       `json:"analyze_mb_per_sec"`
	ComparesPerSec float64       `json:"compares_per_sec"`
	Corpora        []*keysCorpus `json:"corpora"`
	Seconds        float64       `json:"seconds"`
}

// keysCorpus is one corpus (or all of them as one: "all").
type keysCorpus struct {
	Name      string  `json:"name"`
	Docs      int     `json:"docs"`
	Distinct  int     `json:"distinct"` // distinct texts with units, after the collapse of exact copies
	TextBytes int64   `json:"text_bytes"`
	Design    string  `json:"design"` // of index.DesignFor(k, Docs)
	Table     keyDist `json:"table"`
	Band      keyDist `json:"band"`
	// Candidates are the pairs the group stage emits (table pairs within
	// k from their first shared table, band pairs beyond k from their
	// first shared band).
	Candidates int64 `json:"candidates"`
	// Shuffle is the bytes shuffled per distinct text: CollapseBytes the
	// analysis (ID, sizes, fingerprint, hashes, signature, short set,
	// band hashes), TableBytes and BandBytes its keys' entries (key,
	// Seq, fingerprint, earlier band hashes); VerifyBytes per candidate
	// (both signatures and short sets).
	CollapseBytes float64 `json:"collapse_bytes"`
	TableBytes    float64 `json:"table_bytes"`
	BandBytes     float64 `json:"band_bytes"`
	VerifyBytes   float64 `json:"verify_bytes_per_candidate"`
	// MeanDistance is the mean Hamming distance of the fingerprints of
	// random pairs of distinct texts (32 for random fingerprints).
	MeanDistance float64 `json:"mean_distance"`
	// TargetPairs are the pairs beyond k bits compared in the tables of
	// the design for keysTarget documents (a pair once per table key it
	// shares), among the distinct texts (TargetRandom for random
	// fingerprints): the fingerprints of texts of one kind are not
	// uniform, and for texts drawn from one distribution these pairs grow
	// with N^2.
	TargetPairs  int64   `json:"target_design_pairs"`
	TargetRandom float64 `json:"target_design_random_pairs"`
	// TargetLargest is the largest group of a table key of that design.
	TargetLargest int `json:"target_design_largest"`
	// At is the extrapolation to keysTarget documents.
	At keysAt `json:"at_1e9"`

	tableNear   int64 // table pairs within k bits, at the corpus's design
	targetSizes []int // the groups of the design for keysTarget
}

// keyDist is the distribution of the group sizes of one kind of key.
type keyDist struct {
	Keys    int     `json:"keys"`    // keys with a member
	Entries int64   `json:"entries"` // members of all keys
	Largest int     `json:"largest"`
	P99     int     `json:"p99"`   // over the keys
	Pairs   int64   `json:"pairs"` // sum of C(g, 2): the comparisons of the group stage
	Random  float64 `json:"random_pairs,omitempty"`
	// Skew is the largest group over the mean group.
	Skew float64 `json:"skew"`
	Hot  int     `json:"hot"` // keys of more than keysMaxGroup texts
	// Sizes are the group sizes of two or more, largest first (for the
	// extrapolation).
	Sizes []int `json:"-"`
}

// keysAt is a corpus extrapolated to keysTarget documents (see
// extrapolate) under two models of its near duplicates: local (more
// clusters of the same sizes: their pairs grow with N) and boilerplate
// (every group of near duplicates grows with N: their pairs grow with
// N^2).
type keysAt struct {
	Design string `json:"design"`
	// RandomPairs are the table pairs of random fingerprints;
	// UnrelatedPairs those of the corpus's fingerprints beyond k bits
	// (TargetPairs grown with N^2).
	RandomPairs    float64 `json:"random_pairs"`
	UnrelatedPairs float64 `json:"unrelated_pairs"`
	LocalPairs     float64 `json:"local_pairs"`
	BoilerPairs    float64 `json:"boilerplate_pairs"`
	LocalCands     float64 `json:"local_candidates"`
	BoilerCands    float64 `json:"boilerplate_candidates"`
	// LargestLocal and LargestBoiler are the largest group of a key.
	LargestLocal  float64 `json:"largest_local"`
	LargestBoiler float64 `json:"largest_boilerplate"`
	ShuffleLocal  float64 `json:"shuffle_bytes_local"`
	ShuffleBoiler float64 `json:"shuffle_bytes_boilerplate"`
	HoursLocal    float64 `json:"core_hours_local"`
	HoursBoiler   float64 `json:"core_hours_boilerplate"`
	AnalyzeHours  float64 `json:"analyze_core_hours"`
}

// keysDoc is one analysed document.
type keysDoc struct {
	fp, exact   uint64
	bands       []uint64
	sigBytes    int // 8 B a value of the signature and the short set
	analysis    int // bytes of the collapse's record
	empty       bool
	size        int
	corpusIndex int
}

func keysMain(args []string) error {
	fs := flag.NewFlagSet("keys", flag.ExitOnError)
	corpora := fs.String("corpora", "", "directory of the JSONL corpora (required)")
	jsonOut := fs.String("json", "", "write the results to `FILE`")
	fs.Parse(args)
	if *corpora == "" {
		return fmt.Errorf("keys: -corpora is required")
	}
	res, err := runKeys(*corpora)
	if err != nil {
		return err
	}
	res.Command = "cd bench && go run . keys " + strings.Join(args, " ")
	writeKeysSection(os.Stdout, res)
	if *jsonOut != "" {
		return writeResultsJSON(*jsonOut, res)
	}
	return nil
}

// runKeys analyses every corpus of dir with the pipeline's default
// settings and measures its keys, each corpus alone and all together.
func runKeys(dir string) (*keysResults, error) {
	start := time.Now()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("keys: no *.jsonl in %s", dir)
	}
	f, err := index.NewFingerprinter(&index.Settings{})
	if err != nil {
		return nil, err
	}
	st := f.Settings()
	k := max(st.MaxDistance, 0)
	emptyHash := f.TextHash(nil)
	res := &keysResults{Machine: machine(),
		Settings: fmt.Sprintf("the defaults of simidx-beam: k = %d, MinHash %d values in %d bands (band keys with the similarity threshold), short-text layer of %d units in %d bands, --max-group %d",
			k, st.MinHashK, st.Bands, st.ShortUnits, st.ShortBands, keysMaxGroup)}
	var all []keysDoc
	var analyzeTime time.Duration
	var analyzeBytes int64
	var names []string
	for ci, path := range files {
		docs, err := testcorpus.Load(path)
		if err != nil {
			return nil, err
		}
		names = append(names, strings.TrimSuffix(filepath.Base(path), ".jsonl"))
		t := time.Now()
		for _, d := range docs {
			fp, exact, sig, short, bands := f.AnalyzeText([]byte(d.Text))
			kd := keysDoc{fp: fp, exact: exact, bands: slices.Clone(bands), size: len(d.Text), corpusIndex: ci,
				sigBytes: 8 * (len(sig) + len(short)), empty: exact == emptyHash}
			// The collapse's record: Seq, ID, size, fingerprint, exact
			// hash, signature, short set, band hashes, and the empty flag.
			kd.analysis = 8 + len(d.ID) + 8 + 8 + 8 + kd.sigBytes + 8*len(bands) + 1
			all = append(all, kd)
			analyzeBytes += int64(len(d.Text))
		}
		analyzeTime += time.Since(t)
	}
	res.AnalyzeMBps = float64(analyzeBytes) / 1e6 / analyzeTime.Seconds()
	res.ComparesPerSec = measureCompares(k)
	for ci, name := range names {
		var docs []keysDoc
		for _, d := range all {
			if d.corpusIndex == ci {
				docs = append(docs, d)
			}
		}
		c, err := keysOf(name, docs, k, st.MinBands, res)
		if err != nil {
			return nil, err
		}
		res.Corpora = append(res.Corpora, c)
	}
	c, err := keysOf("all", all, k, st.MinBands, res)
	if err != nil {
		return nil, err
	}
	res.Corpora = append(res.Corpora, c)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// keyEntry is a distinct text in a key's group.
type keyEntry struct {
	fp    uint64
	bands []uint64
}

// keysOf measures the keys of docs as simidx-beam makes them: exact
// copies collapsed, then one key per permuted table of the design for
// len(docs) documents and one per band hash.
func keysOf(name string, docs []keysDoc, k, minBands int, res *keysResults) (*keysCorpus, error) {
	c := &keysCorpus{Name: name, Docs: len(docs)}
	design := index.DesignFor(k, max(len(docs), 1))
	tk, err := index.NewTableKeys(design, k)
	if err != nil {
		return nil, err
	}
	c.Design = designString(design, k)
	var distinct []keyEntry
	seen := map[uint64]bool{}
	tables := map[[2]uint64][]keyEntry{}
	bands := map[[2]uint64][]keyEntry{}
	var collapse, tableB, bandB, sigB float64
	var keys []uint64
	for _, d := range docs {
		c.TextBytes += int64(d.size)
		if d.empty || seen[d.exact] {
			continue
		}
		seen[d.exact] = true
		c.Distinct++
		collapse += float64(d.analysis)
		sigB += float64(d.sigBytes)
		e := keyEntry{fp: d.fp, bands: d.bands}
		distinct = append(distinct, e)
		keys = tk.Append(keys[:0], d.fp)
		for t, v := range keys {
			tables[[2]uint64{uint64(t), v}] = append(tables[[2]uint64{uint64(t), v}], e)
			tableB += 11 + 8 + 8 // key, Seq, fingerprint
		}
		for b, h := range d.bands {
			if h == 0 {
				continue
			}
			bands[[2]uint64{uint64(b), h}] = append(bands[[2]uint64{uint64(b), h}], e)
			earlier := b
			if minBands > 1 {
				earlier = len(d.bands)
			}
			bandB += 11 + 8 + 8 + 8*float64(earlier)
		}
	}
	if c.Distinct == 0 {
		return c, nil
	}
	n := float64(c.Distinct)
	c.CollapseBytes, c.TableBytes, c.BandBytes = collapse/n, tableB/n, bandB/n
	c.VerifyBytes = 2 * sigB / n
	c.Table = distOf(tables)
	c.Band = distOf(bands)
	c.Table.Random = float64(len(docs)) / 2 * design.Candidates(k, len(docs))
	// The candidates, as the group stage finds them.
	for key, es := range tables {
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				if bits.OnesCount64(es[i].fp^es[j].fp) <= k {
					c.tableNear++
					if tk.First(es[i].fp, es[j].fp) == int(key[0]) {
						c.Candidates++
					}
				}
			}
		}
	}
	for key, es := range bands {
		slot := int(key[0])
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				a, b := &es[i], &es[j]
				if bits.OnesCount64(a.fp^b.fp) <= k || sharedBefore(a.bands, b.bands, slot) {
					continue
				}
				if minBands > 1 && shingle.SharedBands(a.bands, b.bands) < minBands {
					continue
				}
				c.Candidates++
			}
		}
	}
	// Pairs beyond k bits under the design for keysTarget, and the mean
	// distance of random pairs.
	tt, err := index.NewTableKeys(index.DesignFor(k, keysTarget), k)
	if err != nil {
		return nil, err
	}
	target := map[[2]uint64][]uint64{}
	for _, e := range distinct {
		keys = tt.Append(keys[:0], e.fp)
		for t, v := range keys {
			target[[2]uint64{uint64(t), v}] = append(target[[2]uint64{uint64(t), v}], e.fp)
		}
	}
	for _, fps := range target {
		c.TargetLargest = max(c.TargetLargest, len(fps))
		if len(fps) > 1 {
			c.targetSizes = append(c.targetSizes, len(fps))
		}
		for i := range fps {
			for j := i + 1; j < len(fps); j++ {
				if bits.OnesCount64(fps[i]^fps[j]) > k {
					c.TargetPairs++
				}
			}
		}
	}
	c.TargetRandom = n * (n - 1) / 2 * index.DesignFor(k, keysTarget).Candidates(k, 1)
	if len(distinct) > 1 {
		rng := rand.New(rand.NewPCG(5, uint64(len(distinct))))
		var sum int
		const samples = 100000
		for range samples {
			i, j := rng.IntN(len(distinct)), rng.IntN(len(distinct)-1)
			if j >= i {
				j++
			}
			sum += bits.OnesCount64(distinct[i].fp ^ distinct[j].fp)
		}
		c.MeanDistance = float64(sum) / samples
	}
	c.At = extrapolate(c, k, res)
	return c, nil
}

// sharedBefore reports whether two texts share a band before slot.
func sharedBefore(a, b []uint64, slot int) bool {
	for i := range min(slot, len(a), len(b)) {
		if a[i] == b[i] && a[i] != 0 {
			return true
		}
	}
	return false
}

func distOf(groups map[[2]uint64][]keyEntry) keyDist {
	var d keyDist
	var sizes []int
	for _, es := range groups {
		g := len(es)
		d.Keys++
		d.Entries += int64(g)
		d.Pairs += int64(g) * int64(g-1) / 2
		if g > keysMaxGroup {
			d.Hot++
		}
		sizes = append(sizes, g)
		if g >= 2 {
			d.Sizes = append(d.Sizes, g)
		}
	}
	if d.Keys == 0 {
		return d
	}
	slices.Sort(sizes)
	d.Largest = sizes[len(sizes)-1]
	d.P99 = sizes[int(0.99*float64(len(sizes)-1))]
	d.Skew = float64(d.Largest) / (float64(d.Entries) / float64(d.Keys))
	slices.SortFunc(d.Sizes, func(a, b int) int { return b - a })
	return d
}

func designString(d index.Design, k int) string {
	lo, hi := d.PrefixBits(k)
	bitsS := fmt.Sprintf("%d", lo)
	if hi != lo {
		bitsS = fmt.Sprintf("%d-%d", lo, hi)
	}
	return fmt.Sprintf("%d blocks, %d tables, keys of %s bits", len(d.Blocks), d.Tables(k), bitsS)
}

// extrapolate scales corpus c to keysTarget documents (s =
// keysTarget/Docs): the same share of exact copies; the table keys of the
// design for keysTarget, whose pairs beyond k grow with N^2 from those
// measured under that design (texts drawn from one distribution collide
// at a fixed rate per pair; random fingerprints: N/2 x
// Design.Candidates), and whose groups grow s times; the near
// duplicates' pairs (table pairs within k, band pairs) and the candidates
// grown s times (local: more clusters of the same sizes) or s^2 times
// (boilerplate: every group s times larger). Shuffle: the measured bytes
// per distinct text, the candidates' signatures, and each member of a
// group over keysMaxGroup sent once per sub-group (S times). Core-hours:
// the analysis at the measured throughput, the comparisons at the
// measured rate, the shuffle at keysShuffleRate a core.
func extrapolate(c *keysCorpus, k int, res *keysResults) keysAt {
	var a keysAt
	N := keysTarget
	s := N / float64(c.Docs)
	design := index.DesignFor(k, int(N))
	a.Design = designString(design, k)
	distinct := float64(c.Distinct) * s
	a.RandomPairs = distinct / 2 * design.Candidates(k, int(distinct))
	d := float64(c.Distinct)
	a.UnrelatedPairs = float64(c.TargetPairs) / (d * (d - 1) / 2) * distinct * (distinct - 1) / 2
	near := float64(c.Band.Pairs) + float64(c.tableNear)
	a.LocalPairs = a.UnrelatedPairs + near*s
	a.BoilerPairs = a.UnrelatedPairs + near*s*s
	a.LocalCands = float64(c.Candidates) * s
	a.BoilerCands = float64(c.Candidates) * s * s
	a.LargestLocal = max(float64(c.TargetLargest)*s, float64(c.Band.Largest))
	a.LargestBoiler = max(float64(c.TargetLargest), float64(c.Band.Largest)) * s
	tables := float64(design.Tables(k))
	measuredTables := float64(c.Table.Entries) / d
	base := distinct * (c.CollapseBytes + c.TableBytes/measuredTables*tables + c.BandBytes)
	// A group of g texts over keysMaxGroup is split into S sub-groups,
	// and each member is shuffled S times instead of once.
	extra := func(sizes []int, scale float64) float64 {
		var b float64
		for _, g := range sizes {
			gs := float64(g) * scale
			if gs > keysMaxGroup {
				b += gs * (math.Ceil(gs/keysMaxGroup) - 1) * 27
			}
		}
		return b
	}
	hotTables := extra(c.targetSizes, s)
	a.ShuffleLocal = base + hotTables + a.LocalCands*(c.VerifyBytes+16)
	a.ShuffleBoiler = base + hotTables + extra(c.Band.Sizes, s) + a.BoilerCands*(c.VerifyBytes+16)
	a.AnalyzeHours = float64(c.TextBytes) * s / (res.AnalyzeMBps * 1e6) / 3600
	hours := func(pairs, shuffle float64) float64 {
		return a.AnalyzeHours + pairs/res.ComparesPerSec/3600 + shuffle/keysShuffleRate/3600
	}
	a.HoursLocal = hours(a.LocalPairs, a.ShuffleLocal)
	a.HoursBoiler = hours(a.BoilerPairs, a.ShuffleBoiler)
	return a
}

// measureCompares returns the comparisons a second of one core in the
// group stage: a block of 2,000 x 2,000 random entries of one table key
// (popcount, then the first shared table), best of three.
func measureCompares(k int) float64 {
	tk, err := index.NewTableKeys(index.DesignFor(k, keysTarget), k)
	if err != nil {
		return math.NaN()
	}
	rng := rand.New(rand.NewPCG(1, 2))
	fps := make([]uint64, keysMaxGroup)
	for i := range fps {
		fps[i] = rng.Uint64()
	}
	var hits int
	d := best(3, func() {
		for i := range fps {
			for j := i + 1; j < len(fps); j++ {
				if bits.OnesCount64(fps[i]^fps[j]) <= k && tk.First(fps[i], fps[j]) == 0 {
					hits++
				}
			}
		}
	})
	_ = hits
	return float64(len(fps)*(len(fps)-1)/2) / d.Seconds()
}
