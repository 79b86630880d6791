package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/simidx/simidx/internal/testarchive"
)

// The archive makers of internal/testarchive, by the names these tests use.
type member = testarchive.Member

var (
	zipBytes   = testarchive.Zip
	tarBytes   = testarchive.Tar
	gzipBytes  = testarchive.Gzip
	zstdBytes  = testarchive.Zstd
	writeBytes = testarchive.WriteFiles
)

const helloBz2 = testarchive.HelloBz2

// pairIDs returns the pairs of dedup --pairs --format jsonl as "A B".
func pairIDs(t *testing.T, stdout string) []string {
	t.Helper()
	var ps []string
	for _, o := range jsonLines(t, stdout, "a", "b", "distance", "?similarity", "?exact") {
		ps = append(ps, o["a"].(string)+" "+o["b"].(string))
	}
	return ps
}

// allPairs returns every pair of ids, each sorted, as "A B", sorted.
func allPairs(ids ...string) []string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	var ps []string
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			ps = append(ps, ids[i]+" "+ids[j])
		}
	}
	return ps
}

// summaryLine returns the line of stderr that starts with "indexed ".
func summaryLine(t *testing.T, stderr string) string {
	t.Helper()
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "indexed ") {
			return strings.TrimSuffix(line, "\n")
		}
	}
	t.Fatalf("no summary line in:\n%s", stderr)
	return ""
}

