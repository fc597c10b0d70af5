package execserver

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// controlFD is the descriptor of the control socket's listener the host
// hands the server: the first of exec.Cmd.ExtraFiles.
const controlFD = 3

// commandVar marks every process of one command with a number of its
// own, so that what it leaves behind in a session of its own can be
// found while other commands still run.
const commandVar = "BONSAI_SANDBOX_COMMAND"

// cmdServer is the command server that runs inside the persistent
// sandbox (see serve).
type cmdServer struct {
	proxyAddr string // the loopback listener of the proxy bridge; "" without the proxy
	mu        sync.Mutex
	running   map[int]bool // process group ids of running commands
	next      int          // the last commandVar number given
}

// serve is the command server: args are what follows ServeArg, the
// proxy's socket inside the sandbox or "-" without the proxy, and the
// rlimits to set on itself for every command to inherit (ParseLimits).
// It accepts
// the host's connections on the listener at controlFD and runs one
// command for each (see wire_linux.go for the protocol), each in a
// session and process group of its own, with the environment, directory
// and files of its request. It kills a command's group when the host
// half-closes or drops the connection, and kills what a command leaves
// behind when it ends: its group, the processes carrying its
// commandVar, and, when no other command runs, every process of the
// sandbox but the server (and bwrap's init, where it has one). As the
// sandbox's PID 1 (bwrap --as-pid-1) it waits for the orphans
// reparented to it (reapOrphans); its end then ends every process of
// the sandbox. It passes the signals a
// bridge forwards on to every running command's group. It returns when
// the listener fails.
func serve(args []string) int {
	if len(args) != 2 {
		say(os.Stderr, "bonsai: "+Arg+" "+ServeArg+" is started by the sandbox, not by hand")
		return 2
	}
	ln, err := newSock(controlFD, "control")
	if err != nil {
		say(os.Stderr, "bonsai sandbox: the command server has no control socket: "+err.Error())
		return 126
	}
	closeOnExec()
	if err := setLimits(args[1]); err != nil {
		say(os.Stderr, "bonsai sandbox: the command server cannot set its limits: "+err.Error())
		return 126
	}
	s := &cmdServer{running: map[int]bool{}}
	s.reapOrphans()
	if args[0] != "-" {
		pl, addr, err := listenLoopback()
		if err != nil {
			say(os.Stderr, "bonsai sandbox: cannot listen on the sandbox's loopback for the proxy: "+err.Error())
			return 126
		}
		go bridgeAccept(pl, args[0])
		s.proxyAddr = addr
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	go func() {
		for sig := range sigs {
			s.signalAll(sig.(syscall.Signal))
		}
	}()
	releaseStdio()
	for {
		c, err := ln.accept()
		if err != nil {
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EINTR) {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return 1
		}
		go s.run(c)
	}
}

// run runs the command of one connection.
func (s *cmdServer) run(c *sock) {
	defer c.Close()
	req, files, err := readRequest(c)
	if err != nil {
		return
	}
	stderr := files[2]
	exit := func(code int) {
		_ = writeReply(c, Reply{Exit: &code})
	}
	path, err := lookPathIn(req.Argv[0], req.Env, req.Dir)
	if err != nil {
		say(stderr, "bonsai sandbox: "+req.Argv[0]+": "+err.Error())
		closeFiles(files)
		exit(127)
		return
	}
	env := req.Env
	if s.proxyAddr != "" {
		env = commandEnv(env, s.proxyAddr)
	}
	cmd := &exec.Cmd{Path: path, Args: req.Argv, Dir: req.Dir, Stdin: files[0], Stdout: files[1], Stderr: stderr,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	// Said before the start: once the command runs it may kill this
	// server before its PID is sent, and the host must then not run it
	// again.
	if err := writeReply(c, Reply{Starting: true}); err != nil {
		closeFiles(files)
		return
	}
	roomy := !tmpFull()
	s.mu.Lock()
	s.next++
	mark := commandVar + "=" + strconv.Itoa(s.next)
	cmd.Env = append(env, mark)
	err = cmd.Start()
	if err == nil {
		s.running[cmd.Process.Pid] = true
	}
	s.mu.Unlock()
	if err != nil {
		say(stderr, "bonsai sandbox: "+err.Error())
		closeFiles(files)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			exit(127)
		} else {
			exit(126)
		}
		return
	}
	// The command alone holds its files now, so that one that closes
	// its stdout ends the output as it would without the server.
	closeFiles(files)
	pid := cmd.Process.Pid
	if PIDDelay > 0 {
		time.Sleep(PIDDelay)
	}
	_ = writeReply(c, Reply{PID: pid})
	go func() {
		// Anything from the host, its half-close or its end, kills.
		var b [1]byte
		_, _ = c.Read(b[:])
		s.mu.Lock()
		if s.running[pid] {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		s.mu.Unlock()
	}()
	_ = cmd.Wait()
	s.ended(pid, mark)
	code := exitStatus(cmd.ProcessState)
	_ = writeReply(c, Reply{Exit: &code, TmpFull: roomy && tmpFull()})
}

// tmpFull reports whether the private /tmp has no block or no inode
// left (one statfs).
func tmpFull() bool {
	var st syscall.Statfs_t
	if syscall.Statfs("/tmp", &st) != nil {
		return false
	}
	return st.Blocks > 0 && st.Bavail == 0 || st.Files > 0 && st.Ffree == 0
}

// ended kills what the command whose group is pid left behind.
func (s *cmdServer) ended(pid int, mark string) {
	s.mu.Lock()
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	delete(s.running, pid)
	idle := len(s.running) == 0
	if idle {
		// Nothing else should live here: kill(-1) reaches every process
		// of the PID namespace but the caller and init, those that left
		// the command's group and dropped its mark too. Starts wait for
		// the lock, so no new command is caught.
		_ = syscall.Kill(-1, syscall.SIGKILL)
	}
	s.mu.Unlock()
	if !idle {
		killMarked(mark)
	}
}

// signalAll sends sig to the group of every running command.
func (s *cmdServer) signalAll(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for pid := range s.running {
		_ = syscall.Kill(-pid, sig)
	}
}

// exitStatus is the command's exit code, 128+N for a death by signal N.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// lookPathIn finds name as execvp would with the command's own PATH
// (from env), relative entries taken from dir.
func lookPathIn(name string, env []string, dir string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		check := p
		if !filepath.IsAbs(p) {
			check = filepath.Join(dir, p)
			if !strings.HasPrefix(p, ".") {
				p = "./" + p
			}
		}
		if fi, err := os.Stat(check); err == nil && fi.Mode().IsRegular() && syscall.Access(check, 1) == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// closeOnExec keeps the descriptors the server inherited beyond stdin,
// stdout and stderr (whatever the runtime's own parent left open) from
// reaching the commands, and closes the memfd it was started from (the
// host's copy of this program), which a command could otherwise open
// again through /proc/<server>/fd.
func closeOnExec() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); strings.HasPrefix(l, "/memfd:") {
			syscall.Close(fd)
			continue
		}
		syscall.CloseOnExec(fd)
	}
}

