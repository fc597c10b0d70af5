//go:build unix && !linux

package local

import "syscall"

// procAttr puts a command in its own process group, so that killGroup
// reaches its background children. These systems have no parent-death
// signal: a command outlives a runtime killed with SIGKILL.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group pid leads.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
