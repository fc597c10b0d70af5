//go:build !windows

package beater

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// passFile hands f to cmd as its descriptor 3 and returns the value of
// EventsEnv that names it.
func passFile(cmd *exec.Cmd, f *os.File) string {
	cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	return strconv.Itoa(2 + len(cmd.ExtraFiles))
}

// openInherited opens the descriptor fd the parent passed, closed on
// exec so that the beat's own children never hold the pipe open.
func openInherited(fd uintptr) (*os.File, error) {
	if fd < 3 {
		return nil, errors.New("standard input, output and error are not the events pipe")
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(fd), &st); err != nil {
		return nil, err
	}
	syscall.CloseOnExec(int(fd))
	return os.NewFile(fd, "events"), nil
}
