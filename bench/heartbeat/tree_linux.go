//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// sampleTree sums the resident memory of process root and all its
// descendants every 100 ms until stop is closed, and returns the
// largest sum seen, in bytes.
func sampleTree(root int, stop <-chan struct{}) int64 {
	var peak int64
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if s := treeRSS(root); s > peak {
			peak = s
		}
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// treeRSS is the summed RSS of root and its descendants now.
func treeRSS(root int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
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
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		sum += rss[pid]
		queue = append(queue, children[pid]...)
	}
	return sum
}
