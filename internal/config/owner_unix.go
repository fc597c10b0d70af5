//go:build unix

package config

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedBySelf reports whether this process's user owns the file fi
// describes.
func ownedBySelf(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
