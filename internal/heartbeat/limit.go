package heartbeat

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Sizing of "auto" concurrency. Agents mostly wait on the model, so
// several run per core: four per core, at least four, at most sixteen
// (docs/heartbeat.md has the measurements). An agent's tools (builds,
// tests) may need about memPerAgent, so available memory bounds it too.
const (
	agentsPerCore = 4
	minAuto       = 4
	maxAuto       = 16
	memPerAgent   = 1 << 30
)

// AutoConcurrency derives how many agents may run at once from the number
// of cores and the available memory (bytes; 0 when unknown): four per
// core, between 4 and 16, at most one per GiB available, at least one.
func AutoConcurrency(cores int, availMem uint64) int {
	n := min(max(agentsPerCore*cores, minAuto), maxAuto)
	if availMem > 0 {
		n = min(n, int(availMem/memPerAgent))
	}
	return max(1, n)
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
