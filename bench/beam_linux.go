package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// residentBytes returns the resident size of process pid (VmRSS).
func residentBytes(pid int) (int64, bool) {
	return procKB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:")
}

// availableBytes returns the machine's available memory (MemAvailable).
func availableBytes() (int64, bool) { return procKB("/proc/meminfo", "MemAvailable:") }

// procKB returns, in bytes, the value in kB of the line of the /proc file
// at path that starts with key.
func procKB(path, key string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte(key)); ok {
			f := bytes.Fields(v)
			if len(f) == 0 {
				return 0, false
			}
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// maxRSS returns the peak resident size of an ended process (ru_maxrss).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10
	}
	return 0
}
