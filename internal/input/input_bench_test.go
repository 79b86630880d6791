package input

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/simidx/simidx/internal/console"
)

// BenchmarkReadTree reads a tree of texts (the sample licences, 8 copies
// of them in folders) through the input layer, as simidx index reads its
// INPUT: plain files, each file compressed (gzip, zstd, xz), and each
// folder as an archive (zip, tar.gz, tar.zst). The bytes per second are
// bytes of text, once decompressed, so that the figures compare.
func BenchmarkReadTree(b *testing.B) {
	names, err := filepath.Glob(filepath.Join(licenses, "*.txt"))
	if err != nil || len(names) == 0 {
		b.Fatal("no sample texts", err)
	}
	var texts []member
	var size int64
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, member{filepath.Base(n), string(data)})
		size += int64(len(data))
	}
	const copies = 8
	size *= copies
	for _, tc := range []struct {
		name string
		// write writes copy i of the texts under dir.
		write func(dir string, i int)
	}{
		{"plain", func(dir string, i int) {
			for _, m := range texts {
				writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d/%s", i, m[0]): []byte(m[1])})
			}
		}},
		{"gzip", func(dir string, i int) {
			for _, m := range texts {
				writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d/%s.gz", i, m[0]): gzipBytes(b, []byte(m[1]))})
			}
		}},
		{"zstd", func(dir string, i int) {
			for _, m := range texts {
				writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d/%s.zst", i, m[0]): zstdBytes(b, []byte(m[1]))})
			}
		}},
		{"xz", func(dir string, i int) {
			for _, m := range texts {
				writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d/%s.xz", i, m[0]): xzBytes(b, []byte(m[1]))})
			}
		}},
		{"zip", func(dir string, i int) {
			writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d.zip", i): zipBytes(b, texts...)})
		}},
		{"tar.gz", func(dir string, i int) {
			writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d.tar.gz", i): gzipBytes(b, tarBytes(b, texts...))})
		}},
		{"tar.zst", func(dir string, i int) {
			writeBytes(b, dir, map[string][]byte{fmt.Sprintf("%d.tar.zst", i): zstdBytes(b, tarBytes(b, texts...))})
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			for i := range copies {
				tc.write(dir, i)
			}
			flags := Flags{format: Auto, maxSize: -1, maxMember: defaultMaxMember, maxArchive: defaultMaxArchive}
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				r, err := Open([]string{dir}, flags, nil, console.New(io.Discard, "bench"))
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for d, err := range r.All(context.Background()) {
					if err != nil {
						b.Fatal(err)
					}
					n += int64(len(d.Text))
				}
				if n != size || r.Skipped() != 0 {
					b.Fatalf("read %d bytes of text, want %d; %d skipped", n, size, r.Skipped())
				}
			}
		})
	}
}
