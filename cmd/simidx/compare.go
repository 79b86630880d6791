package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/simidx/simidx/index"
	"github.com/simidx/simidx/internal/eval"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/output"
	"github.com/spf13/pflag"
)

var compareCommand = &command{
	name:  "compare",
	args:  "[settings flags | --db PATH] [--passages N] A B",
	short: "measure how much two texts share, and show the shared passages",
	long: `Compare measures two texts, A and B (files, or - for standard input, at
most once), under the text settings of an index: the defaults, the settings
flags given, or the settings of the index at --db (opened read-only). It
prints:

  jaccard        the exact Jaccard similarity of the two shingle sets
  containment_a  the share of A's shingles found in B
  containment_b  the share of B's shingles found in A
  distance       the Hamming distance of the 64-bit fingerprints
  similarity     the MinHash estimate of the Jaccard similarity ("-" and
                 left out of JSON without the MinHash layer)
  exact          whether the two canonical texts are the same

and the --passages longest passages the texts share: runs of consecutive
canonical words found in both, each as long as it can be, with its byte
offsets in A and in B (start and end), its length in words and its text in
A (cut short in the table). Similarities are truncated, never rounded up:
0.5952 shows as 0.59 in the table and 0.5952 in JSON. A text without words
(after markup, punctuation and case are removed) matches nothing: Jaccard,
containments and similarity 0, exact false.

An index does not keep the texts of its documents, so a stored document
(--id) cannot be compared: give its file.

Example:

	simidx compare testdata/licenses/MIT.txt testdata/licenses/X11.txt
	simidx compare --db licenses.db --format jsonl mine.txt testdata/licenses/MIT.txt
	cat draft.txt | simidx compare - final.txt`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &compareOptions{}
		fs.StringVar(&o.db, "db", "", "use the text settings of the index at `PATH`")
		fs.StringArrayVar(&o.id, "id", nil, "a stored document `ID`: refused, an index keeps no texts")
		fs.IntVar(&o.passages, "passages", 5, "show the `N` longest shared passages (0 for none)")
		o.sf.AddText(fs)
		o.out.add(fs)
		return func(ctx context.Context, e *env, args []string) error { return runCompare(ctx, e, o, args) }
	},
}

// compareOptions are the flags of simidx compare.
type compareOptions struct {
	db       string
	id       []string
	passages int
	sf       indexflag.Settings
	out      outputFlags
}

// runCompare runs simidx compare: measure the two texts named by args.
func runCompare(ctx context.Context, e *env, o *compareOptions, args []string) error {
	if err := o.out.check(o.db); err != nil {
		return err
	}
	if len(o.id) > 0 {
		return usagef("cannot compare the stored document %q: an index keeps the fingerprints and signatures of its documents, not their texts, and compare needs both texts; give the document's file", o.id[0])
	}
	if o.passages < 0 {
		return usagef("--passages must be 0 or more, not %d", o.passages)
	}
	switch {
	case len(args) < 2:
		return usagef("compare takes two texts, A and B (files, or - for standard input); got %d", len(args))
	case len(args) > 2:
		return usagef("compare takes two texts, A and B, not %d: %s", len(args), strings.Join(args, " "))
	case args[0] == "-" && args[1] == "-":
		return usagef("standard input (-) given more than once")
	}
	f, err := fingerprinter(&o.sf, o.db)
	if err != nil {
		return err
	}
	var texts [2]compareText
	for i, name := range args {
		if texts[i], err = readCompareText(name, e.stdin); err != nil {
			return err
		}
	}
	rec, err := compareTexts(ctx, f, texts[0], texts[1], o.passages)
	if err != nil {
		return err
	}
	w, err := o.out.open(e.stdout)
	if err != nil {
		return err
	}
	if w.JSONL() {
		w.JSON(rec)
	} else {
		writeCompareTable(w, rec)
	}
	return w.Close()
}

// compareText is a text to compare: the bytes read, and where its text
// starts after a byte order mark.
type compareText struct {
	raw  []byte
	from int
}

func (t compareText) text() []byte { return t.raw[t.from:] }

