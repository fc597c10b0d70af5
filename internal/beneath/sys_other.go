//go:build !linux

package beneath

// sys is rootFS where the kernel has no openat2.
var sys fsys = rootFS{}
