package input

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// vcsDirs are the names of the directories of version control systems,
// skipped even with --hidden unless --no-ignore-vcs (a file named .git, as
// in a Git worktree, too).
var vcsDirs = map[string]bool{".git": true, ".svn": true, ".hg": true, ".bzr": true, "_darcs": true, "CVS": true}

// isHidden reports whether a file or directory name is hidden: it starts
// with a dot (and is not "." or "..").
func isHidden(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// pattern is one --include or --exclude glob.
type pattern struct {
	text    string // as given
	glob    string // without a leading or trailing slash
	full    bool   // matched against the whole relative path, not the base name
	dirOnly bool   // given with a trailing slash: matches directories only
}

// compilePattern checks a glob. As in .gitignore files, a pattern with a
// slash (other than a trailing one) is matched against the whole path
// relative to the INPUT, a leading slash only anchoring it there; one
// without is matched against the base name, at any depth; a trailing
// slash makes it match directories only.
func compilePattern(flag, text string) (pattern, error) {
	p := pattern{text: text}
	g := text
	if strings.HasSuffix(g, "/") {
		p.dirOnly = true
		g = strings.TrimRight(g, "/")
	}
	if strings.HasPrefix(g, "/") {
		p.full = true
		g = strings.TrimLeft(g, "/")
	}
	if strings.Contains(g, "/") {
		p.full = true
	}
	if g == "" {
		return p, usagef("%s %q matches nothing", flag, text)
	}
	if !doublestar.ValidatePattern(g) {
		return p, usagef("%s %q is not a valid glob", flag, text)
	}
	p.glob = g
	return p, nil
}

// match reports whether p matches rel, a slash-separated path relative to
// the INPUT.
func (p pattern) match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	s := rel
	if !p.full {
		s = path.Base(rel)
	}
	ok, _ := doublestar.Match(p.glob, s)
	return ok
}

// selection is what the selection flags leave out of a walked tree.
type selection struct {
	include, exclude []pattern
	hidden           bool // read hidden files
	vcs              bool // read VCS directories (--no-ignore-vcs)
}

// excluded returns the --exclude pattern that matches rel, or "".
func (s *selection) excluded(rel string, isDir bool) string {
	for _, p := range s.exclude {
		if p.match(rel, isDir) {
			return p.text
		}
	}
	return ""
}

// included reports whether a document at rel matches an --include
// pattern, or there are none. A compressed file is also matched by its
// name without the compression suffix (x.txt.gz by *.txt).
func (s *selection) included(rel string) bool {
	if len(s.include) == 0 {
		return true
	}
	trimmed, _ := trimCompression(rel)
	for _, p := range s.include {
		if p.match(rel, false) || p.match(trimmed, false) {
			return true
		}
	}
	return false
}

// filterName says why a walked entry named name (its base name) is left
// out by the hidden and VCS rules, or returns "" if it is not.
func (s *selection) filterName(name string) (reason string, vcs bool) {
	if vcsDirs[name] && !s.vcs {
		return "VCS directory", true
	}
	if isHidden(name) && !s.hidden {
		return "hidden", false
	}
	return "", false
}

// ByteSize is a flag value (pflag.Value) of bytes, given with an optional
// suffix k, M, G or T (powers of 1024). Unset is -1 where no limit is the
// default.
type ByteSize int64

func (b *ByteSize) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = ByteSize(n)
	return nil
}

func (b *ByteSize) String() string {
	if *b < 0 {
		return ""
	}
	n := int64(*b)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"k", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *ByteSize) Type() string { return "SIZE" }

// parseSize parses a size in bytes: digits and an optional suffix k, M, G
// or T in either case (powers of 1024), which may be followed by B or iB
// (16M, 16MiB and 16mb are the same).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && '0' <= t[i] && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("%q is not a size: want bytes, or a number with k, M, G or T", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is too large", s)
	}
	unit := strings.ToLower(t[i:])
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "b"), "i")
	shift := 0
	switch unit {
	case "":
		if strings.HasSuffix(strings.ToLower(t[i:]), "ib") {
			return 0, fmt.Errorf("%q is not a size: want bytes, or a number with k, M, G or T", s)
		}
	case "k":
		shift = 10
	case "m":
		shift = 20
	case "g":
		shift = 30
	case "t":
		shift = 40
	default:
		return 0, fmt.Errorf("%q is not a size: want bytes, or a number with k, M, G or T", s)
	}
	if n > (1<<63-1)>>shift {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n << shift, nil
}

// formatSize writes n bytes for messages: 16 MiB, 1 GiB, 1000 bytes.
func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.suffix
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// readFilesFrom reads the list of --files-from: one path per line (a
// carriage return before the newline is dropped), or with null, paths
// ended by NUL bytes; empty entries are ignored.
func readFilesFrom(name string, null bool, stdin io.Reader) ([]string, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the --files-from list: %v", trimPathError(name, err))
	}
	return splitList(data, null), nil
}

