package index

import (
	"math/bits"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// bandFilter is an in-memory blocked Bloom filter of the keys of the bands
// bucket and of the exact-text hashes of the exact bucket
// (Options.BandFilter): a query skips the bbolt lookup of a band hash or
// an exact hash the filter has never seen, which is most of them (a new
// document shares few bands with the corpus, and is rarely an exact
// copy). The exact hashes are the filter's pseudo-band exactBand. It never
// forgets a key: deleted
// postings only cost a lookup that finds nothing, until the next rebuild.
// Bits are set atomically, so queries read the filter while a writer adds
// to it, and a key is added before the transaction that writes it commits:
// a query of a snapshot that holds the key always finds it in the filter.
type bandFilter struct {
	blocks []filterBlock
	keys   atomic.Int64 // keys that set a new bit: distinct keys, about
	limit  int64        // keys beyond which the filter is rebuilt larger
	// allExact makes the filter hold every exact hash: the exact bucket
	// had a damaged group when it was built, whose hashes must reach a
	// lookup, which reports the damage (set before the filter is shared).
	allExact bool
}

// filterBlock is one cache line of the filter: a key sets filterProbes of
// its 512 bits.
type filterBlock [8]atomic.Uint64

const (
	filterBitsPerKey = 12   // about 1% false positives
	filterProbes     = 7    // bits set per key, 9 bits of hash each
	filterMinKeys    = 1024 // the smallest capacity

	// exactBand is the band number under which the filter keeps the
	// exact-text hashes; real bands are numbered from 0 to Bands-1 < 255.
	exactBand = 255
)

// newBandFilter returns an empty filter for capacity keys.
func newBandFilter(capacity int64) *bandFilter {
	capacity = max(capacity, filterMinKeys)
	n := (capacity*filterBitsPerKey + 511) / 512
	return &bandFilter{blocks: make([]filterBlock, n), limit: capacity}
}

// filterHash mixes band i and its band hash h into the filter's hash.
func filterHash(i int, h uint64) uint64 {
	x := h ^ (uint64(i)+1)*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// locate returns the block of band i with hash h and the hash whose 9-bit
// pieces are the key's bits in it.
func (f *bandFilter) locate(i int, h uint64) (*filterBlock, uint64) {
	x := filterHash(i, h)
	hi, _ := bits.Mul64(x, uint64(len(f.blocks))) // the high bits choose the block
	return &f.blocks[hi], x * 0xd6e8feb86659fd93  // fresh low bits for the probes
}

// add records band i with hash h. A key whose bits were all set already
// is not counted, so repeated adds of the same key (an upsert of the same
// text) do not make the filter grow. Cost: one cache line.
func (f *bandFilter) add(i int, h uint64) {
	b, y := f.locate(i, h)
	fresh := false
	for p := range filterProbes {
		bit := (y >> (9 * p)) & 511
		m := uint64(1) << (bit & 63)
		if b[bit>>6].Or(m)&m == 0 {
			fresh = true
		}
	}
	if fresh {
		f.keys.Add(1)
	}
}

// has reports whether band i with hash h may have a posting: false means
// certainly not. Cost: one cache line.
func (f *bandFilter) has(i int, h uint64) bool {
	if i == exactBand && f.allExact {
		return true
	}
	b, y := f.locate(i, h)
	for p := range filterProbes {
		bit := (y >> (9 * p)) & 511
		if b[bit>>6].Load()&(1<<(bit&63)) == 0 {
			return false
		}
	}
	return true
}

// full reports whether the filter holds more keys than it was made for.
func (f *bandFilter) full() bool { return f.keys.Load() > f.limit }

// buildBandFilter returns a filter of every band hash of the bands bucket and
// every hash of the exact bucket in tx, with room for capacity keys. It
// costs a scan of the two buckets (the bands bucket's values too when it
// is grouped).
func (x *Index) buildBandFilter(tx *bolt.Tx, capacity int64) *bandFilter {
	f := newBandFilter(capacity)
	if bb := tx.Bucket(bucketBands); bb != nil {
		// A damaged key or group is left out (Check reports it).
		_ = x.eachBand(bb, func([]byte, string) {}, false, func(b int, h uint64, _ []byte) error {
			f.add(b, h)
			return nil
		})
	}
	if eb := tx.Bucket(bucketExact); eb != nil {
		// A damaged group lets every exact hash through, to the lookup
		// that reports it.
		_ = x.eachExact(eb, func([]byte, string) { f.allExact = true }, func(h uint64, _ uint32) error {
			f.add(exactBand, h)
			return nil
		})
	}
	return f
}

// rebuildBandFilter replaces the band filter with one of every band
// posting and exact hash in the index, with room for at least capacity
// keys, or leaves it off (nil) without Options.BandFilter. The caller holds x.wmu, or is
// Open: no write may commit during the scan.
//
// The filter is sized by the keys the index holds (half as many again),
// not by its documents: a document added by fingerprint has none, and a
// filter sized for (Bands+1) keys per document of an index of a million
// fingerprints and a few texts would take 34 MB, a cache miss per lookup,
// for a few thousand keys. At Open and after a Load (capacity 0) the
// first scan assumes every document has its keys; when far fewer were
// found, a second, short, scan builds the small filter, so that Open
// briefly allocates the larger one. A growth (capacity > 0) builds at
// capacity, and again larger only if the keys found do not fit.
func (x *Index) rebuildBandFilter(capacity int64) error {
	if !x.useFilter {
		return nil
	}
	first := max(capacity, filterMinKeys)
	if capacity == 0 {
		first = max(first, 3*int64(x.filterKeysPerDoc())*x.count.Load()/2)
	}
	var f *bandFilter
	err := x.view(func(tx *bolt.Tx) error {
		build := func(capacity int64) *bandFilter {
			f := x.buildBandFilter(tx, capacity)
			for _, r := range x.levels() {
				for _, k := range r.keys() {
					f.add(int(k.b), k.h)
				}
			}
			return f
		}
		f = build(first)
		if need := max(capacity, 3*f.keys.Load()/2, filterMinKeys); need > f.limit || need < first/4 {
			f = build(need)
		}
		return nil
	})
	if err != nil {
		return boltErr(err)
	}
	x.filter.Store(f)
	return nil
}

// filterKeysPerDoc returns the most keys a document puts in the band
// filter: its bands, with MinHash, and its exact hash.
func (x *Index) filterKeysPerDoc() int {
	if x.settings.MinHash {
		return x.settings.bandSlots() + 1
	}
	return 1
}

// growBandFilter rebuilds the band filter twice as large when it holds
// more keys than it was made for. The caller holds x.wmu.
func (x *Index) growBandFilter() error {
	if f := x.filter.Load(); f != nil && f.full() {
		return x.rebuildBandFilter(2 * f.limit)
	}
	return nil
}
