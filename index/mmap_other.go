//go:build !unix

package index

// initialMmapSize is bbolt's default where mapping beyond the end of a file
// may extend the file (Windows).
const initialMmapSize = 0

// allocSize returns bbolt's default AllocSize (16 MiB): with bbolt's own
// mapping, a file doubles until it reaches it.
func allocSize(int64) int { return 16 << 20 }
