package main

import (
	"strings"
	"testing"
)

func TestHelp(t *testing.T) {
	r := mustRun(t, "", "help")
	for _, c := range commands() {
		if !strings.Contains(r.stdout, "\t"+c.name+" ") {
			t.Errorf("help does not list %s:\n%s", c.name, r.stdout)
		}
	}
	// Every command has a synopsis, a description with an example, and
	// its flags; help writes it to stdout, -h to stderr.
	for _, c := range commands() {
		r := mustRun(t, "", "help", c.name)
		if !strings.HasPrefix(r.stdout, "Usage: simidx "+c.name) {
			t.Errorf("help %s: %q", c.name, r.stdout)
		}
		if c.name != "help" && !strings.Contains(r.stdout, "Example:") {
			t.Errorf("help %s has no example", c.name)
		}
		h := mustRun(t, "", c.name, "-h")
		if h.stderr != r.stdout || h.stdout != "" {
			t.Errorf("%s -h differs from help %s", c.name, c.name)
		}
	}
	r = mustRun(t, "", "help", "index")
	for _, flag := range []string{"--db PATH", "--input format", "-k, --max-distance distance", "--minhash", "--shingle-size", "-q, --quiet"} {
		if !strings.Contains(r.stdout, flag) {
			t.Errorf("help index lacks %q:\n%s", flag, r.stdout)
		}
	}
	if r := simidx(t, "", "help", "nope"); r.code != 2 || !strings.Contains(r.stderr, `unknown command "nope"; the commands are index, query`) {
		t.Errorf("help nope: %v", r)
	}
}
