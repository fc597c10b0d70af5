//go:build !unix

package sandbox

import "io/fs"

// onDisk is fi's size: only Unix systems run the sandbox's disk guard.
func onDisk(fi fs.FileInfo) int64 { return fi.Size() }

// freeBytes is unknown off Unix.
func freeBytes(string) uint64 { return 0 }
