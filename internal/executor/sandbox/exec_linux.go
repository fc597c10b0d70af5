package sandbox

import (
	"bufio"
	"context"
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
	f, err := newStdio(opts)
	if err != nil {
		return x, false, fmt.Errorf("run %s: %w", req.Argv[0], err)
	}
	defer f.close()
	if err := writeRequest(c, req, [3]*os.File{f.in, f.outW, f.errW}); err != nil {
		f.closeReads()
		if errors.Is(err, execserver.ErrTooLarge) || !s.died(v) {
			return x, false, fmt.Errorf("run %s: %w", req.Argv[0], err)
		}
		return x, true, s.serverErr(v, err)
	}
	f.sent()
	cl := &call{s: s, v: v, c: c, argv0: req.Argv[0], opts: opts, f: f}
	cl.copyOutput()
	return cl.wait(ctx, cl.replies())
}

// call is one command on a server, from its request sent to its end.
type call struct {
	s       *Executor
	v       *server
	c       *net.UnixConn
	argv0   string
	opts    executor.RunOptions
	f       *stdio
	out     io.Writer     // the command's stdout: RunOptions.Output, or discarded
	copied  chan struct{} // a value for each output copy done
	pending int           // output copies started

	start    time.Time // when the request was sent
	x        executor.Exit
	code     int
	starting bool // the command may have run: do not send it again
	lost     bool // the server ended under the running command
	killed   bool // canceled or timed out: the connection is half-closed
}

// copyOutput starts copying the command's output to the caller.
func (cl *call) copyOutput() {
	cl.out = cl.opts.Output
	if cl.out == nil {
		cl.out = io.Discard
	}
	cl.copied = make(chan struct{}, 2)
	cl.pending = 1
	go executor.CopyOutput(cl.out, cl.f.out, cl.copied)
	if cl.f.err != nil {
		cl.pending++
		go executor.CopyOutput(cl.opts.Stderr, cl.f.err, cl.copied)
	}
}

// drain waits for the output copies (boundedly) and closes their pipes.
func (cl *call) drain() {
	executor.DrainOutput(cl.copied, cl.pending, cl.f.out, cl.f.err)
}

// replies reads the server's answers, closing the channel when the
// connection ends.
func (cl *call) replies() <-chan execserver.Reply {
	replies := make(chan execserver.Reply, 2)
	go func() {
		// A line longer than any the server writes, or one it does not
		// write, ends the answer as a dropped connection does.
		rd := bufio.NewReaderSize(cl.c, 64)
		for {
			line, err := rd.ReadSlice('\n')
			r, ok := execserver.Reply{}, false
			if err == nil {
				r, ok = execserver.ParseReply(line[:len(line)-1])
			}
			if !ok {
				close(replies)
				return
			}
			replies <- r
		}
	}()
	return replies
}

// wait follows the replies until the command's exit, or the end of the
// connection, and kills the command (half-closing the connection) when
// ctx ends or the timeout passes.
func (cl *call) wait(ctx context.Context, replies <-chan execserver.Reply) (executor.Exit, bool, error) {
	var timeout <-chan time.Time
	if cl.opts.Timeout > 0 {
		t := time.NewTimer(cl.opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	cl.start = time.Now()
	done := ctx.Done()
	for {
		select {
		case r, ok := <-replies:
			if !ok {
				return cl.ended()
			}
			if cl.reply(r) {
				return cl.exit(), false, nil
			}
			continue
		case <-timeout:
			cl.x.TimedOut = true
		case <-done:
			cl.x.Canceled = true
		}
		_ = cl.c.CloseWrite()
		timeout, done, cl.killed = nil, nil, true
	}
}

// reply takes one reply of the server and reports whether it is the
// command's exit.
func (cl *call) reply(r execserver.Reply) bool {
	switch {
	case r.Starting:
		cl.starting = true
	case r.PID != 0:
		cl.starting, cl.x.PID = true, r.PID
		if cl.f.inW != nil {
			go func() {
				_, _ = io.Copy(cl.f.inW, cl.opts.Stdin)
				cl.f.inW.Close()
			}()
		}
	case r.Exit != nil:
		cl.code = *r.Exit
		if r.TmpFull && cl.s.opts.Limits.Tmp > 0 {
			cl.x.Limit = tmpNote(cl.s.opts.Limits.Tmp)
		}
		return true
	}
	return false
}

// ended handles a connection that ended without an exit: the server
// died or refused the request. A command that never ran goes to a new
// server (retry); one that may have run, or that was being killed, ends
// as killed, with a note when the server went under it.
func (cl *call) ended() (executor.Exit, bool, error) {
	dead := cl.s.died(cl.v)
	if !cl.starting && !cl.killed {
		cl.drain()
		if dead {
			return executor.Exit{}, true, cl.s.serverErr(cl.v, net.ErrClosed)
		}
		return executor.Exit{}, false, fmt.Errorf("run %s: the sandbox's command server refused the command", cl.argv0)
	}
	cl.code, cl.lost = 128+9, !cl.killed
	return cl.exit(), false, nil
}

// exit finishes the call: stdin's feed stopped, the output drained, the
// note of a lost server written.
func (cl *call) exit() executor.Exit {
	cl.x.Duration = time.Since(cl.start)
	cl.x.Code = cl.code
	if cl.f.inW != nil {
		cl.f.inW.Close()
	}
	cl.drain()
	if cl.lost {
		_, _ = io.WriteString(cl.out, killedNote)
	}
	return cl.x
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
