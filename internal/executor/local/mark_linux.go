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
	buf := make([]byte, 64<<10)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		env, ok := readEnviron(name, buf)
		if !ok {
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

// readEnviron reads /proc/<pid>/environ into buf with one open, read
// and close where it fits (os.ReadFile, which a /proc file's size of 0
// leaves growing its buffer from 512 bytes, took several reads a process,
// each walking the process's memory), or whole where it does not.
func readEnviron(pid string, buf []byte) ([]byte, bool) {
	path := "/proc/" + pid + "/environ"
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	n, err := syscall.Read(fd, buf)
	for err == syscall.EINTR {
		n, err = syscall.Read(fd, buf)
	}
	syscall.Close(fd)
	if err != nil || n < 0 {
		return nil, false
	}
	if n < len(buf) {
		return buf[:n], true
	}
	env, err := os.ReadFile(path)
	return env, err == nil
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
