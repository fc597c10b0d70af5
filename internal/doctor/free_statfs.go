//go:build linux || darwin || freebsd

package doctor

import "syscall"

// FreeBytes returns the bytes of the file system holding path that an
// unprivileged user may still write.
func FreeBytes(path string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
