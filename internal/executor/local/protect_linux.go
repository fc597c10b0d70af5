package local

import (
	"sync"
	"syscall"
)

var protectOnce sync.Once

// Protect marks the runtime's process as not dumpable (Linux; elsewhere
// it does nothing). New calls it; long-running processes that hold
// API keys without opening an executor (bonsai up, bonsai serve) should
// call it at start.
func Protect() { protectProcess() }

// protectProcess marks the runtime's process as not dumpable. Linux then
// lets no other process of the same user read its /proc/<pid>/environ or
// memory: the commands an executor runs strip the runtime's API keys from
// their own environment, but could otherwise read them from their parent's
// with `cat /proc/$PPID/environ`. The flag is reset when a child execs, so
// commands are unaffected. It is best-effort: other processes holding the
// keys (the shell that started Bonsai) are not protected; only a sandbox is.
func protectProcess() {
	protectOnce.Do(func() {
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0)
	})
}
