//go:build !linux

package main

import "os"

// residentBytes is not measured here: no run is killed for its size.
func residentBytes(int) (int64, bool) { return 0, false }

// availableBytes is not measured here.
func availableBytes() (int64, bool) { return 0, false }

// maxRSS is not measured here.
func maxRSS(*os.ProcessState) int64 { return 0 }