// rlimits maps ParseLimits's names to the rlimits they set.
var rlimits = map[string]int{"data": syscall.RLIMIT_DATA, "fsize": syscall.RLIMIT_FSIZE, "nproc": unixRLIMIT_NPROC}

// unixRLIMIT_NPROC is RLIMIT_NPROC, which package syscall does not name.
const unixRLIMIT_NPROC = 6

// setLimits sets the rlimits of spec (ParseLimits) on the server,
// soft and hard, so that no command can raise them. In the sandbox's
// user namespace RLIMIT_NPROC counts the sandbox's processes only.
func setLimits(spec string) error {
	m, err := ParseLimits(spec)
	if err != nil {
		return err
	}
	for k, v := range m {
		r, ok := rlimits[k]
		if !ok {
			return errors.New("unknown limit " + strconv.Quote(k))
		}
		if raceBuild && k == "data" {
			continue
		}
		if err := syscall.Setrlimit(r, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return &wrapped{k + "=" + strconv.FormatUint(v, 10), err}
		}
	}
	return nil
}

// ParseLimits reads the rlimits the command server sets on itself, as
// the host passes them on its command line: "data=N,fsize=N,nproc=N",
// any of them, or "-" for none.
func ParseLimits(s string) (map[string]uint64, error) {
	m := map[string]uint64{}
	if s == "-" {
		return m, nil
	}
	for _, p := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(p, "=")
		n, err := strconv.ParseUint(v, 10, 64)
		if !ok || err != nil {
			return nil, errors.New("bad limit " + strconv.Quote(p))
		}
		m[k] = n
	}
	return m, nil
}
