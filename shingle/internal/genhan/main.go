// Command genhan generates the Han script-variant folding table of package
// shingle from Unicode's Unihan database (Unihan_Variants.txt).
//
// Each character folds to one representative of its variant class: classes
// join traditional and simplified forms, z-variants and semantic variants
// (爲/為, 閑/閒), and the representative is the member most used in modern
// Chinese, so simplified, traditional and variant spellings of the same text
// give the same tokens.
//
// Usage (from package shingle, through go generate):
//
//	opencc_dict -i /usr/share/opencc/TSCharacters.ocd2 -o /tmp/TSCharacters.txt -f ocd2 -t text
//	go run ./internal/genhan -src /usr/share/unicode -opencc /tmp/TSCharacters.txt -o hanfold_table.go
//
// The sources are Debian's unicode-data package (apt-get install unicode-data),
// which ships the Unihan files compressed with bzip2; plain .txt files work
// too. Unihan_Readings.txt gives character frequencies (kHanyuPinlu).
// OpenCC's TSCharacters (Debian's opencc and libopencc1.1 packages) adds the
// traditional/simplified pairs that Unihan lacks.
package main

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"flag"
	"fmt"
	"go/format"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

func main() {
	src := flag.String("src", "/usr/share/unicode", "directory holding Unihan_Variants.txt and Unihan_Readings.txt, plain or .bz2")
	out := flag.String("o", "hanfold_table.go", "output Go file")
	occ := flag.String("opencc", "", "OpenCC's TSCharacters dumped to text by opencc_dict (optional): more traditional/simplified pairs")
	flag.Parse()
	var links []link
	var version string
	var freq map[rune]int
	err := readUnihan(*src, "Unihan_Variants.txt", func(r io.Reader) (err error) {
		links, version, err = readLinks(r)
		return err
	})
	if err == nil {
		err = readUnihan(*src, "Unihan_Readings.txt", func(r io.Reader) (err error) {
			freq, err = readFrequency(r)
			return err
		})
	}
	if err != nil {
		log.Fatalf("%v (install Debian's unicode-data package, or pass -src)", err)
	}
	if *occ != "" {
		extra, err := readOpenCC(*occ)
		if err != nil {
			log.Fatal(err)
		}
		links = append(links, extra...)
		version += " and OpenCC TSCharacters"
	}
	table := build(links, freq)
	code, err := render(table, version)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "genhan: %d folded characters, Unihan %s\n", len(table), version)
}

// readUnihan opens the Unihan file name in dir, as name or name.bz2, and
// passes its text to read.
func readUnihan(dir, name string, read func(io.Reader) error) error {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	var r io.Reader = f
	if err != nil {
		path += ".bz2"
		if f, err = os.Open(path); err != nil {
			return err
		}
		r = bzip2.NewReader(f)
	}
	defer f.Close()
	if err := read(r); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

var versionRE = regexp.MustCompile(`Unicode version: (\S+)`)

// link is one variant relation of Unihan_Variants.txt.
type link struct {
	field string
	a, b  rune
}

// readLinks returns the variant relations of Unihan_Variants.txt and the
// Unicode version in its header.
func readLinks(r io.Reader) ([]link, string, error) {
	version := "unknown"
	var links []link
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			if m := versionRE.FindStringSubmatch(line); m != nil && version == "unknown" {
				version = m[1]
			}
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			continue
		}
		c, err := parseCP(fields[0])
		if err != nil {
			return nil, "", err
		}
		for _, v := range strings.Fields(fields[2]) {
			v, _, _ = strings.Cut(v, "<")
			cp, err := parseCP(v)
			if err != nil {
				return nil, "", err
			}
			links = append(links, link{fields[1], c, cp})
		}
	}
	return links, version, sc.Err()
}

// readOpenCC returns the traditional/simplified pairs of OpenCC's
// TSCharacters dictionary (one traditional character, a tab, and its
// simplified forms) as kSimplifiedVariant links: Unihan lacks some common
// ones (遊/游, 佈/布).
func readOpenCC(path string) ([]link, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var links []link
	for _, line := range strings.Split(string(b), "\n") {
		from, to, ok := strings.Cut(line, "\t")
		if !ok || utf8.RuneCountInString(from) != 1 {
			continue
		}
		a, _ := utf8.DecodeRuneInString(from)
		for _, t := range strings.Fields(to) {
			if utf8.RuneCountInString(t) == 1 {
				r, _ := utf8.DecodeRuneInString(t)
				links = append(links, link{"kSimplifiedVariant", a, r})
			}
		}
	}
	return links, nil
}

