//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// onDisk is the bytes fi's file takes on disk (its blocks, not its size:
// a sparse file counts what it uses).
func onDisk(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}

// freeBytes is the space left for an unprivileged user on dir's file
// system; 0 when it cannot be read.
func freeBytes(dir string) uint64 {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return 0
	}
	return st.Bavail * uint64(st.Bsize)
}