// TestCollection runs the built command on a tree such as real collections
// are: a .git folder, a hidden cache, a text, its gzip copy and the same
// text in a zip and in a tar.gz, a log excluded by --exclude, a FIFO (which
// must not block the run), an unreadable file, a truncated gzip file, a
// symbolic link loop, and a zip bomb over the member limit. It checks the
// pairs that dedup reports and the summary line.
func TestCollection(t *testing.T) {
	mit, err := os.ReadFile(testdataFile("MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	isc, err := os.ReadFile(testdataFile("ISC.txt"))
	if err != nil {
		t.Fatal(err)
	}
	zlib, err := os.ReadFile(testdataFile("Zlib.txt"))
	if err != nil {
		t.Fatal(err)
	}
	apache, err := os.ReadFile(testdataFile("Apache-2.0.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	gz := gzipBytes(t, apache)
	writeBytes(t, tree, map[string][]byte{
		".git/objects/ab/cdef":   mit,
		".git/HEAD":              []byte("ref: refs/heads/main\n"),
		".cache/mit.txt":         mit,
		"docs/mit.txt":           mit,
		"docs/mit.txt.gz":        gzipBytes(t, mit),
		"docs/isc.txt":           isc,
		"arch/mit.zip":           zipBytes(t, member{"LICENSE", string(mit)}, member{"sub/", ""}),
		"arch/mit.tar.gz":        gzipBytes(t, tarBytes(t, member{"pkg/", ""}, member{"pkg/LICENSE", string(mit)})),
		"noise.log":              mit,
		"broken/apache.txt.gz":   gz[:len(gz)/2],
		"secret.txt":             []byte("a file that only its owner may read, about nothing in particular"),
		"arch/bomb.zip":          zipBytes(t, member{"zeros.txt", strings.Repeat("0", 40<<20)}),
		"loop/inside.txt":        zlib,
		"loop/.hidden/other.txt": isc,
	})
	if fi, _ := os.Stat(filepath.Join(tree, "arch/bomb.zip")); fi.Size() > 100<<10 {
		t.Fatalf("the zip bomb is %d bytes", fi.Size())
	}
	if err := syscall.Mkfifo(filepath.Join(tree, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(tree, "loop", "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(tree, "secret.txt"), 0); err != nil {
		t.Fatal(err)
	}
	// As root (as in CI), mode 000 does not stop a read: the file is then
	// read like any other.
	root := os.Geteuid() == 0

	r := runBinary(t, "", "dedup", "--pairs", "--format", "jsonl", "--exclude", "*.log", "--follow", tree)
	wantCode := 1 // an unreadable file, and a corrupt one
	if got := pairIDs(t, r.stdout); !slices.Equal(got, allPairs("docs/mit.txt", "docs/mit.txt.gz", "arch/mit.zip/LICENSE", "arch/mit.tar.gz/pkg/LICENSE")) {
		t.Errorf("pairs:\n%s\nstderr:\n%s", strings.Join(got, "\n"), r.stderr)
	}
	docs, want := 6, "; 9 skipped (1 unreadable, 1 corrupt, 1 too large, 2 hidden, 1 VCS, 1 excluded, 1 symlink loop, 1 special)"
	if root {
		docs, want = 7, "; 8 skipped (1 corrupt, 1 too large, 2 hidden, 1 VCS, 1 excluded, 1 symlink loop, 1 special)"
	}
	line := summaryLine(t, r.stderr)
	if !strings.HasPrefix(line, fmt.Sprintf("indexed %d documents, ", docs)) || !strings.HasSuffix(line, want) {
		t.Errorf("summary %q, want %d documents and %q", line, docs, want)
	}
	for _, w := range []string{
		"simidx dedup: " + filepath.Join(tree, "broken/apache.txt.gz") + ": corrupt gzip data (truncated), skipped\n",
		"simidx dedup: " + filepath.Join(tree, "arch/bomb.zip/zeros.txt") + ": more than 16 MiB decompressed (--max-member-size), skipped\n",
		"simidx dedup: " + filepath.Join(tree, "loop/up") + ": symbolic link loop (to .., a directory above it), skipped\n",
	} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if !root && !strings.Contains(r.stderr, "simidx dedup: cannot read "+filepath.Join(tree, "secret.txt")+": permission denied\n") {
		t.Errorf("no warning for the unreadable file:\n%s", r.stderr)
	}
	// Files left out by the rules are not warnings.
	for _, quiet := range []string{".git", ".cache", "noise.log", "fifo"} {
		if strings.Contains(r.stderr, quiet) {
			t.Errorf("stderr names %s without -v:\n%s", quiet, r.stderr)
		}
	}
	if r.code != wantCode {
		t.Errorf("exit %d, want %d", r.code, wantCode)
	}

	// -v names every file left out, and why.
	r = runBinary(t, "", "index", "-v", "--db", filepath.Join(dir, "v.db"), "--exclude", "*.log", tree)
	for _, w := range []string{
		filepath.Join(tree, ".git") + ": VCS directory, skipped",
		filepath.Join(tree, ".cache") + ": hidden, skipped",
		filepath.Join(tree, "loop/.hidden") + ": hidden, skipped",
		filepath.Join(tree, "noise.log") + ": excluded by --exclude *.log, skipped",
		filepath.Join(tree, "fifo") + ": named pipe (FIFO), skipped",
		filepath.Join(tree, "loop/up") + ": symbolic link (--follow reads it), skipped",
	} {
		if !strings.Contains(r.stderr, "simidx index: "+w+"\n") {
			t.Errorf("index -v: stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	// Without --follow, loop/up is a symbolic link skipped.
	if line := summaryLine(t, r.stderr); !strings.HasSuffix(line, "2 hidden, 1 VCS, 1 excluded, 1 symlink, 1 special)") {
		t.Errorf("index -v summary: %q", line)
	}

	// --hidden reads the hidden cache but not .git; --no-ignore-vcs
	// too.
	fp := runBinary(t, "", "fingerprint", "--hidden", "--include", "*.txt", tree).stdout
	if !strings.Contains(fp, "  .cache/mit.txt\n") || strings.Contains(fp, ".git/") || strings.Contains(fp, "noise.log") {
		t.Errorf("fingerprint --hidden --include '*.txt':\n%s", fp)
	}
	// --include matches compressed files by their name without the
	// suffix, and members: an archive is opened whatever its name.
	for _, id := range []string{"docs/mit.txt.gz", "docs/isc.txt", "loop/.hidden/other.txt"} {
		if !strings.Contains(fp, "  "+id+"\n") {
			t.Errorf("fingerprint --include '*.txt' lacks %s:\n%s", id, fp)
		}
	}
	if strings.Contains(fp, "LICENSE") {
		t.Errorf("fingerprint --include '*.txt' reads members not named *.txt:\n%s", fp)
	}
	fp = runBinary(t, "", "fingerprint", "--hidden", "--no-ignore-vcs", "--include", "LICENSE", "--include", "HEAD", tree).stdout
	for _, id := range []string{".git/HEAD", "arch/mit.zip/LICENSE", "arch/mit.tar.gz/pkg/LICENSE"} {
		if !strings.Contains(fp, "  "+id+"\n") {
			t.Errorf("fingerprint --include LICENSE --include HEAD lacks %s:\n%s", id, fp)
		}
	}
	// A FIFO named on the command line is read, as from <(cmd).
	fifo := filepath.Join(tree, "fifo")
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(mit)
			f.Close()
		}
		done <- err
	}()
	r = runBinary(t, "", "fingerprint", fifo)
	if file := runBinary(t, "", "fingerprint", filepath.Join(tree, "docs/mit.txt")); r.code != 0 || r.stdout[:16] != file.stdout[:16] {
		t.Errorf("fingerprint of a FIFO: %v", r)
	}
	// Unblock the writer if the command never opened the FIFO.
	if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		defer f.Close()
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestCollectionCompressed checks each compression, by content and not
// name, on files and standard input, and compressed JSON lines.
func TestCollectionCompressed(t *testing.T) {
	mit, err := os.ReadFile(testdataFile("MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := mustRun(t, string(mit), "fingerprint").stdout[:16]
	dir := t.TempDir()
	jsonl := `{"id": "a", "text": ` + strconv.Quote(string(mit)) + `}` + "\n" + `{"id": "b", "text": "hello"}` + "\n"
	writeBytes(t, dir, map[string][]byte{
		"mit.gz":           gzipBytes(t, mit),
		"mit.zst":          zstdBytes(t, mit),
		"noname":           zstdBytes(t, mit),
		"hello.bz2":        []byte(helloBz2),
		"docs.jsonl.gz":    gzipBytes(t, []byte(jsonl)),
		"docs.jsonl.zst":   zstdBytes(t, []byte(jsonl)),
		"lines.txt.gz":     gzipBytes(t, []byte("one line\nanother line\n")),
		"tar-in-zstd.data": zstdBytes(t, tarBytes(t, member{"x/mit.txt", string(mit)})),
	})
	for _, name := range []string{"mit.gz", "mit.zst", "noname"} {
		r := runBinary(t, "", "fingerprint", filepath.Join(dir, name))
		if r.stdout != want+"  "+filepath.Join(dir, name)+"\n" {
			t.Errorf("fingerprint %s: %v", name, r)
		}
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if r := runBinary(t, string(data), "fingerprint"); r.stdout != want+"  -\n" {
			t.Errorf("fingerprint < %s: %v", name, r)
		}
	}
	hello := mustRun(t, "hello\n", "fingerprint").stdout[:16]
	if r := runBinary(t, "", "fingerprint", filepath.Join(dir, "hello.bz2")); !strings.HasPrefix(r.stdout, hello+"  ") {
		t.Errorf("fingerprint hello.bz2: %v (want %s)", r, hello)
	}
	// Compressed JSON lines are JSON lines, by name or by content.
	for _, name := range []string{"docs.jsonl.gz", "docs.jsonl.zst"} {
		r := runBinary(t, "", "fingerprint", filepath.Join(dir, name))
		if r.stdout != want+"  a\n"+hello+"  b\n" {
			t.Errorf("fingerprint %s: %v", name, r)
		}
		data, _ := os.ReadFile(filepath.Join(dir, name))
		if r := runBinary(t, string(data), "fingerprint"); r.stdout != want+"  a\n"+hello+"  b\n" {
			t.Errorf("fingerprint < %s: %v", name, r)
		}
	}
	r := runBinary(t, "", "fingerprint", "--input", "lines", filepath.Join(dir, "lines.txt.gz"))
	if n := strings.Count(r.stdout, "\n"); r.code != 0 || n != 2 || !strings.HasSuffix(r.stdout, "  2\n") {
		t.Errorf("--input lines of a gzip file: %v", r)
	}
	// A tar in a zstd stream, whatever its name.
	if r := runBinary(t, "", "fingerprint", filepath.Join(dir, "tar-in-zstd.data")); r.stdout != want+"  "+filepath.Join(dir, "tar-in-zstd.data")+"/x/mit.txt\n" {
		t.Errorf("tar in zstd: %v", r)
	}
}

// TestCollectionArchives checks nested archives, member names, the
// archive limit and broken archives.
func TestCollectionArchives(t *testing.T) {
	mit, err := os.ReadFile(testdataFile("MIT.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := mustRun(t, string(mit), "fingerprint").stdout[:16]
	dir := t.TempDir()
	inner := zipBytes(t, member{"mit.txt", string(mit)})
	innerTgz := gzipBytes(t, tarBytes(t, member{"deep.zip", string(inner)}, member{"mit.txt", string(mit)}))
	chunk := strings.Repeat("word ", 120<<10) // 600 kB
	tgz := gzipBytes(t, tarBytes(t, member{"mit.txt", string(mit)}, member{"nested.zip", string(inner)}, member{"inner.tgz", string(innerTgz)}))
	writeBytes(t, dir, map[string][]byte{
		"outer.tgz": tgz,
		"evil.tar": tarBytes(t, member{"../escape.txt", string(mit)}, member{"./dot/mit.txt", string(mit)},
			member{"/abs.txt", string(mit)}, member{".hidden.txt", string(mit)}),
		"big.tar.gz":     gzipBytes(t, tarBytes(t, member{"1.txt", chunk}, member{"2.txt", chunk}, member{"3.txt", chunk})),
		"truncated.tgz":  tgz[:len(tgz)-40],
		"truncated.zip":  inner[:len(inner)-10],
		"garbage.tar.gz": append(gzipBytes(t, []byte(strings.Repeat("x", 600))), 0xff, 0x00),
	})
	fp := func(args ...string) result {
		return runBinary(t, "", append([]string{"fingerprint"}, args...)...)
	}
	r := fp(filepath.Join(dir, "outer.tgz"))
	outer := filepath.Join(dir, "outer.tgz")
	wantOut := want + "  " + outer + "/mit.txt\n" +
		want + "  " + outer + "/nested.zip/mit.txt\n" +
		want + "  " + outer + "/inner.tgz/mit.txt\n"
	if r.stdout != wantOut || r.code != 1 || !strings.Contains(r.stderr, outer+"/inner.tgz/deep.zip: zip archive inside an archive inside an archive, skipped") {
		t.Errorf("nested archives: want\n%s, got %v", wantOut, r)
	}

	// Member names are kept as stored (less a leading ./), and nothing
	// is written.
	r = fp(filepath.Join(dir, "evil.tar"))
	evil := filepath.Join(dir, "evil.tar")
	if r.stdout != want+"  "+evil+"/../escape.txt\n"+want+"  "+evil+"/dot/mit.txt\n"+want+"  "+evil+"//abs.txt\n" || r.code != 0 {
		t.Errorf("member names: %v", r)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); err == nil {
		t.Error("a member was written to disk")
	}

	// The archive limit stops reading; the member limit skips one.
	r = fp("--max-archive-size", "1M", filepath.Join(dir, "big.tar.gz"))
	big := filepath.Join(dir, "big.tar.gz")
	if !strings.Contains(r.stderr, big+": more than 1 MiB decompressed (--max-archive-size), the rest skipped") ||
		strings.Count(r.stdout, "\n") != 1 || r.code != 1 {
		t.Errorf("--max-archive-size 1M: %v", r)
	}
	r = fp("--max-member-size", "100k", filepath.Join(dir, "big.tar.gz"), filepath.Join(dir, "outer.tgz"))
	if strings.Count(r.stderr, "more than 100 KiB decompressed (--max-member-size), skipped") != 3 || !strings.Contains(r.stdout, outer+"/mit.txt\n") {
		t.Errorf("--max-member-size 100k: %v", r)
	}

	// Broken archives are reported by name; the rest is read.
	db := filepath.Join(t.TempDir(), "x.db")
	r = runBinary(t, "", "index", "--db", db, filepath.Join(dir, "truncated.tgz"), filepath.Join(dir, "truncated.zip"),
		filepath.Join(dir, "garbage.tar.gz"), testdataFile("MIT.txt"))
	for _, w := range []string{
		filepath.Join(dir, "truncated.tgz") + ": corrupt tar.gz data (",
		filepath.Join(dir, "truncated.zip") + ": corrupt zip data (",
		filepath.Join(dir, "garbage.tar.gz") + ": corrupt gzip data (",
	} {
		if !strings.Contains(r.stderr, "simidx index: "+w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
	if r.code != 1 || !strings.Contains(summaryLine(t, r.stderr), "3 corrupt") {
		t.Errorf("broken archives: %v", r)
	}

	// A zip on standard input is held in memory and read.
	if r := runBinary(t, string(inner), "fingerprint"); r.stdout != want+"  -/mit.txt\n" {
		t.Errorf("zip on standard input: %v", r)
	}
}

// TestCollectionFilesFrom checks --files-from with --null, sizes and the
// usage errors of the new flags.
func TestCollectionFilesFrom(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a b.txt":      "the first file, with a space in its name",
		"new\nline":    "a file whose name holds a newline",
		"sub/c.txt":    "a file in a directory",
		"sub/tiny.txt": "x",
	})
	list := filepath.Join(dir, "a b.txt") + "\x00" + filepath.Join(dir, "new\nline") + "\x00" + filepath.Join(dir, "sub") + "\x00"
	r := runBinary(t, list, "fingerprint", "-f", "jsonl", "--files-from", "-", "--null", "--min-size", "2")
	var ids []string
	for _, o := range jsonLines(t, r.stdout, "id", "fingerprint") {
		ids = append(ids, o["id"].(string))
	}
	wantIDs := []string{filepath.Join(dir, "a b.txt"), filepath.Join(dir, "new\nline"), filepath.Join(dir, "sub") + "/c.txt"}
	if !slices.Equal(ids, wantIDs) || r.code != 0 {
		t.Errorf("--files-from - --null: IDs %q, want %q\n%v", ids, wantIDs, r)
	}
	// A list in a file, one path per line; with an INPUT too.
	writeFiles(t, dir, map[string]string{"list.txt": filepath.Join(dir, "a b.txt") + "\n"})
	db := filepath.Join(t.TempDir(), "x.db")
	r = runBinary(t, "", "index", "--db", db, "--files-from", filepath.Join(dir, "list.txt"), "--max-size", "10", filepath.Join(dir, "sub"))
	if line := summaryLine(t, r.stderr); r.code != 0 || !strings.HasPrefix(line, "indexed 1 document,") || !strings.HasSuffix(line, "; 2 skipped (2 excluded)") {
		t.Errorf("index --files-from --max-size 10: %v", r)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"fingerprint", "--null", "x"}, "--null applies to --files-from only"},
		{[]string{"fingerprint", "--files-from", "-", "-"}, "standard input (-) given both as INPUT and as the --files-from list"},
		{[]string{"fingerprint", "--max-size", "1k", "--min-size", "2k", "x"}, "--max-size 1k is less than --min-size 2k"},
		{[]string{"fingerprint", "--max-size", "lots", "x"}, `invalid argument "lots" for "--max-size" flag`},
		{[]string{"fingerprint", "--include", "a[", "x"}, `--include "a[" is not a valid glob`},
		{[]string{"fingerprint", "--max-member-size", "0", "x"}, "--max-member-size and --max-archive-size must be at least 1 byte"},
	} {
		if r := runBinary(t, "", tc.args...); r.code != 2 || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("simidx %q: want exit 2 and %q, got %v", tc.args, tc.msg, r)
		}
	}
	if r := runBinary(t, "", "index", "--db", db, "--files-from", filepath.Join(dir, "nope")); r.code != 1 || !strings.Contains(r.stderr, "cannot read the --files-from list") {
		t.Errorf("missing list: %v", r)
	}
}
