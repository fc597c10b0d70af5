package local

import (
	"os"
	"syscall"
)

// procAttr starts a command in a new process group, so that a Ctrl-C sent
// to the runtime's console does not reach it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the process pid. Windows has no process groups to
// signal: children the command started are not killed with it.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
		_ = p.Release()
	}
}
