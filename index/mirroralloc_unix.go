//go:build unix

package index

import "syscall"

// mirrorAlloc returns n zeroed bytes outside the Go heap for a table
// mirror, which holds no pointers: on the heap its size would raise the
// garbage collector's heap goal by GOGC percent of it (simidx serve runs
// with GOGC 400: four times the copy again). mirrorFree releases them.
func mirrorAlloc(n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

// mirrorFree releases the memory of mirrorAlloc. Nothing may use it after.
func mirrorFree(b []byte) {
	if len(b) > 0 {
		_ = syscall.Munmap(b)
	}
}
