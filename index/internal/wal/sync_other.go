//go:build !linux

package wal

import "os"

// datasync flushes f's data to stable storage (fsync where fdatasync is
// not available).
func datasync(f *os.File) error { return f.Sync() }