// splitList splits a --files-from list.
func splitList(data []byte, null bool) []string {
	sep := byte('\n')
	if null {
		sep = 0
	}
	var paths []string
	for len(data) > 0 {
		entry := data
		if i := bytes.IndexByte(data, sep); i >= 0 {
			entry, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if !null {
			entry = bytes.TrimSuffix(entry, []byte("\r"))
		}
		if len(entry) > 0 {
			paths = append(paths, string(entry))
		}
	}
	return paths
}

// fileID identifies a directory, to tell a symbolic link loop.
type fileID struct{ dev, ino uint64 }

func idOf(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}

// walk lists the files below the directory root: in lexical order, hidden
// files and directories, VCS directories, excluded paths, symbolic links
// (unless --follow) and special files (FIFOs, sockets, devices) left out
// and counted. IDs are prefix and the path relative to root.
func (r *Reader) walk(root, prefix string) {
	var anc []fileID
	if r.flags.follow {
		if fi, err := os.Stat(root); err == nil {
			if id, ok := idOf(fi); ok {
				anc = append(anc, id)
			}
		}
	}
	r.walkDir(root, "", prefix, anc)
}

func (r *Reader) walkDir(dir, rel, prefix string, anc []fileID) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		r.warn.Warnf("cannot read %v", trimPathError(dir, err))
		r.unreadable.Add(1)
		// The entries read before the error are listed.
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		erel := name
		if rel != "" {
			erel = rel + "/" + name
		}
		t := e.Type()
		var info fs.FileInfo
		link := t&fs.ModeSymlink != 0
		if link {
			if !r.flags.follow {
				r.skip(&r.symlinks, p, "symbolic link (--follow reads it)")
				continue
			}
			fi, err := os.Stat(p)
			if err != nil {
				r.warn.Warnf("cannot read %v", trimPathError(p, err))
				r.unreadable.Add(1)
				continue
			}
			info, t = fi, fi.Mode().Type()
		}
		if reason, vcs := r.sel.filterName(name); reason != "" {
			if vcs {
				r.skip(&r.vcs, p, reason)
			} else {
				r.skip(&r.hidden, p, reason)
			}
			continue
		}
		switch {
		case t.IsDir():
			if g := r.sel.excluded(erel, true); g != "" {
				r.skip(&r.excluded, p, "excluded by --exclude "+g)
				continue
			}
			sub := anc
			if r.flags.follow {
				if info == nil {
					if info, err = e.Info(); err != nil {
						r.warn.Warnf("cannot read %v", trimPathError(p, err))
						r.unreadable.Add(1)
						continue
					}
				}
				if id, ok := idOf(info); ok {
					loop := false
					for _, a := range anc {
						loop = loop || a == id
					}
					if loop {
						target, _ := os.Readlink(p)
						r.warn.Warnf("%s: symbolic link loop (to %s, a directory above it), skipped", p, target)
						r.loops.Add(1)
						continue
					}
					sub = append(anc[:len(anc):len(anc)], id)
				}
			}
			r.walkDir(p, erel, prefix, sub)
		case t.IsRegular():
			if g := r.sel.excluded(erel, false); g != "" {
				r.skip(&r.excluded, p, "excluded by --exclude "+g)
				continue
			}
			// An archive not matched by --include is read: its
			// members are matched instead.
			included := r.sel.included(erel)
			if !included && !archiveName(name) {
				r.skip(&r.excluded, p, "not matched by --include")
				continue
			}
			if info == nil {
				if info, err = e.Info(); err != nil {
					r.warn.Warnf("cannot read %v", trimPathError(p, err))
					r.unreadable.Add(1)
					continue
				}
			}
			if !r.sizeSelected(p, info.Size()) {
				continue
			}
			r.inputs = append(r.inputs, source{
				path: p, id: prefix + erel, name: p, rel: erel, size: info.Size(),
				format: fileFormat(r.flags.format, p), included: included,
			})
		default:
			r.skip(&r.special, p, specialName(t))
		}
	}
}

// sizeSelected reports whether a file of size bytes is within --min-size
// and --max-size, and counts it as excluded if not.
func (r *Reader) sizeSelected(p string, size int64) bool {
	switch {
	case r.flags.minSize > 0 && size < int64(r.flags.minSize):
		r.skip(&r.excluded, p, fmt.Sprintf("%s, under --min-size %s", formatSize(size), r.flags.minSize.String()))
		return false
	case r.flags.maxSize >= 0 && size > int64(r.flags.maxSize):
		r.skip(&r.excluded, p, fmt.Sprintf("%s, over --max-size %s", formatSize(size), r.flags.maxSize.String()))
		return false
	}
	return true
}

// specialName names a kind of file that is not read in a walked tree.
func specialName(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
