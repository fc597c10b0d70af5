package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits bounds what the commands of one executor (one run) can take of
// the machine. Zero leaves a resource unbounded. See docs/sandbox.md,
// "Limits", for what enforces each one where.
type Limits struct {
	// Memory, in bytes, bounds the memory of the run's sandbox: its
	// processes together when the runtime has a cgroup to put it in
	// (memory.max), and each process's data (RLIMIT_DATA) always.
	Memory int64
	// Processes bounds the processes and threads of the run's sandbox:
	// together with a cgroup (pids.max), else per user inside the
	// sandbox's user namespace (RLIMIT_NPROC, which a sandbox running as
	// root ignores).
	Processes int
	// Tmp, in bytes, is the size of the private /tmp (a tmpfs).
	Tmp int64
	// FileSize, in bytes, is the largest file a command may write
	// (RLIMIT_FSIZE); a command that writes past it is killed (SIGXFSZ).
	FileSize int64
	// DiskGrowth, in bytes, bounds how much the workspace and the
	// clone's .git may grow over the executor's life: a command running
	// when they grew past it is killed, and one that ends past it fails.
	DiskGrowth int64
}

// serverSpec is the rlimits the command server applies, as passed to it
// on its command line (execserver.ParseLimits). The memory limit is an
// RLIMIT_DATA only without a cgroup that bounds memory (cgrouped false):
// with one, an allocation past the limit must meet the cgroup, whose OOM
// kill the runtime sees and names, not fail inside the program as its
// own error.
func (l Limits) serverSpec(cgrouped bool) string {
	var parts []string
	if l.Memory > 0 && !cgrouped {
		parts = append(parts, "data="+strconv.FormatInt(l.Memory, 10))
	}
	if l.FileSize > 0 {
		parts = append(parts, "fsize="+strconv.FormatInt(l.FileSize, 10))
	}
	if l.Processes > 0 {
		parts = append(parts, "nproc="+strconv.Itoa(l.Processes))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

// check refuses negative limits.
func (l Limits) check() error {
	if l.Memory < 0 || l.Processes < 0 || l.Tmp < 0 || l.FileSize < 0 || l.DiskGrowth < 0 {
		return fmt.Errorf("sandbox: a limit is negative: %+v", l)
	}
	return nil
}

// tmpMount is the bwrap arguments of the private /tmp, sized when
// Limits.Tmp is set.
func (l Limits) tmpMount() []string {
	if l.Tmp > 0 {
		return []string{"--size", strconv.FormatInt(l.Tmp, 10), "--tmpfs", "/tmp"}
	}
	return []string{"--tmpfs", "/tmp"}
}

// mib renders bytes as MiB for messages.
func mib(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }

// HasCgroup reports whether a sandbox with limits l gets a cgroup here,
// bounding its processes and memory together. Without one the rlimits
// alone hold, and a fork or an allocation they refuse is the program's
// own error, which the runtime does not see as a limit met
// (docs/sandbox.md, "Limits").
func HasCgroup(l Limits) bool {
	c := newCgroup(l)
	if c == nil {
		return false
	}
	c.remove()
	return true
}
