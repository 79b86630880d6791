//go:build !linux

package main

// lowerThreadPriority does nothing where threads have no priority of
// their own.
func lowerThreadPriority() error { return nil }
