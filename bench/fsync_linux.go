package main

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data as the journal of simidx serve does.
func fdatasync(f *os.File) error {
	for {
		if err := syscall.Fdatasync(int(f.Fd())); err != syscall.EINTR {
			return err
		}
	}
}
