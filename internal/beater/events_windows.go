package beater

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// passFile lets cmd inherit f's handle and returns the value of
// EventsEnv that names it.
func passFile(cmd *exec.Cmd, f *os.File) string {
	h := syscall.Handle(f.Fd())
	syscall.SetHandleInformation(h, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, h)
	return strconv.FormatUint(uint64(h), 10)
}

// openInherited opens the handle the parent passed, no longer inheritable
// so that the beat's own children never hold the pipe open.
func openInherited(h uintptr) (*os.File, error) {
	if err := syscall.SetHandleInformation(syscall.Handle(h), syscall.HANDLE_FLAG_INHERIT, 0); err != nil {
		return nil, err
	}
	return os.NewFile(h, "events"), nil
}