// readCompareText reads the file name, or standard input for "-", as
// simidx index reads a file: a leading byte order mark is skipped (offsets
// still count it), a NUL byte or more than index.MaxDocSize bytes is an
// error.
func readCompareText(name string, stdin io.Reader) (compareText, error) {
	r, label := stdin, "standard input"
	if name != "-" {
		label = name
		f, err := os.Open(name)
		if err != nil {
			return compareText{}, fmt.Errorf("cannot read %v", trimPathError(name, err))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return compareText{}, fmt.Errorf("%s is a directory; compare takes two files", name)
		}
		r = f
	}
	raw, err := io.ReadAll(io.LimitReader(r, int64(len(byteOrderMark)+index.MaxDocSize+1)))
	if err != nil {
		return compareText{}, fmt.Errorf("cannot read %v", trimPathError(label, err))
	}
	t := compareText{raw: raw}
	if bytes.HasPrefix(raw, []byte(byteOrderMark)) {
		t.from = len(byteOrderMark)
	}
	if len(t.text()) > index.MaxDocSize {
		return compareText{}, fmt.Errorf("%s is larger than %d MiB, the largest document simidx reads", label, index.MaxDocSize>>20)
	}
	if bytes.IndexByte(raw, 0) >= 0 {
		return compareText{}, fmt.Errorf("%s is binary (holds a NUL byte); compare takes texts", label)
	}
	return t, nil
}

// compareRecord is the object of compare --format jsonl (the same as
// the server's POST /v1/compare answers), with the ratios as fractions for
// the table.
type compareRecord struct {
	eval.CompareRecord

	// The ratios as fractions, for the table's truncated digits.
	jaccard, containA, containB, similarity eval.Ratio
}

// compareTexts measures a and b with f and finds their longest shared
// passages, at most passages of them (see eval.CompareTexts), with their
// offsets in the bytes read. It returns errInterrupted when ctx is done
// between two of its steps.
func compareTexts(ctx context.Context, f *index.Fingerprinter, a, b compareText, passages int) (compareRecord, error) {
	c, err := eval.CompareTexts(ctx, f, a.text(), b.text(), passages)
	if ctx.Err() != nil {
		return compareRecord{}, errInterrupted
	}
	if err != nil {
		return compareRecord{}, err
	}
	return compareRecord{CompareRecord: c.Record(a.raw, b.raw, a.from, b.from),
		jaccard: c.Jaccard, containA: c.ContainmentA, containB: c.ContainmentB, similarity: c.Similarity}, nil
}

// writeCompareTable writes r as a two-column table of the measures and,
// after a blank line, a table of the passages.
func writeCompareTable(w *output.Writer, r compareRecord) {
	sim := "-"
	if r.Similarity != nil {
		sim = r.similarity.String()
	}
	w.Row("jaccard", r.jaccard.String())
	w.Row("containment_a", r.containA.String())
	w.Row("containment_b", r.containB.String())
	w.Row("distance", strconv.Itoa(r.Distance))
	w.Row("similarity", sim)
	w.Row("exact", strconv.FormatBool(r.Exact))
	if len(r.Passages) == 0 {
		return
	}
	w.Row("")
	w.Row("A_START", "A_END", "B_START", "B_END", "WORDS", "TEXT")
	for _, p := range r.Passages {
		w.Row(strconv.Itoa(p.AStart), strconv.Itoa(p.AEnd), strconv.Itoa(p.BStart), strconv.Itoa(p.BEnd),
			strconv.Itoa(p.Words), cell(excerpt(p.Text, passageWidth)))
	}
}

// passageWidth is the most characters of a passage's text in the table.
const passageWidth = 60

// excerpt returns s with each run of white space made one space, cut to
// at most width characters, at a word boundary when there is one in the
// second half, with "…" when cut. Cost: O(width).
func excerpt(s string, width int) string {
	runes := make([]rune, 0, width+1)
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = len(runes) > 0
			continue
		}
		if space {
			runes = append(runes, ' ')
			space = false
		}
		runes = append(runes, r)
		if len(runes) > width {
			break
		}
	}
	if len(runes) <= width {
		return string(runes)
	}
	runes = runes[:width-1]
	for k := len(runes) - 1; k > len(runes)/2; k-- {
		if runes[k] == ' ' {
			runes = runes[:k]
			break
		}
	}
	return string(runes) + "…"
}
