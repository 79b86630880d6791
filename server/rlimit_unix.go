//go:build unix

package server

import "syscall"

// openFilesLimit returns the process's limit of open files, 0 if unknown.
func openFilesLimit() int {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r) != nil || r.Cur > 1<<30 {
		return 0
	}
	return int(r.Cur)
}
