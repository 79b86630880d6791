package input

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// licenses is the folder of sample texts.
const licenses = "../../testdata/licenses"

// member is a file of a test archive.
type member struct {
	name, data string
}

// zipBytes returns a zip archive of the members, deflated.
func zipBytes(t testing.TB, members ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(m.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tarBytes returns a tar archive of the members.
func tarBytes(t testing.TB, members ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, m := range members {
		h := &tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.data)), Typeflag: tar.TypeReg}
		if strings.HasSuffix(m.name, "/") {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipBytes compresses data with gzip.
func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zstdBytes compresses data with zstd.
func zstdBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer zw.Close()
	return zw.EncodeAll(data, nil)
}

// writeBytes writes files (name -> content) under dir.
func writeBytes(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// xzBytes compresses data with xz.
func xzBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := xz.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// helloBz2 is a bzip2 stream of "hello\n", made by Python's bz2 module (the
// standard library has no bzip2 writer).
const helloBz2 = "\x42\x5a\x68\x39\x31\x41\x59\x26\x53\x59\xc1\xc0\x80\xe2\x00\x00\x01\x41\x00\x00\x10\x02\x44\xa0\x00\x30\xcd\x00\xc3\x46\x29\x97\x17\x72\x45\x38\x50\x90\xc1\xc0\x80\xe2"
