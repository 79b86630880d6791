// Command simidx builds and queries near-duplicate indexes of text documents.
//
// Usage:
//
//	simidx <command> [flags] [arguments]
//
// The commands are:
//
//	index        add documents to an index, creating it if needed
//	query        find the near duplicates of documents or stored IDs
//	dedup        report every near-duplicate cluster (or pair)
//	fingerprint  print the 64-bit simhash of documents, like md5sum
//	delete       remove documents from an index
//	stats        describe an index
//	backup       write a consistent copy of an index, also while it is in use
//	serve        answer near-duplicate checks and adds over HTTP
//	bench        find the settings that find your documents' near duplicates best
//	version      print the version
//	help         show the help of a command
//
// Data goes to standard output, progress and messages to standard error.
// The exit status is 0 on success, 1 on a runtime error, 2 on a usage error
// and 130 when indexing was interrupted (after committing what was read).
// See docs/cli.md for every flag and the JSON output schemas.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/simidx/simidx/internal/usage"
	"github.com/spf13/pflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, a second one terminates at once: every
		// commit is atomic, so the index stays consistent either way.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// env is what a command reads and writes besides its arguments.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one simidx subcommand.
type command struct {
	name  string
	args  string // the synopsis after "simidx name"
	short string // one line for the command list
	long  string // the description shown by help
	// flags defines the command's flags on fs and returns the function that
	// runs the command with the remaining arguments.
	flags func(fs *pflag.FlagSet) func(ctx context.Context, e *env, args []string) error
}

// commandList is every command, in the order help lists them. It is set in
// init because help refers to it.
var commandList []*command

func init() {
	commandList = []*command{
		indexCommand,
		queryCommand,
		dedupCommand,
		fingerprintCommand,
		compareCommand,
		deleteCommand,
		statsCommand,
		backupCommand,
		serveCommand,
		benchCommand,
		versionCommand,
		helpCommand,
	}
}

func commands() []*command { return commandList }

func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run runs simidx with args (without the program name) and returns the exit
// status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		printMainUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "--help", "-help":
		printMainUsage(stdout)
		return exitOK
	case "--version", "-version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "simidx: unknown command %q\nRun 'simidx help' for the list of commands.\n", name)
		return exitUsage
	}
	return runCommand(ctx, c, e, args[1:])
}

// runCommand parses the flags of c and runs it, mapping its error to an exit
// status and a message on stderr.
func runCommand(ctx context.Context, c *command, e *env, args []string) int {
	fs := newFlagSet(c, e.stderr)
	fn := c.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(e.stderr, "simidx %s: %v\n", c.name, err)
		fmt.Fprintf(e.stderr, "Run 'simidx help %s' for usage.\n", c.name)
		return exitUsage
	}
	err := fn(ctx, e, fs.Args())
	var ue *usage.Error
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted):
		return exitInterrupted
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "simidx %s: %v\n", c.name, err)
		fmt.Fprintf(e.stderr, "Run 'simidx help %s' for usage.\n", c.name)
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "simidx %s: %v\n", c.name, err)
		return exitError
	}
}

// newFlagSet returns the flag set of c: errors returned rather than fatal,
// flags listed in definition order, usage on w.
func newFlagSet(c *command, w io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(w)
	fs.Usage = func() { printCommandUsage(w, c, fs) }
	return fs
}

// usagef returns a mistake in the command line: exit status 2.
func usagef(format string, args ...any) error { return usage.Errorf(format, args...) }

// errInterrupted is returned by a command that was interrupted by a signal
// and has already said what it kept: exit status 130.
var errInterrupted = errors.New("interrupted")
