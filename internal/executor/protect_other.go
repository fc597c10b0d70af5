//go:build !linux

package executor

// protectProcess does nothing outside Linux.
func protectProcess() {}
