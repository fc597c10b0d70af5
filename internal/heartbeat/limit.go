package heartbeat

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Sizing of "auto" concurrency: an agent process needs about this much
// memory for its tools (builds, tests), and no more than this many run by
// default however big the machine.
const (
	memPerAgent = 1 << 30
	maxAuto     = 8
)

// AutoConcurrency derives how many agents may run at once from the number
// of cores and the available memory (bytes; 0 when unknown): one per core,
// at most one per GiB available, at least one, at most 8.
func AutoConcurrency(cores int, availMem uint64) int {
	n := cores
	if availMem > 0 {
		if m := int(availMem / memPerAgent); m < n {
			n = m
		}
	}
	return max(1, min(n, maxAuto))
}

// MachineConcurrency is AutoConcurrency for this machine.
func MachineConcurrency() int {
	return AutoConcurrency(runtime.NumCPU(), availableMemory())
}

// availableMemory reads MemAvailable from /proc/meminfo; 0 where there is
// no such file (macOS, Windows), so only the cores count there.
func availableMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
