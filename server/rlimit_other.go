//go:build !unix

package server

// openFilesLimit returns 0: the limit is unknown here.
func openFilesLimit() int { return 0 }
