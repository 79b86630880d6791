//go:build unix

package index

// initialMmapSize is the address space bbolt maps for a file from the
// start: address space only, not memory (pages are read in as they are
// touched) and not disk (the file grows with its data). A write
// transaction that grows the file past the mapping remaps it, and a remap
// copies every key and value the transaction has written so far out of the
// old mapping (bbolt's node.dereference), which in a bulk load, one large
// transaction, grows with every remap of bbolt's default mapping (it starts
// at 32 KiB and doubles). 1 GiB on 64-bit platforms.
const initialMmapSize = int(1 << 30 * (^uintptr(0) >> 63))

// allocSize returns the bytes by which bbolt grows a file whose data (the
// pages up to its high water mark) is size bytes: an eighth of it, at least
// 1 MiB and at most 64 MiB. With a mapping larger than the file, bbolt
// grows the file by AllocSize past what a commit needs (its default is 16
// MiB): a small index stays small on disk, and a large load grows its file
// in few steps, each a truncate and an fsync.
func allocSize(size int64) int { return int(min(max(size/8, 1<<20), 64<<20)) }
