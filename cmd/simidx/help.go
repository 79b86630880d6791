package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

var helpCommand = &command{
	name:  "help",
	args:  "[command]",
	short: "show the help of a command",
	long: `Help lists the commands, or shows the synopsis, description and flags of one
command on standard output.`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error { return runHelp },
}

// runHelp runs simidx help: the list of commands, or the usage of the
// command args[0].
func runHelp(_ context.Context, e *env, args []string) error {
	switch len(args) {
	case 0:
		printMainUsage(e.stdout)
		return nil
	case 1:
		c := lookup(args[0])
		if c == nil {
			return usagef("unknown command %q; the commands are %s", args[0], commandNames())
		}
		printCommandUsage(e.stdout, c, commandFlags(c))
		return nil
	default:
		return usagef("help takes at most one command, got %d arguments", len(args))
	}
}

// commandFlags returns the flag set of c, defined but not parsed.
func commandFlags(c *command) *pflag.FlagSet {
	fs := newFlagSet(c, io.Discard)
	c.flags(fs)
	return fs
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// printMainUsage writes the list of commands to w.
func printMainUsage(w io.Writer) {
	fmt.Fprint(w, `simidx finds near-duplicate documents.

Usage:

	simidx <command> [flags] [arguments]

Commands:

`)
	for _, c := range commands() {
		fmt.Fprintf(w, "\t%-12s %s\n", c.name, c.short)
	}
	fmt.Fprint(w, `
Run 'simidx help <command>' for the flags of a command.
Example: simidx dedup testdata/licenses
`)
}

// printCommandUsage writes the synopsis, description and flags of c to w.
func printCommandUsage(w io.Writer, c *command, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage: simidx %s %s\n\n%s\n", c.name, c.args, c.long)
	if fs.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
	}
}
