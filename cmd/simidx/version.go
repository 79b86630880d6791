package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/simidx/simidx/index"
	"github.com/spf13/pflag"
)

var versionCommand = &command{
	name:  "version",
	args:  "",
	short: "print the version",
	long: `Version prints the module version of simidx, the version control revision it
was built from when known, the index schema version it writes and the Go
version and platform.

Example:

	simidx version`,
	flags: func(fs *pflag.FlagSet) func(context.Context, *env, []string) error { return runVersion },
}

// runVersion runs simidx version: print versionString.
func runVersion(_ context.Context, e *env, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments")
	}
	_, err := fmt.Fprintln(e.stdout, versionString())
	return err
}

// versionString is the line printed by simidx version.
func versionString() string {
	version, rev := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
				if len(rev) > 12 {
					rev = rev[:12]
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" && modified {
			rev += "+dirty"
		}
	}
	s := "simidx " + version
	if rev != "" {
		s += " (" + rev + ")"
	}
	return fmt.Sprintf("%s, index schema %d, %s %s/%s", s, index.SchemaVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
