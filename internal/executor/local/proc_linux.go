package local

import "syscall"

// procAttr puts a command in its own process group, so that killGroup
// reaches its background children, and has the kernel kill it with
// SIGKILL when the runtime dies (even by SIGKILL), so it cannot outlive a
// crashed heartbeat. Descendants that leave the group (setsid, double
// forks) escape both; KillMarked finds them by their Mark.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the process group pid leads.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
