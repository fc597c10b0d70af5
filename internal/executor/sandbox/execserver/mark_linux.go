package execserver

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// markRetries bounds how often killMarked scans again for processes
// forked while it killed.
const markRetries = 50

// killMarked kills, with SIGKILL, every process of the sandbox whose
// environment holds the KEY=VALUE pair kv, and the process groups they
// lead or belong to (but the server's), until none is left or it gave up
// after markRetries scans: local.KillMarked, kept here so that this
// program links the standard library only.
func killMarked(kv string) {
	want := []byte(kv)
	for i := 0; i < markRetries; i++ {
		pids := marked(want)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			if g := pgidOf(pid); g > 1 && g != syscall.Getpgrp() {
				_ = syscall.Kill(-g, syscall.SIGKILL)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		// A killed process lingers until it is reaped; its environment
		// reads empty as soon as it is dead.
		time.Sleep(time.Duration(i+1) * time.Millisecond)
	}
}

// marked lists the processes of /proc whose environment holds kv, but
// the server's own.
func marked(kv []byte) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	var out []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + name + "/environ")
		if err == nil && hasVar(env, kv) {
			out = append(out, pid)
		}
	}
	return out
}

// hasVar reports whether the NUL-separated environment env holds kv.
func hasVar(env, kv []byte) bool {
	for len(env) > 0 {
		var v []byte
		v, env, _ = bytes.Cut(env, []byte{0})
		if bytes.Equal(v, kv) {
			return true
		}
	}
	return false
}

// pgidOf reads the process group of pid from /proc/<pid>/stat, or
// returns 0.
func pgidOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(string(f[2]))
	return g
}
