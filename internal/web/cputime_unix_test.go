//go:build unix

package web

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
