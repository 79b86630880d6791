module github.com/simidx/simidx

go 1.26.0

require (
	github.com/RoaringBitmap/roaring/v2 v2.30.0
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/klauspost/compress v1.20.4
	github.com/spf13/pflag v1.0.10
	github.com/ulikunitz/xz v0.5.17
	go.etcd.io/bbolt v1.5.0
	golang.org/x/text v0.43.0
)

require (
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
