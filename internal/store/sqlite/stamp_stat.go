//go:build linux || darwin

package sqlite

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// fileChanged is the newer of fi's modification and status-change times:
// the change time moves on every write, rename into place and chmod, and
// no tool can set it back.
func fileChanged(fi os.FileInfo) time.Time {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi.ModTime()
	}
	if c := time.Unix(statCtime(st)); c.After(fi.ModTime()) {
		return c
	}
	return fi.ModTime()
}

// fileID tells a file replaced under the same name (a restored backup)
// from the one it replaced.
func fileID(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(st.Ino, 10)
}
