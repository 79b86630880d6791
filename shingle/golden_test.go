package shingle_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/simidx/simidx/shingle"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// checkGolden compares got with the golden file name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("%s: persisted values changed at line %d:\n got: %s\nwant: %s\n"+
					"Hashes and fingerprints are stored in indexes: a change is a format change.",
					path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: persisted values changed (%d lines, want %d)", path, len(gl), len(wl))
	}
}

func hexList(hs []uint64, n int) string {
	var b bytes.Buffer
	for i, h := range hs {
		if i == n {
			fmt.Fprintf(&b, " ...")
			break
		}
		fmt.Fprintf(&b, " %016x", h)
	}
	return b.String()
}

// TestGolden pins every persisted value of the text pipeline: canonical
// text, unit hashes, shingle hashes, MinHash signatures of both schemes and
// band hashes, under the default options and the main variants.
func TestGolden(t *testing.T) {
	docs := loadSample(t)
	variants := []struct {
		name string
		opts shingle.Options
	}{
		{"default", shingle.Options{}},
		{"chars", shingle.Options{Unit: shingle.Chars, Size: 4}},
		{"disjoint3", shingle.Options{Size: 3, Disjoint: true}},
		{"keepcase-keeppunct-nonorm", shingle.Options{KeepCase: true, KeepPunct: true, NoNormalize: true}},
		{"markupkeep", shingle.Options{Markup: shingle.MarkupKeep}},
		{"gram2", shingle.Options{Gram: 2}},
		{"nohanfold", shingle.Options{NoHanFold: true}},
	}
	oph, _ := shingle.NewMinHasher(0, shingle.OnePermutation)
	mixes, _ := shingle.NewMinHasher(0, shingle.Mixes)
	var out bytes.Buffer
	for _, v := range variants {
		sh, err := shingle.NewShingler(&v.opts)
		if err != nil {
			t.Fatal(err)
		}
		canon, _ := shingle.NewTokenizer(&v.opts)
		for _, d := range docs {
			shingles := sh.AppendHashes(nil, []byte(d.Text))
			units := sh.Units()
			fmt.Fprintf(&out, "== %s %s\n", v.name, d.ID)
			fmt.Fprintf(&out, "canonical %q\n", canon.AppendCanonical(nil, []byte(d.Text)))
			fmt.Fprintf(&out, "units %d combined %016x:%s\n", len(units), shingle.Combine(units), hexList(units, 8))
			fmt.Fprintf(&out, "shingles %d combined %016x:%s\n", len(shingles), shingle.Combine(shingles), hexList(shingles, 8))
			set := shingle.Set(shingles)
			sig := oph.Append(nil, set)
			fmt.Fprintf(&out, "oph%s\n", hexList(sig, -1))
			fmt.Fprintf(&out, "bands%s\n", hexList(shingle.AppendBands(nil, sig, 14, 6), -1))
			msig := mixes.Append(nil, set)
			fmt.Fprintf(&out, "mixes combined %016x:%s\n", shingle.Combine(msig), hexList(msig, 6))
		}
	}
	checkGolden(t, "shingle.txt", out.Bytes())
}
