package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// buildBaseline builds the cmd/simidx of revision rev of the simidx
// repository (the one bench/ is in) into dir/simidx: the revision's tree is
// written into dir/src by git archive, which leaves the repository and its
// work tree untouched, built there, and removed. It returns the binary and
// the commit rev names.
func buildBaseline(rev, dir string) (bin, commit string, err error) {
	root, err := git("..", "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", fmt.Errorf("-baseline: the simidx repository (run from bench/): %v", err)
	}
	commit, err = git(root, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", "", fmt.Errorf("-baseline %s: not a revision of %s", rev, root)
	}
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", "", err
	}
	defer os.RemoveAll(src)
	archive := exec.Command("git", "-C", root, "archive", "--format=tar", commit)
	untar := exec.Command("tar", "-x", "-C", src)
	var aerr, terr bytes.Buffer
	archive.Stderr, untar.Stderr = &aerr, &terr
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", "", err
	}
	untar.Stdin = pipe
	if err := archive.Start(); err != nil {
		return "", "", err
	}
	if err := untar.Run(); err != nil {
		archive.Process.Kill()
		archive.Wait()
		return "", "", fmt.Errorf("-baseline %s: tar: %v %s", rev, err, terr.Bytes())
	}
	if err := archive.Wait(); err != nil {
		return "", "", fmt.Errorf("-baseline %s: git archive: %v %s", rev, err, aerr.Bytes())
	}
	bin = filepath.Join(dir, "simidx")
	build := exec.Command("go", "build", "-o", bin, "./cmd/simidx")
	build.Dir = src
	// The revision's own go.mod decides its build, not a workspace around
	// the directory.
	build.Env = append(os.Environ(), "GOWORK=off")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return "", "", fmt.Errorf("-baseline %s: building its cmd/simidx: %v", rev, err)
	}
	return bin, commit, nil
}

// treeState describes the revision of the work tree of the repository at
// root that a build of cmd/simidx there is made of: its commit, and
// whether files outside bench/ and docs/ differ from it. It is empty when
// git cannot tell.
func treeState(root string) string {
	commit, err := git(root, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	s := " at commit " + commit
	if st, err := git(root, "status", "--porcelain", "--", ".", ":(exclude)bench", ":(exclude)docs"); err == nil && st != "" {
		s += ", with uncommitted changes"
	}
	return s
}

// git runs git in dir and returns its output, trimmed.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(string(out)), nil
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,@%+-]+$`)

// shellJoin joins args into a command line that a POSIX shell splits back
// into them.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if shellSafe.MatchString(a) {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
