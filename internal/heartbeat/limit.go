package heartbeat

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Sizing of "auto" concurrency (docs/heartbeat.md "Concurrency"). Agents
// mostly wait on the model: with the sandbox on, a waiting agent costs
// the machine about 5 MB resident (its sandbox's bwrap and command
// server; 1 MB of it not shared) and its run's set-up and end a fraction
// of a CPU second, so eight run per core, at least four, at most 64. The
// memory an agent's tools need (a build, a test suite; the sandbox caps
// one run at limits.memoryMiB) bounds it too: one agent per memPerAgent
// of available memory.
const (
	agentsPerCore = 8
	minAuto       = 4
	maxAuto       = 64
	memPerAgent   = 512 << 20
)

// AutoConcurrency derives how many agents may run at once from the number
// of cores and the available memory (bytes; 0 when unknown): eight per
// core, between 4 and 64, at most one per 512 MiB available, at least
// one.
func AutoConcurrency(cores int, availMem uint64) int {
	n := min(max(agentsPerCore*cores, minAuto), maxAuto)
	if availMem > 0 {
		n = min(n, int(availMem/memPerAgent))
	}
	return max(1, n)
}

// ConcurrencyLimit is heartbeat.maxConcurrentAgents as config.json sets
// it: the number set, or this machine's MachineConcurrency for "auto"
// (0).
func ConcurrencyLimit(set int) int {
	if set > 0 {
		return set
	}
	return MachineConcurrency()
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
