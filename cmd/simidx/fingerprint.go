package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/simidx/simidx/internal/console"
	"github.com/simidx/simidx/internal/indexflag"
	"github.com/simidx/simidx/internal/input"
	"github.com/spf13/pflag"
)

var fingerprintCommand = &command{
	name:  "fingerprint",
	args:  "[settings flags] [FILE...|-]",
	short: "print the 64-bit simhash of documents, like md5sum",
	long: `Fingerprint prints the 64-bit simhash fingerprint of each document as 16
hexadecimal digits, two spaces and the document's name, like md5sum, without
an index. As GNU md5sum does, a name with a backslash, a newline or a
carriage return is escaped (\\, \n, \r) and its line starts with a
backslash. Documents are read like simidx index reads its inputs (a
directory recursively, --input included); with no FILE, one document from
standard input.

The fingerprint depends on the text settings: the defaults, the flags given,
or the settings of the index at --db. Its output is valid input for
simidx index --input hashes.

Example:

	simidx fingerprint testdata/licenses/MIT.txt testdata/licenses/X11.txt
	simidx fingerprint --format jsonl --input jsonl docs.jsonl`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error {
		o := &fingerprintOptions{}
		fs.StringVar(&o.db, "db", "", "use the text settings of the index at `PATH`")
		o.in.Add(fs)
		o.sf.AddText(fs)
		o.out.add(fs)
		return func(ctx context.Context, e *env, args []string) error { return runFingerprint(ctx, e, o, args) }
	},
}

// fingerprintOptions are the flags of simidx fingerprint.
type fingerprintOptions struct {
	db  string
	in  input.Flags
	sf  indexflag.Settings
	out outputFlags
}

// runFingerprint runs simidx fingerprint on the documents of args.
func runFingerprint(ctx context.Context, e *env, o *fingerprintOptions, args []string) error {
	if err := o.out.check(o.db); err != nil {
		return err
	}
	if err := o.in.Check(); err != nil {
		return err
	}
	if o.in.Format() == input.Hashes {
		return usagef("--input hashes already holds fingerprints; use files, jsonl or lines")
	}
	f, err := fingerprinter(&o.sf, o.db)
	if err != nil {
		return err
	}
	if !o.in.Given(args) {
		args = []string{"-"}
	}
	con := console.New(e.stderr, "fingerprint")
	r, err := input.Open(args, o.in, e.stdin, con)
	if err != nil {
		return err
	}
	w, err := o.out.open(e.stdout)
	if err != nil {
		return err
	}
	for d, err := range r.All(ctx) {
		if err != nil {
			break
		}
		fp := hex16(f.Sum64(d.Text))
		if w.JSONL() {
			w.JSON(fingerprintRecord{ID: d.ID, Fingerprint: fp})
		} else {
			// Not a table: exactly md5sum's layout, whatever the names.
			io.WriteString(w, hashLine(fp, d.ID))
		}
	}
	err = w.Close()
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err != nil {
		return err
	}
	if n := r.Skipped(); n > 0 {
		return fmt.Errorf("%d %s skipped (see above)", n, plural(n, "input was", "inputs were"))
	}
	return nil
}

// hashLine is the line of the fingerprint fp (16 hex digits) and a name in
// md5sum's layout. As GNU md5sum does, a name with a backslash, a newline
// or a carriage return is escaped (\\, \n, \r) and the line starts with a
// backslash; input.ParseHashLine reads it back.
func hashLine(fp, name string) string {
	if !strings.ContainsAny(name, "\\\n\r") {
		return fp + "  " + name + "\n"
	}
	return "\\" + fp + "  " + nameEscaper.Replace(name) + "\n"
}

var nameEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`)

// fingerprintRecord is a fingerprint of --format jsonl.
type fingerprintRecord struct {
	ID          string `json:"id"`
	Fingerprint string `json:"fingerprint"`
}
