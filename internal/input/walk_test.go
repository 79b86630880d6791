package input

import (
	"slices"
	"strings"
	"testing"
)

// TestPatternMatch checks the glob semantics of --include and --exclude:
// gitignore's, with doublestar's ** and matching.
func TestPatternMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		rel     string
		isDir   bool
		want    bool
	}{
		// Without a slash: the base name, at any depth.
		{"*.log", "x.log", false, true},
		{"*.log", "a/b/x.log", false, true},
		{"*.log", "a/x.log/y.txt", false, false},
		{"x.log", "a/x.log", false, true},
		{"*.log", "a.zip/m/x.log", false, true},
		{"node_modules", "a/node_modules", true, true},
		{"*", "a/b", false, true},
		{"?.txt", "a/b.txt", false, true},
		{"?.txt", "a/bc.txt", false, false},
		{"[ab].txt", "a.txt", false, true},
		{"{a,b}.txt", "dir/b.txt", false, true},
		// With a slash: the whole relative path.
		{"a/*.txt", "a/x.txt", false, true},
		{"a/*.txt", "b/a/x.txt", false, false},
		{"a/*.txt", "a/b/x.txt", false, false},
		{"/x.txt", "x.txt", false, true},
		{"/x.txt", "a/x.txt", false, false},
		// ** spans directories, zero or more.
		{"**/x.txt", "x.txt", false, true},
		{"**/x.txt", "a/b/x.txt", false, true},
		{"a/**", "a/b/c.txt", false, true},
		{"a/**/c.txt", "a/c.txt", false, true},
		{"a/**/c.txt", "a/b/d/c.txt", false, true},
		{"a/**/c.txt", "b/a/c.txt", false, false},
		// A trailing slash: directories only.
		{"build/", "x/build", true, true},
		{"build/", "x/build", false, false},
		// Case matters; dots are not special.
		{"*.TXT", "a.txt", false, false},
		{"*", ".hidden", false, true},
	} {
		p, err := compilePattern("--exclude", tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := p.match(tc.rel, tc.isDir); got != tc.want {
			t.Errorf("%q matches %q (dir %v) = %v, want %v", tc.pattern, tc.rel, tc.isDir, got, tc.want)
		}
	}
	for _, bad := range []string{"", "/", "a[", "{a,b"} {
		if _, err := compilePattern("--include", bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// A compressed file is included by its name without the suffix.
	s := &selection{}
	for _, g := range []string{"*.txt", "docs/**/*.md"} {
		p, _ := compilePattern("--include", g)
		s.include = append(s.include, p)
	}
	for rel, want := range map[string]bool{
		"a.txt": true, "a.txt.gz": true, "a.txt.zst": true, "a.log.gz": false,
		"docs/x/y.md": true, "docs/y.md.bz2": true, "y.md": false,
	} {
		if got := s.included(rel); got != want {
			t.Errorf("included(%q) = %v, want %v", rel, got, want)
		}
	}
	if !(&selection{}).included("anything") {
		t.Error("without --include everything is included")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1": 1, "1000": 1000, "1k": 1 << 10, "1K": 1 << 10, "16M": 16 << 20, "16m": 16 << 20,
		"16MiB": 16 << 20, "16MB": 16 << 20, "2G": 2 << 30, "3T": 3 << 40, "7B": 7, " 5k ": 5 << 10,
	} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "-1", "1.5M", "1X", "1 M", "10iB", "99999999999999999999", "9000000000T"} {
		if n, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, n)
		}
	}
	for n, want := range map[int64]string{0: "0", 1023: "1023", 1 << 10: "1k", 16 << 20: "16M", 1 << 30: "1G", 3 << 20 / 2: "1536k"} {
		b := ByteSize(n)
		if got := b.String(); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{1: "1 byte", 1000: "1000 bytes", 16 << 20: "16 MiB", 1 << 30: "1 GiB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFilesFromList checks how a --files-from list is split: lines (a
// carriage return dropped) or, with --null, NUL-separated names, which may
// hold newlines; empty entries are ignored.
func TestFilesFromList(t *testing.T) {
	for _, tc := range []struct {
		data string
		null bool
		want []string
	}{
		{"a\nb c\n\nd", false, []string{"a", "b c", "d"}},
		{"a\r\nb\r\n", false, []string{"a", "b"}},
		{"a\nb\x00c\x00\x00d\r\x00", true, []string{"a\nb", "c", "d\r"}},
		{"", true, nil},
		{"\n\n", false, nil},
	} {
		if got := splitList([]byte(tc.data), tc.null); !slices.Equal(got, tc.want) {
			t.Errorf("splitList(%q, %v) = %q, want %q", tc.data, tc.null, got, tc.want)
		}
	}
	got, err := readFilesFrom("-", true, strings.NewReader("x\x00y\x00"))
	if err != nil || !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("readFilesFrom(-) = %q, %v", got, err)
	}
	if _, err := readFilesFrom("/nonexistent/list", false, nil); err == nil || !strings.Contains(err.Error(), "cannot read the --files-from list: /nonexistent/list: no such file or directory") {
		t.Errorf("missing list: %v", err)
	}
}
