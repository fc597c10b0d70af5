package execserver

import (
	"bytes"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

// reapOrphans waits, for as long as the server runs, for the processes
// it is the parent of only because their own parent died: the server is
// PID 1 of the sandbox (bwrap --as-pid-1, which then runs no init of its
// own), so what a command leaves behind (a double fork, a daemon) is
// reparented to it and stays a zombie until it waits for it. Its own
// commands are waited for by their exec.Cmd and left alone. It does
// nothing when the server is not PID 1.
func (s *cmdServer) reapOrphans() {
	if os.Getpid() != 1 {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	go func() {
		for range ch {
			s.reapZombies()
		}
	}()
}

// reapZombies waits for every dead child of the server that is no
// running command's leader. The lock keeps a command from starting (and
// its leader from being looked at) meanwhile.
func (s *cmdServer) reapZombies() {
	for _, pid := range zombieChildren() {
		s.mu.Lock()
		if !s.running[pid] {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
		s.mu.Unlock()
	}
}

// zombieChildren lists the processes of /proc whose parent is this one
// and which have exited (state Z).
func zombieChildren() []int {
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
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) >= 2 && string(f[0]) == "Z" && string(f[1]) == strconv.Itoa(self) {
			out = append(out, pid)
		}
	}
	return out
}
