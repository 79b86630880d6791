package main

import "syscall"

// lowerThreadPriority lowers the scheduling priority of the calling OS
// thread (nice 10), which must be locked to its goroutine: background
// index commits then yield the CPU to request handling, as compaction
// threads do in other stores.
func lowerThreadPriority() error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 10)
}
