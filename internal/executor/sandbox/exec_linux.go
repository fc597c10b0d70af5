package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver"
)

// killedNote ends the output of a command whose sandbox ended under it.
const killedNote = "\nbonsai: the sandbox ended while the command ran (a command killed its server, or the executor closed)\n"

// runPersistent runs argv in dir (a host path) through the persistent
// sandbox's command server. A command the server never started, because
// it was found dead, is sent once more to a new one.
func (s *Executor) runPersistent(ctx context.Context, argv []string, dir string, opts executor.RunOptions) (executor.Exit, error) {
	req := execserver.Request{Argv: argv, Env: s.environ(s.viewEnv(opts)), Dir: dir}
	for attempt := 0; ; attempt++ {
		x, retry, err := s.attempt(ctx, req, opts)
		if !retry || attempt > 0 {
			return x, err
		}
	}
}

// attempt sends req to the server and waits for the command, killing it
// on ctx's end or the timeout. retry reports a command that never ran
// because the server died.
func (s *Executor) attempt(ctx context.Context, req execserver.Request, opts executor.RunOptions) (x executor.Exit, retry bool, err error) {
	v, c, err := s.dialServer(opts.ReadOnly)
	if err != nil {
		return x, false, err
	}
	defer c.Close()
	fail := func(err error) (executor.Exit, bool, error) {
		return executor.Exit{}, false, fmt.Errorf("run %s: %w", req.Argv[0], err)
	}

	// The command's files: stdin a pipe fed once the command runs (or
	// the caller's file, or /dev/null), stdout and stderr pipes read here.
	var stdin, stdinW *os.File
	switch in := opts.Stdin.(type) {
	case nil:
		if stdin, err = os.Open(os.DevNull); err != nil {
			return fail(err)
		}
		defer stdin.Close()
	case *os.File:
		stdin = in
	default:
		if stdin, stdinW, err = os.Pipe(); err != nil {
			return fail(err)
		}
		defer stdin.Close()
		defer stdinW.Close()
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	defer pw.Close()
	ew := pw
	var er *os.File
	if opts.Stderr != nil {
		if er, ew, err = os.Pipe(); err != nil {
			pr.Close()
			return fail(err)
		}
		defer ew.Close()
	}
	if err := execserver.WriteRequest(c, req, [3]*os.File{stdin, pw, ew}); err != nil {
		pr.Close()
		if er != nil {
			er.Close()
		}
		if errors.Is(err, execserver.ErrTooLarge) || !s.died(v) {
			return fail(err)
		}
		return executor.Exit{}, true, s.serverErr(v, err)
	}
	// Only the server holds the command's ends now.
	if opts.Stdin == nil || stdinW != nil {
		stdin.Close()
	}
	pw.Close()
	if er != nil {
		ew.Close()
	}

	out := opts.Output
	if out == nil {
		out = io.Discard
	}
	copied := make(chan struct{}, 2)
	pending := 1
	go executor.CopyOutput(out, pr, copied)
	if er != nil {
		pending++
		go executor.CopyOutput(opts.Stderr, er, copied)
	}
	replies := make(chan execserver.Reply, 2)
	go func() {
		dec := json.NewDecoder(c)
		for {
			var r execserver.Reply
			if dec.Decode(&r) != nil {
				close(replies)
				return
			}
			replies <- r
		}
	}()

	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	start := time.Now()
	done := ctx.Done()
	kill := func() {
		_ = c.CloseWrite()
		timeout, done = nil, nil
	}
	code, starting, lost := -1, false, false
wait:
	for {
		select {
		case r, ok := <-replies:
			switch {
			case !ok:
				// The connection ended without an exit: the server died
				// or refused the request.
				dead := s.died(v)
				if !starting && !x.Canceled && !x.TimedOut {
					executor.DrainOutput(copied, pending, pr, er)
					if dead {
						// It never ran: send it to a new server.
						return executor.Exit{}, true, s.serverErr(v, net.ErrClosed)
					}
					return fail(fmt.Errorf("the sandbox's command server refused the command"))
				}
				code, lost = 128+9, !x.Canceled && !x.TimedOut
				break wait
			case r.Starting:
				starting = true
			case r.PID != 0:
				starting, x.PID = true, r.PID
				if stdinW != nil {
					go func() {
						_, _ = io.Copy(stdinW, opts.Stdin)
						stdinW.Close()
					}()
				}
			case r.Exit != nil:
				code = *r.Exit
				if r.TmpFull && s.opts.Limits.Tmp > 0 {
					x.Limit = tmpNote(s.opts.Limits.Tmp)
				}
				break wait
			}
		case <-timeout:
			x.TimedOut = true
			kill()
		case <-done:
			x.Canceled = true
			kill()
		}
	}
	x.Duration = time.Since(start)
	x.Code = code
	if stdinW != nil {
		stdinW.Close()
	}
	executor.DrainOutput(copied, pending, pr, er)
	if lost {
		_, _ = io.WriteString(out, killedNote)
	}
	return x, false, nil
}

// died reports whether the server v has died, waiting for bwrap, which
// ends at once when the server does (the wait is long only for a loaded
// machine: a live server rarely drops a connection), and drops it if so.
func (s *Executor) died(v *server) bool {
	select {
	case <-v.done:
		s.drop(v)
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}
