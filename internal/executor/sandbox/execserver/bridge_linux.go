package execserver

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// forwarded are the signals the bridge passes on to the command.
var forwarded = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGCONT, syscall.SIGTSTP}

// Main is the program inside the sandbox: args are what follows Arg.
// With ServeArg first it is the persistent sandbox's command server
// (serve), else the per-command proxy bridge (bridge). It returns the
// exit code.
func Main(args []string) int {
	if len(args) > 0 && args[0] == ServeArg {
		return serve(args[1:])
	}
	return bridge(args)
}

// bridge is the bridge: args are the unix socket of the proxy, "--" and
// the command. It listens on an ephemeral port of the sandbox's loopback
// and forwards every connection there to the socket; it runs the command
// as its child in a process group of its own, with stdin, stdout and
// stderr passed through, HTTP_PROXY, HTTPS_PROXY (both cases) pointing at
// the listener and NO_PROXY the loopback; it forwards the usual signals
// to the command's group; and it exits when the command does, with its
// exit status, or dies of the same signal (HUP, INT, TERM, KILL; others
// give 128+N, which is what bwrap reports for a signal death anyway).
func bridge(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		say(os.Stderr, "bonsai: "+Arg+" is started by the sandbox, not by hand")
		return 2
	}
	sock, argv := args[0], args[2:]
	ln, addr, err := listenLoopback()
	if err != nil {
		say(os.Stderr, "bonsai sandbox: cannot listen on the sandbox's loopback for the proxy: "+err.Error())
		return 126
	}
	go bridgeAccept(ln, sock)

	cmd := exec.Command(argv[0], argv[1:]...)
	if errors.Is(cmd.Err, exec.ErrDot) {
		cmd.Err = nil // found through "." in PATH, as a shell would
	}
	cmd.Env = commandEnv(os.Environ(), addr)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	if err := cmd.Start(); err != nil {
		say(os.Stderr, "bonsai sandbox: "+err.Error())
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return 127
		}
		return 126
	}
	pid := cmd.Process.Pid
	releaseStdio()
	go func() {
		for s := range sigs {
			_ = syscall.Kill(-pid, s.(syscall.Signal))
		}
	}()
	_ = cmd.Wait()
	signal.Stop(sigs)
	ln.Close()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return cmd.ProcessState.ExitCode()
	}
	sig := ws.Signal()
	switch sig {
	case syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL:
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		// The runtime raises it with the default action; should it
		// return, exit as a shell reports a signal death.
	}
	return 128 + int(sig)
}

// bridgeAccept forwards each connection accepted on ln to the proxy's
// socket until ln is closed.
func bridgeAccept(ln *sock, proxy string) {
	for {
		c, err := ln.accept()
		if err != nil {
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EINTR) {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return
		}
		go forward(c, proxy)
	}
}

// forward carries the connection c to the proxy's socket and back.
func forward(c *sock, proxy string) {
	defer c.Close()
	up, err := dialUnix(proxy)
	if err != nil {
		body := "bonsai sandbox: the proxy is not running: " + err.Error() + "\n"
		_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n"+body)
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() { copyHalf(up, c); close(done) }()
	copyHalf(c, up)
	<-done
}

// copyHalf copies src to dst, then half-closes dst.
func copyHalf(dst, src *sock) {
	buf := make([]byte, 32<<10)
	_, _ = io.CopyBuffer(struct{ io.Writer }{dst}, struct{ io.Reader }{src}, buf)
	dst.closeWrite()
}

// releaseStdio points the bridge's own stdin, stdout and stderr at
// /dev/null once the command has them, so that the command alone holds
// them: a command that closes its stdout ends the output as it would
// without the bridge.
func releaseStdio() {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer null.Close()
	for fd := 0; fd <= 2; fd++ {
		_ = syscall.Dup3(int(null.Fd()), fd, 0)
	}
}
