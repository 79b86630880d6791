package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestDelete(t *testing.T) {
	db := buildIndex(t)
	r := mustRun(t, "", "delete", "--db", db, "MIT.txt", "MIT-0.txt", "MIT.txt", "nope.txt")
	if r.stderr != "deleted 2 of 3 documents (1 not in the index)\n" {
		t.Errorf("stderr %q", r.stderr)
	}
	if r := simidx(t, "", "query", "--db", db, "--id", "MIT.txt"); r.code != 1 {
		t.Errorf("MIT.txt still there: %v", r)
	}
	// IDs from standard input.
	r = runBinary(t, "JSON.txt\nMIT-feh.txt\r\n\n", "delete", "--db", db, "-")
	if r.code != 0 || r.stderr != "deleted 2 of 2 documents\n" {
		t.Errorf("delete -: %v", r)
	}
	if r := mustRun(t, "", "delete", "-q", "--db", db, "ISC.txt"); r.stderr != "" {
		t.Errorf("-q: %q", r.stderr)
	}
	st := mustRun(t, "", "stats", "--db", db, "--check", "-f", "jsonl")
	if !strings.Contains(st.stdout, `"docs":63,`) || !strings.Contains(st.stdout, `"check":true`) {
		t.Errorf("after delete: %s", st.stdout)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"delete", "--db", db}, 2, "no ID given"},
		{[]string{"delete", "MIT.txt"}, 2, "--db PATH is required"},
		{[]string{"delete", "--db", filepath.Join(t.TempDir(), "x.db"), "MIT.txt"}, 1, "no index at"},
	} {
		if r := simidx(t, "", tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("simidx %q: want exit %d and %q, got %v", tc.args, tc.code, tc.msg, r)
		}
	}
}
