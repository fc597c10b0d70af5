//go:build unix

package storebench

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter measures the CPU time of a benchmark loop: on a machine shared
// with other work, wall time per op includes waiting for a CPU and CPU time
// does not. It counts every thread of the process, the garbage
// collector's included.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{cpuTime()} }

// report adds the cpu-ns/op metric; call it after the b.Loop loop.
func (m cpuMeter) report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(cpuTime()-m.start)/float64(b.N), "cpu-ns/op")
	}
}
