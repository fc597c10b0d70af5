//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// sampleTree sums the resident memory of process root and all its
// descendants every 100 ms until stop is closed, and returns the
// largest sums seen, in bytes: of their RSS and of their PSS (shared
// pages divided among the processes sharing them: the sandboxes' exec
// servers run one program's pages). PSS walks every page table of every
// process: it is read again only when the RSS peak grew by a twentieth
// since it was last read, so the sampler does not take a core of the
// two from the beat it measures while hundreds of agents start (its
// peak may then be up to that much below the true one).
func sampleTree(root int, stop <-chan struct{}) (rss, pss int64) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var pssAt int64 // the RSS sum when PSS was last read
	for {
		r, pids := treeRSS(root)
		rss = max(rss, r)
		if r > pssAt+pssAt/20 {
			pssAt = r
			pss = max(pss, sumPSS(pids))
		}
		select {
		case <-stop:
			return rss, pss
		case <-tick.C:
		}
	}
}

// sumPSS sums the Pss line of each process's smaps_rollup, in bytes.
func sumPSS(pids []int) int64 {
	var sum int64
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("Pss:")); ok {
				f := bytes.Fields(v)
				if len(f) > 0 {
					kb, _ := strconv.ParseInt(string(f[0]), 10, 64)
					sum += kb << 10
				}
				break
			}
		}
	}
	return sum
}

// treeRSS is the summed RSS of root and its descendants now, and their
// process ids.
func treeRSS(root int) (int64, []int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, nil
	}
	children := map[int][]int{}
	rss := map[int]int64{}
	page := int64(os.Getpagesize())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the command's closing parenthesis: state, ppid, … and
		// rss (field 24) in pages.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		pages, _ := strconv.ParseInt(string(f[21]), 10, 64)
		children[ppid] = append(children[ppid], pid)
		rss[pid] = pages * page
	}
	var sum int64
	var pids []int
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		sum += rss[pid]
		pids = append(pids, pid)
		queue = append(queue, children[pid]...)
	}
	return sum, pids
}

// selfCPU waits for process pid to exit without reaping it and returns
// the CPU time it used itself, all its threads, without its children's:
// what /proc/<pid>/stat still holds while the process is a zombie (in
// clock ticks of 10 ms). The caller reaps it (exec.Cmd.Wait). ok is false
// when it could not be read.
func selfCPU(pid int) (cpu time.Duration, ok bool) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return 0, false
		}
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	// After the parenthesis: state (field 3) … utime (14) and stime (15).
	f := bytes.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(utime+stime) * tick, true
}
