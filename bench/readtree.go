package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// readTreeRow is one tree of BenchmarkReadTree (package internal/input): the
// input layer reading the same texts plain, compressed or archived.
type readTreeRow struct {
	Command   string // the go test command of the run
	Tree      string
	MBps      float64 // MB/s of text, decompressed (b.SetBytes)
	AllocByte int64   // bytes allocated per read of the tree
}

// readTreeCommand is the command whose figures the report gives, with
// the number of reads per run and of runs.
func readTreeCommand(reads, count int) string {
	return fmt.Sprintf("go test ./internal/input -run '^$' -bench BenchmarkReadTree -benchtime %dx -count %d", reads, count)
}

// runReadTree runs BenchmarkReadTree in the root module, count runs of
// reads reads of each tree, and returns, per tree, the median run.
func runReadTree(reads, count int) ([]readTreeRow, error) {
	root, err := simidxRoot()
	if err != nil {
		return nil, fmt.Errorf("readtree: %w", err)
	}
	cmd := exec.Command("go", "test", "./internal/input", "-run", "^$", "-bench", "BenchmarkReadTree",
		"-benchtime", fmt.Sprintf("%dx", reads), "-count", strconv.Itoa(count))
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("readtree: %v\n%s", err, out)
	}
	rows, err := parseReadTree(bytes.NewReader(out))
	for i := range rows {
		rows[i].Command = readTreeCommand(reads, count)
	}
	return rows, err
}

// parseReadTree reads the output of go test -bench BenchmarkReadTree: for
// each tree, the median MB/s of its runs and their allocation.
func parseReadTree(r io.Reader) ([]readTreeRow, error) {
	var order []string
	runs := map[string][]readTreeRow{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || !strings.HasPrefix(f[0], "BenchmarkReadTree/") || f[5] != "MB/s" || f[7] != "B/op" {
			continue
		}
		name := strings.TrimPrefix(f[0], "BenchmarkReadTree/")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // the GOMAXPROCS suffix
		}
		mbps, err1 := strconv.ParseFloat(f[4], 64)
		alloc, err2 := strconv.ParseInt(f[6], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("readtree: bad line %q", sc.Text())
		}
		if _, ok := runs[name]; !ok {
			order = append(order, name)
		}
		runs[name] = append(runs[name], readTreeRow{Tree: name, MBps: mbps, AllocByte: alloc})
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("readtree: no benchmark results")
	}
	var rows []readTreeRow
	for _, name := range order {
		rs := runs[name]
		// The median by speed.
		for i := range rs {
			for j := i + 1; j < len(rs); j++ {
				if rs[j].MBps < rs[i].MBps {
					rs[i], rs[j] = rs[j], rs[i]
				}
			}
		}
		rows = append(rows, rs[len(rs)/2])
	}
	return rows, sc.Err()
}

// writeReadTree writes the section of the report.
func writeReadTree(w io.Writer, rows []readTreeRow) {
	fmt.Fprintln(w, "### Reading compressed files and archives")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The input layer of the command alone (listing, opening, decompressing, the checks of each document; no analysis, no index): a tree of 8 copies of the sample licences, 544 texts, 5.3 MB of text, read as plain files, as one compressed file per text, and as one archive per copy; MB/s of text once decompressed, the median run, every variant in the same run:")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "```\n%s\n```\n\n", rows[0].Command)
	fmt.Fprintln(w, "| tree | MB/s of text | ratio to plain | allocated per read |")
	fmt.Fprintln(w, "|---|---|---|---|")
	var plain float64
	for _, r := range rows {
		if r.Tree == "plain" {
			plain = r.MBps
		}
	}
	for _, r := range rows {
		ratioCell := "-"
		if plain > 0 {
			ratioCell = fmt.Sprintf("%.2fx", r.MBps/plain)
		}
		fmt.Fprintf(w, "| %s | %.1f | %s | %s |\n", r.Tree, r.MBps, ratioCell, formatBytes(r.AllocByte))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Reading runs on one goroutine beside the analysis on all cores ([end to end](#simidx-index-end-to-end)). A tar.zst has one file to open per copy instead of 68. Each small `.xz` file costs the dictionary its stream declares (8 MiB for `xz -6`), allocated per stream by the decoder; a `.tar.xz` pays it once.")
	fmt.Fprintln(w)
}

// formatBytes formats n bytes in decimal units.
func formatBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
