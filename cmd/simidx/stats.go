package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/simhash"
	"github.com/spf13/pflag"
)

var statsCommand = &command{
	name:  "stats",
	args:  "--db PATH [--check]",
	short: "describe an index",
	long: `Stats describes the index at --db: its documents, settings, table design and
size on disk (each bucket of the file: its keys, its bytes, its bytes per
document), as a two-column table or, with --format jsonl, one JSON object.
With --check it also verifies every invariant of the index and fails if one
is broken.

Example:

	simidx stats --db licenses.db
	simidx stats --db licenses.db --check --format jsonl`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &statsOptions{}
		fs.StringVar(&o.db, "db", "", "index file `PATH`")
		fs.BoolVar(&o.check, "check", false, "verify the index (reads all of it)")
		o.out.add(fs)
		return func(ctx context.Context, e *env, args []string) error { return runStats(ctx, e, o, args) }
	},
}

// statsOptions are the flags of simidx stats.
type statsOptions struct {
	db    string
	check bool
	out   outputFlags
}

// runStats runs simidx stats: describe the index at --db.
func runStats(ctx context.Context, e *env, o *statsOptions, args []string) error {
	if err := o.out.check(o.db); err != nil {
		return err
	}
	if len(args) > 0 {
		return usagef("stats takes no arguments, got %q", strings.Join(args, " "))
	}
	x, err := openExisting(o.db, true, false)
	if err != nil {
		return err
	}
	defer x.Close()
	st, err := x.Stats()
	if err != nil {
		return err
	}
	rec := newStatsRecord(o.db, x.Settings(), st)
	if rec.Buckets, err = x.BucketStats(); err != nil {
		return err
	}
	if o.check {
		if err := x.Check(); err != nil {
			return fmt.Errorf("%s fails the check: %v", o.db, err)
		}
		ok := true
		rec.Check = &ok
	}
	w, err := o.out.open(e.stdout)
	if err != nil {
		return err
	}
	if w.JSONL() {
		w.JSON(rec)
	} else {
		for _, kv := range statsRows(rec) {
			w.Row(kv[0], kv[1])
		}
	}
	return w.Close()
}

// statsRecord is the object of stats --format jsonl: the path, the fields
// of index.Stats and the text settings, whose kinds (markup, unit,
// features, MinHash scheme) are written by name.
type statsRecord struct {
	Path string `json:"path"`
	index.Stats
	StoreShingles bool                `json:"store_shingles"`
	Text          index.TextSettings  `json:"-"`
	TextNamed     map[string]any      `json:"text"`
	Buckets       []index.BucketStats `json:"buckets,omitempty"`
	Check         *bool               `json:"check,omitempty"`
}

// newStatsRecord returns the record of the index at path, of settings s,
// described by st.
func newStatsRecord(path string, s index.Settings, st index.Stats) statsRecord {
	return statsRecord{Path: path, Stats: st, Text: s.Text, TextNamed: indexflag.NamedText(s.Text), StoreShingles: s.StoreShingles}
}

// statsRows are the rows of the stats table.
func statsRows(r statsRecord) [][2]string {
	s := r.Stats
	sh := r.Text.Shingle
	rows := [][2]string{
		{"path", r.Path},
		{"documents", strconv.Itoa(s.Docs)},
		{"documents without words", strconv.Itoa(s.Empty)},
		{"schema version", strconv.Itoa(s.SchemaVersion)},
		{"max distance (k)", strconv.Itoa(s.MaxDistance)},
		{"expected documents", strconv.Itoa(s.ExpectedDocs)},
		{"tables", strconv.Itoa(s.Tables)},
		{"blocks", strings.Trim(fmt.Sprint(s.Blocks), "[]")},
		{"prefix bits", strconv.Itoa(s.PrefixBits)},
		{"key bits", strconv.Itoa(s.KeyBits)},
		{"recent table documents", strconv.Itoa(s.RecentTables)},
		{"minhash", strconv.FormatBool(s.MinHash)},
	}
	if s.MinHash {
		rows = append(rows,
			[2]string{"minhash values", fmt.Sprintf("%d of %d bits", s.MinHashK, s.SignatureBits)},
			[2]string{"bands", strconv.Itoa(s.Bands)},
			[2]string{"recent band documents", strconv.Itoa(s.RecentBands)},
		)
		short := "off"
		if s.ShortUnits > 0 {
			short = fmt.Sprintf("texts of at most %d units, %d bands of %d values", s.ShortUnits, s.ShortBands, s.ShortRows)
			if s.ShortLayer >= 2 {
				short = fmt.Sprintf("texts of at most %d pairs of units, %d bands of %d values, signature bands above %d pairs",
					s.ShortUnits+1, s.ShortBands, s.ShortRows, (s.ShortUnits+1)/2)
			}
		}
		rows = append(rows, [2]string{"short-text layer", short})
	}
	rows = append(rows,
		[2]string{"shingle sets stored", strconv.FormatBool(r.StoreShingles)},
		[2]string{"text", fmt.Sprintf("method %s, unit %s, shingle size %d, markup %s, features %s", r.Text.Method, sh.Unit, sh.Size, sh.Markup, featuresName(r.Text))},
		[2]string{"file size", formatBytes(s.FileBytes)},
		[2]string{"data size", formatBytes(s.DataBytes)},
		[2]string{"bytes per document", fmt.Sprintf("%.1f", s.BytesPerDoc)},
		[2]string{"table size", formatBytes(s.TableBytes)},
		[2]string{"table bytes per document", fmt.Sprintf("%.1f", s.TableBytesPerDoc)},
	)
	for _, b := range r.Buckets {
		rows = append(rows, [2]string{"bucket " + b.Name, fmt.Sprintf("%s in %d keys, %.1f bytes per document, %.0f%% in use",
			formatBytes(b.Bytes), b.Keys, b.BytesPerDoc, 100*float64(b.InUse)/float64(max(b.Bytes, 1)))})
	}
	if r.Check != nil {
		rows = append(rows, [2]string{"check", "ok"})
	}
	return rows
}

func featuresName(t index.TextSettings) string {
	if t.Features == simhash.Shingles {
		return fmt.Sprintf("shingles of %d", t.FeatureSize)
	}
	return t.Features.String()
}
