//go:build linux

package workspace

import (
	"golang.org/x/sys/unix"
)

// readLooseRef returns the content of the loose ref file rel (a path
// under the projects directory, projects, which is the runtime's own),
// read without git and without following a link anywhere on its way
// (openat2, RESOLVE_NO_SYMLINKS and RESOLVE_BENEATH), or "" when it
// cannot tell: no such file, a link, not a regular file, more than a
// line. The file is the agent's to write: the caller only compares what
// it returns with a commit it chose, and asks git otherwise.
func readLooseRef(projects, rel string) string {
	dir, err := unix.Open(projects, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer unix.Close(dir)
	fd, err := unix.Openat2(dir, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV,
	})
	if err != nil {
		return ""
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxLooseRef {
		return ""
	}
	buf := make([]byte, maxLooseRef+1)
	n, err := unix.Read(fd, buf)
	if err != nil || n <= 0 || n > maxLooseRef {
		return ""
	}
	return string(buf[:n])
}
