package input

import "github.com/simidx/simidx/internal/testcorpus"

// licenses is the folder of sample texts.
const licenses = "../../testdata/licenses"

// The archive makers of internal/testcorpus, by the names these tests use.
type member = testcorpus.Member

var (
	zipBytes   = testcorpus.Zip
	tarBytes   = testcorpus.Tar
	gzipBytes  = testcorpus.Gzip
	zstdBytes  = testcorpus.Zstd
	writeBytes = testcorpus.WriteFiles
	xzBytes    = testcorpus.Xz
)

const helloBz2 = testcorpus.HelloBz2