var pinluRE = regexp.MustCompile(`\((\d+)\)`)

// readFrequency returns the modern usage count of each character from the
// kHanyuPinlu field of Unihan_Readings.txt (counts from the Xiandai Hanyu
// Pinlu Cidian).
func readFrequency(r io.Reader) (map[rune]int, error) {
	freq := map[rune]int{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 || fields[1] != "kHanyuPinlu" {
			continue
		}
		c, err := parseCP(fields[0])
		if err != nil {
			return nil, err
		}
		for _, m := range pinluRE.FindAllStringSubmatch(fields[2], -1) {
			n, _ := strconv.Atoi(m[1])
			freq[c] += n
		}
	}
	return freq, sc.Err()
}

// build returns the sorted folding table (pairs of from, to).
//
// Classes are built in two passes. First every traditional/simplified pair
// is joined. Then z-variants and semantic variants are joined, except where
// both classes already hold a character in modern use (a kHanyuPinlu
// count): 他 and 她 are semantic variants in old texts but distinct words
// now, so their classes stay apart. Every member of a class folds to its
// most frequent member (ties: the smaller code point).
func build(links []link, freq map[rune]int) [][2]rune {
	parent := map[rune]rune{}
	var find func(rune) rune
	find = func(c rune) rune {
		p, ok := parent[c]
		if !ok || p == c {
			return c
		}
		root := find(p)
		parent[c] = root
		return root
	}
	modern := map[rune]bool{} // class roots holding a character in modern use
	members := map[rune]bool{}
	union := func(a, b rune, guarded bool) {
		members[a], members[b] = true, true
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		ma, mb := modern[ra] || freq[ra] > 0, modern[rb] || freq[rb] > 0
		if guarded && ma && mb {
			return
		}
		root, child := min(ra, rb), max(ra, rb)
		parent[child] = root
		modern[root] = ma || mb
	}
	for _, l := range links {
		if l.field == "kSimplifiedVariant" || l.field == "kTraditionalVariant" {
			union(l.a, l.b, false)
		}
	}
	for _, l := range links {
		if l.field == "kZVariant" || l.field == "kSemanticVariant" {
			union(l.a, l.b, true)
		}
	}
	rep := map[rune]rune{}
	size := map[rune]int{}
	largest := 0
	for c := range members {
		root := find(c)
		size[root]++
		largest = max(largest, size[root])
		if r, ok := rep[root]; !ok || freq[c] > freq[r] || freq[c] == freq[r] && c < r {
			rep[root] = c
		}
	}
	fmt.Fprintf(os.Stderr, "genhan: %d variant classes, the largest of %d characters\n", len(size), largest)
	var table [][2]rune
	for c := range members {
		if to := rep[find(c)]; to != c {
			table = append(table, [2]rune{c, to})
		}
	}
	slices.SortFunc(table, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	return table
}

func parseCP(s string) (rune, error) {
	if !strings.HasPrefix(s, "U+") {
		return 0, fmt.Errorf("bad code point %q", s)
	}
	n, err := strconv.ParseUint(s[2:], 16, 32)
	return rune(n), err
}

func render(table [][2]rune, version string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by genhan from Unihan_Variants.txt (Unicode %s); DO NOT EDIT.\n\n", version)
	fmt.Fprintf(&b, "package shingle\n\n")
	fmt.Fprintf(&b, "// hanFoldVersion is the Unicode version of the Unihan data behind hanFoldFrom.\n")
	fmt.Fprintf(&b, "const hanFoldVersion = %q\n\n", version)
	fmt.Fprintf(&b, "// hanFoldFrom lists, sorted, the Han characters that fold to another;\n// hanFoldTo[i] is what hanFoldFrom[i] folds to.\n")
	fmt.Fprintf(&b, "var hanFoldFrom = [%d]rune{", len(table))
	for i, p := range table {
		if i%8 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "0x%04X, ", p[0])
	}
	fmt.Fprintf(&b, "\n}\n\nvar hanFoldTo = [%d]rune{", len(table))
	for i, p := range table {
		if i%8 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "0x%04X, ", p[1])
	}
	b.WriteString("\n}\n")
	return format.Source(b.Bytes())
}
