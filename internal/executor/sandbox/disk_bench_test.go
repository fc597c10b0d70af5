package sandbox

import (
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkDiskGuard_Walk is the disk guard's walk (a run's base, and
// each measure of a command past diskTick) of a realistic workspace: a
// clone of this repository, its worktree and its .git.
func BenchmarkDiskGuard_Walk(b *testing.B) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		b.Skip("not in a git checkout:", err)
	}
	dst := filepath.Join(b.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "--quiet", "--no-local", strings.TrimSpace(string(top)), dst).CombinedOutput(); err != nil {
		b.Fatalf("git clone: %v: %s", err, out)
	}
	out, _ := exec.Command("find", dst, "-type", "f").Output()
	files := strings.Count(string(out), "\n")
	b.Run("walkdir", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			var n int64
			_ = filepath.WalkDir(dst, func(_ string, e fs.DirEntry, err error) error {
				if err != nil || e.Type()&fs.ModeType != 0 {
					return nil
				}
				if fi, err := e.Info(); err == nil {
					n += onDisk(fi)
				}
				return nil
			})
		}
		b.ReportMetric(float64(files), "files")
		reportCPU(b, start)
	})
	b.Run("tree", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			treeUsage(dst)
		}
		b.ReportMetric(float64(files), "files")
		reportCPU(b, start)
	})
}

// cpuTime is the user and system CPU time this process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time an iteration took since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}
