module github.com/simidx/simidx/bench

go 1.26.0

require (
	github.com/simidx/simidx v0.0.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/RoaringBitmap/roaring/v2 v2.30.0 // indirect
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/simidx/simidx => ../
