package main

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/simidx/simidx/index"
)

func TestVersion(t *testing.T) {
	re := regexp.MustCompile(fmt.Sprintf(`^simidx \S+( \(\S+\))?, index schema %d, go\S+ \w+/\w+\n$`, index.SchemaVersion))
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := mustRun(t, "", args...)
		if !re.MatchString(r.stdout) {
			t.Errorf("simidx %q: %q does not match %s", args, r.stdout, re)
		}
	}
	r := runBinary(t, "", "version")
	if r.code != 0 || !re.MatchString(r.stdout) {
		t.Errorf("binary version: %v", r)
	}
	if r := simidx(t, "", "version", "extra"); r.code != 2 {
		t.Errorf("version with an argument: %v", r)
	}
}
