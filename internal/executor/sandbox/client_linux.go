package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver"
)

// server is the host's handle on a persistent sandbox: bwrap running the
// command server (execserver), and the control socket it listens on.
type server struct {
	cmd    *exec.Cmd
	dir    string // 0700, holds the socket
	sock   string
	done   chan struct{} // closed once bwrap has exited
	exit   error         // how bwrap ended (cmd.Wait's), once done is closed
	stderr *tail         // what bwrap and the server said before they started
}

// dead reports whether bwrap has exited.
func (v *server) dead() bool {
	select {
	case <-v.done:
		return true
	default:
		return false
	}
}

// stop kills bwrap, whose end takes the server's PID namespace and every
// process in it along (--die-with-parent kills the server, its PID 1,
// and the kernel everything else), waits for it and removes the socket's directory. It
// may be called more than once.
func (v *server) stop() {
	_ = v.cmd.Process.Kill() // through a pidfd: never another process
	<-v.done
	os.RemoveAll(v.dir)
}

// slot is where the server of the writable view (ro false) or of the
// read-only one is kept. An executor opened with Options.ReadOnly has
// one view, read-only.
func (s *Executor) slot(ro bool) **server {
	if ro && !s.opts.ReadOnly {
		return &s.roSrv
	}
	return &s.srv
}

// server returns the running server of a view, starting one if there
// is none or the last one died. The read-only view's starts with its
// first command.
func (s *Executor) server(ro bool) (*server, error) {
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	if s.closed {
		return nil, errors.New("sandbox: the executor is closed")
	}
	p := s.slot(ro)
	if *p != nil && !(*p).dead() {
		return *p, nil
	}
	if *p != nil {
		(*p).stop()
		*p = nil
	}
	mount := s.mount
	if ro {
		mount = s.roMount
	}
	v, err := s.startServer(mount)
	if err != nil {
		return nil, err
	}
	*p = v
	return v, nil
}

// drop stops v if it is still one of the executor's servers, so that
// the next command starts a new one.
func (s *Executor) drop(v *server) {
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	for _, p := range []**server{&s.srv, &s.roSrv} {
		if *p == v {
			*p = nil
		}
	}
	v.stop()
}

// stopServer ends the servers, if any; with closing, for good.
func (s *Executor) stopServer(closing bool) {
	s.srvMu.Lock()
	defer s.srvMu.Unlock()
	s.closed = s.closed || closing
	for _, p := range []**server{&s.srv, &s.roSrv} {
		if *p != nil {
			(*p).stop()
			*p = nil
		}
	}
}

// startServer starts bwrap with mount (the executor's mounts of one
// view) and namespaces running the command server, and hands it the
// listener of a control socket in a private directory. The host keeps
// no copy of the listener: once the server is gone, connecting fails
// at once.
func (s *Executor) startServer(mount []string) (*server, error) {
	dir, err := os.MkdirTemp(s.tmp, "bonsai-sandbox-") // 0700
	if err != nil {
		return nil, fmt.Errorf("sandbox: control socket directory: %w", err)
	}
	sock := filepath.Join(dir, "ctl.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox: control socket (set TMPDIR to a shorter path if it is too long): %w", err)
	}
	ln.SetUnlinkOnClose(false)
	f, err := ln.File()
	ln.Close()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	defer f.Close()

	exeIn, binds, files := s.serverCommand()
	proxySock := "-"
	if s.proxy != nil {
		proxySock = socketIn
	}
	args := make([]string, 0, len(mount)+3*len(s.env)+32)
	args = append(args, s.bwrap)
	args = append(args, mount...)
	args = append(args, binds...)
	args = append(args, "--chdir", s.Root(), "--clearenv")
	env := s.environ(nil)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	if s.program != nil {
		// One P is all the server needs, and 0.2 MB less resident: the
		// commands, processes of their own, get their request's
		// environment, not this.
		args = append(args, "--setenv", "GOMAXPROCS", "1")
	}
	// The server is the sandbox's PID 1 and reaps the orphans itself
	// (execserver's reapOrphans): bwrap then keeps one process of its
	// own outside, not a second as an init inside, 1.4 MB less a
	// sandbox (docs/sandbox.md). Its death ends the PID namespace, every process with it.
	args = append(args, "--as-pid-1")
	args = append(args, "--", exeIn, BridgeArg, execserver.ServeArg, proxySock, s.opts.Limits.serverSpec(s.cg.boundsMemory()))
	cmd := exec.Command(args[0], args[1:]...)
	v := &server{cmd: cmd, dir: dir, sock: sock, done: make(chan struct{}), stderr: &tail{max: 4 << 10}}
	// bwrap's own environment is where --setenv starts from; the
	// server, PID 1 of the sandbox, whose /proc/1/environ every command
	// can read, gets env: the runtime's, with its API keys, must be in
	// neither.
	cmd.Env = env
	cmd.ExtraFiles = append([]*os.File{f}, files...)
	cmd.Stderr = v.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	go func() {
		// The parent-death signal fires when the thread that started
		// bwrap ends: hold it for bwrap's life (see local.startLocked).
		// On cgroup v1 it moves into the sandbox's cgroup for the fork.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := s.cg.start(cmd.SysProcAttr, cmd.Start); err != nil {
			started <- err
			return
		}
		started <- nil
		v.exit = cmd.Wait()
		close(v.done)
	}()
	if err := <-started; err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox: start bwrap: %w", err)
	}
	return v, nil
}

// tail keeps the first max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := t.max - len(t.b); n > 0 {
		t.b = append(t.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// dialServer connects to a running server of a view, starting one if
// needed, and to a new one if the last one is found dead.
func (s *Executor) dialServer(ro bool) (*server, *net.UnixConn, error) {
	for attempt := 0; ; attempt++ {
		v, err := s.server(ro)
		if err != nil {
			return nil, nil, err
		}
		c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: v.sock, Net: "unix"})
		if err == nil {
			return v, c, nil
		}
		s.drop(v)
		if attempt > 0 {
			return nil, nil, s.serverErr(v, err)
		}
	}
}

// serverErr says why a server that just started ran nothing.
func (s *Executor) serverErr(v *server, err error) error {
	msg := v.stderr.String()
	if msg == "" {
		msg = "no message"
	}
	if v.dead() && v.exit != nil {
		msg += "; bwrap: " + v.exit.Error()
	}
	if s.program != nil {
		return fmt.Errorf("sandbox: the sandbox's command server (the embedded bonsai-exec) did not start (%s): %w", msg, err)
	}
	return fmt.Errorf("sandbox: the sandbox's command server (%s %s) did not start (%s): %w; if the binary does not dispatch %s to BridgeMain, set Options.Server or Options.PerCommand",
		s.exe, BridgeArg, msg, err, BridgeArg)
}
