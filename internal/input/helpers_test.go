package input

import "github.com/simidx/simidx/internal/testarchive"

// licenses is the folder of sample texts.
const licenses = "../../testdata/licenses"

// The archive makers of internal/testarchive, by the names these tests use.
type member = testarchive.Member

var (
	zipBytes   = testarchive.Zip
	tarBytes   = testarchive.Tar
	gzipBytes  = testarchive.Gzip
	zstdBytes  = testarchive.Zstd
	writeBytes = testarchive.WriteFiles
	xzBytes    = testarchive.Xz
)

const helloBz2 = testarchive.HelloBz2
