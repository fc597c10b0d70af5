//go:build !linux

package local

// protectProcess does nothing outside Linux.
func protectProcess() {}

// Protect does nothing outside Linux; see the Linux version.
func Protect() {}
