//go:build windows

package cli

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in its own process group without a console, so that
// it outlives the process that started it.
func detach(cmd *exec.Cmd) {
	const detachedProcess = 0x00000008
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
}
