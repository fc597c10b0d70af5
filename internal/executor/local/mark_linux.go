package local

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// markedProc is a process carrying a mark.
type markedProc struct {
	pid, pgid int
}

// markedAny lists, from /proc, the processes whose environment holds
// one of the KEY=VALUE pairs of want, by pair: one pass over the process
// table for all of them. The environment of another user's process, or
// of a process that is not dumpable, cannot be read: those are not this
// runtime's commands.
func markedAny(want map[string]bool) (map[string][]markedProc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	out := map[string][]markedProc{}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + name + "/environ")
		if err != nil {
			continue
		}
		var p *markedProc
		for len(env) > 0 {
			var v []byte
			v, env, _ = bytes.Cut(env, []byte{0})
			if !want[string(v)] {
				continue
			}
			if p == nil {
				p = &markedProc{pid: pid, pgid: pgidOf(name)}
			}
			out[string(v)] = append(out[string(v)], *p)
		}
	}
	return out, nil
}

// pgidOf reads the process group of a process from /proc/<pid>/stat, or
// returns 0.
func pgidOf(pid string) int {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(f[2])
	return g
}

// kill kills a marked process and its process group, unless that group is
// the caller's own.
func kill(p markedProc) {
	if p.pgid > 1 && p.pgid != syscall.Getpgrp() {
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	}
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
}
