//go:build !unix

package index

// mirrorAlloc returns n zeroed bytes for a table mirror: on the Go heap
// where there is no anonymous mmap.
func mirrorAlloc(n int) ([]byte, error) { return make([]byte, n), nil }

// mirrorFree releases the memory of mirrorAlloc: the collector does.
func mirrorFree([]byte) {}
