// Command simidx-beam runs simidx dedup as an Apache Beam pipeline: in
// this process with the Prism runner (the default) or the direct runner,
// or on Flink, Spark or Dataflow with --runner and the runner's flags. It
// writes the JSON lines of simidx dedup --format jsonl --emit pairs,
// clusters, keep and drop to the --output directory (see docs/scale.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/simidx/simidx/beam/dedup"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/keep"
	"github.com/spf13/pflag"
)

const usageText = `Usage: simidx-beam --input PATH [--input PATH...] --output DIR [flags]

Simidx-beam finds the near duplicates of a corpus as simidx dedup does, as
an Apache Beam pipeline, and writes pairs.jsonl, clusters.jsonl, keep.jsonl
and drop.jsonl to DIR: the lines of simidx dedup --format jsonl with
--emit pairs, clusters, keep and drop (in no particular order; sorted, the
same lines). An --input is a file, a local directory (walked in lexical
order) or, with a scheme (gs://, s3://), a file or glob; files ending in
.jsonl or .ndjson (also .gz) are JSON lines, others one document each;
gzip is read by its magic bytes. The input order (of --keep first and of
the #2 suffixes of repeated IDs) is the order of the inputs, then of the
files, then of the lines.

It runs in this process with Prism (--runner prism, the default) or the Go
SDK's direct runner (--runner direct), both holding every collection in
memory; the same pipeline runs on Flink, Spark or Dataflow with --runner universal
--endpoint HOST:PORT, or --runner dataflow and its flags (docs/scale.md).
The settings flags are simidx dedup's. Beam's own flags (--runner,
--endpoint, --job_name, --environment_type, ...) are listed after them.

Flags:
`

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, pflag.ErrHelp):
	default:
		fmt.Fprintln(os.Stderr, "simidx-beam:", err)
		var u usageError
		if errors.As(err, &u) {
			fmt.Fprintln(os.Stderr, "Run simidx-beam --help for usage.")
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// options are the flags of simidx-beam.
type options struct {
	inputs    []string
	output    string
	format    string
	idField   string
	textField string
	emit      []string
	policy    string
	linkage   string
	maxGroup  int
	rounds    int
	q         indexflag.Query
	sf        indexflag.Settings
}

// flags defines simidx-beam's flags on a new set, with Beam's (the
// standard flag package's, which the runners read) after them.
func flags(o *options, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("simidx-beam", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.StringArrayVar(&o.inputs, "input", nil, "`PATH` to read: a file, a directory, or with a scheme a file or glob (repeatable)")
	fs.StringVar(&o.output, "output", "", "`DIR` to write pairs.jsonl, clusters.jsonl, keep.jsonl and drop.jsonl to")
	fs.StringVar(&o.format, "input-format", dedup.FormatAuto, "input `format`: auto (JSON lines by the name .jsonl or .ndjson), files (one document per file) or jsonl")
	fs.StringVar(&o.idField, "id-field", "id", "JSON `field` of the document ID")
	fs.StringVar(&o.textField, "text-field", "text", "JSON `field` of the document text")
	fs.StringSliceVar(&o.emit, "emit", dedup.Outputs, "`outputs` to write, of pairs, clusters, keep and drop")
	o.q.Add(fs, false)
	fs.StringVar(&o.policy, "keep", keep.First, "`policy` choosing the member a cluster keeps: first, last, longest, shortest or id")
	fs.StringVar(&o.linkage, "linkage", "center", "`linkage` joining pairs into clusters: center or single (as simidx dedup)")
	o.sf.AddIndex(fs, false)
	o.sf.AddText(fs)
	fs.IntVar(&o.maxGroup, "max-group", dedup.DefaultMaxGroup, "most distinct texts of one table or band key compared on one worker; larger groups are split into blocks (same pairs)")
	fs.IntVar(&o.rounds, "cc-rounds", dedup.DefaultRounds, "large-star/small-star `rounds` of the connected components (the pipeline fails, saying so, if they are too few)")
	fs.AddGoFlagSet(flag.CommandLine)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fmt.Fprint(stderr, fs.FlagUsages())
	}
	return fs
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := flags(&o, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	// In worker mode (started by a runner) this runs the worker and
	// exits.
	beam.Init()
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q: give inputs with --input", fs.Arg(0))
	}
	if len(o.inputs) == 0 {
		return usagef("give --input PATH (a file, a directory, or a glob with a scheme)")
	}
	if o.output == "" {
		return usagef("give --output DIR for the JSON lines")
	}
	switch r := fs.Lookup("runner").Value.String(); r {
	case "", "prism", "direct", "universal", "flink", "spark", "dataflow", "dot":
	default:
		return usagef("--runner must be prism (the default), direct, universal, flink, spark, dataflow or dot, not %q", r)
	}
	switch o.format {
	case dedup.FormatAuto, dedup.FormatFiles, dedup.FormatJSONL:
	default:
		return usagef("--input-format must be auto, files or jsonl, not %q", o.format)
	}
	if err := o.q.Check(); err != nil {
		return usageError{err}
	}
	if o.q.Verify() {
		return usagef("--verify is not supported by simidx-beam (it needs the shingle sets of an index)")
	}
	if o.linkage != "center" && o.linkage != "single" {
		return usagef("--linkage must be single or center, not %q", o.linkage)
	}
	st, err := o.sf.Build()
	if err != nil {
		return usageError{err}
	}
	k, kGiven := o.q.MaxDistance()
	sim := fs.Lookup("min-similarity")
	var minSim float64
	fmt.Sscan(sim.Value.String(), &minSim)
	rule, err := dedup.NewRule(st, kGiven, k, sim.Changed, minSim, o.policy, o.linkage == "center")
	if err != nil {
		return usageError{err}
	}
	files, err := dedup.ListInputs(ctx, o.inputs, o.format)
	if err != nil {
		return err
	}
	if !strings.Contains(o.output, "://") {
		if err := os.MkdirAll(o.output, 0o755); err != nil {
			return err
		}
	}
	p, s := beam.NewPipelineWithRoot()
	err = dedup.Build(s, dedup.Config{Rule: rule, Files: files, IDField: o.idField, TextField: o.textField,
		Output: o.output, Emit: o.emit, MaxGroup: o.maxGroup, Rounds: o.rounds})
	if err != nil {
		return usageError{err}
	}
	res, err := beamx.RunWithMetrics(ctx, p)
	if err != nil {
		return err
	}
	if res != nil {
		for _, c := range res.Metrics().AllMetrics().Counters() {
			if c.Key.Namespace == "simidx" {
				fmt.Fprintf(stderr, "%s %d\n", c.Key.Name, c.Committed)
			}
		}
	}
	fmt.Fprintf(stderr, "simidx-beam: %d input files; wrote %s to %s\n", len(files), strings.Join(o.emit, ", "), o.output)
	return nil
}
