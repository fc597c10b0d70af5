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

// marked lists the processes whose environment holds kv, from /proc. The
// environment of another user's process, or of a process that is not
// dumpable, cannot be read: those are not this runtime's commands.
func marked(kv string) ([]markedProc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	want := []byte(kv)
	self := os.Getpid()
	var out []markedProc
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + name + "/environ")
		if err != nil || !hasVar(env, want) {
			continue
		}
		out = append(out, markedProc{pid: pid, pgid: pgidOf(name)})
	}
	return out, nil
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
