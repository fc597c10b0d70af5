package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/session"
)

// result is how one start of the CLI went.
type result struct {
	exit     executor.Exit
	err      error  // the executor's
	events   int    // events read
	messages int    // transcript messages written
	bad      int    // lines that were not events
	stderr   string // the tail of stderr
	done     *Done
	usage    llm.Usage // the sum of the messages' usage, when no Done came
	text     string    // the last assistant text
	asked    bool      // a board tool ended the run
	tokens   bool      // the token budget ended the run
	deadline bool      // the run's deadline passed
	stopped  bool      // the caller's context ended
	// lost is why the transcript's mirror (a shared board's store)
	// refused a line: the run stopped there.
	lost error
	// limit is the notes of the sandbox limits met (limits.go), which end
	// the run; command the last command the engine ran before.
	limit, command string
}

// resumeFailed reports whether the CLI refused the session to resume: it
// said so, or it wrote nothing and printed no event at all (Codex and
// OpenCode print their "not found" as plain text and exit).
func (res result) resumeFailed() bool {
	if res.err != nil || res.lost != nil || res.messages > 0 || res.exit.Canceled || res.exit.TimedOut || res.stopped {
		return false
	}
	if res.done != nil {
		return res.done.NoSession
	}
	return res.events == 0 && res.exit.Code != 0
}

// run starts the CLI once and reads its events until it exits.
func (r *Runner) run(parent context.Context, job agentjob.Job, in Invocation, sess *session.File, bs *boardServer, total llm.Usage) result {
	e := r.opts.Engine
	if in.Resume == "" && in.NewSession == "" {
		in.NewSession = newUUID()
	}
	cmd, err := r.command(in)
	if err != nil {
		return result{err: err}
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	if !job.Deadline.IsZero() {
		var c2 context.CancelFunc
		ctx, c2 = context.WithDeadline(ctx, job.Deadline)
		defer c2()
	}
	// A session id the engine took before it printed anything is kept
	// at once, so a killed run resumes.
	if in.NewSession != "" {
		_ = saveState(job.SessionFile, e.Name(), State{Session: in.NewSession})
	}
	s := &stream{r: r, e: e, job: job, in: in, sess: sess, bs: bs, total: total, vendor: in.Resume,
		parser: e.NewParser(), live: session.NewLiveWriter(job.SessionFile, r.opts.Logger), cancel: cancel}
	if s.vendor == "" {
		s.vendor = in.NewSession
	}
	s.live.SetStore(job.LiveStore)
	defer s.live.Close()
	if bs != nil {
		started := func(c llm.Part) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.toolStart(c)
		}
		bs.started.Store(&started)
		defer bs.started.Store(nil)
	}
	out := &lineWriter{fn: s.handle}
	errw := &tailWriter{max: 4 << 10}
	var stdin io.Reader = strings.NewReader(cmd.Stdin)
	if st, ok := e.(Steerable); ok {
		in, err := newSteerInput(st, cmd.Stdin, job.Steering)
		if err != nil {
			return result{err: err}
		}
		defer in.close()
		s.onDone = in.answered
		stdin = in.r
	}
	// A read-only run's engine (a read-only project, research before a
	// person approved the plan) runs with the worktree and its git
	// metadata mounted read-only: what its commands cannot write, no
	// text rule has to catch. Its own state is a bind of its own.
	exit, err := job.Workspace.Exec.Exec(ctx, cmd.Argv, executor.RunOptions{
		Env: cmd.Env, Stdin: stdin, Output: out, Stderr: errw, ReadOnly: job.ReadOnly || job.Policy.Mode == policy.ModeReadOnly})
	out.flush()
	s.handle(nil)
	res := s.res
	res.exit, res.err = exit, err
	if res.limit == "" && res.exit.Limit != "" {
		// A limit the sandbox noted when the CLI ended (its /tmp
		// filled, a file too large, the worktree's growth).
		res.limit = res.exit.Limit
	}
	if c := bs.lastRan(); res.limit != "" && c != "" {
		// The stream may show the CLI's next call before the result of
		// the command that met the limit: name the one that ran.
		res.command = c
	}
	res.stderr = strings.TrimSpace(errw.String())
	if bs != nil && bs.terminate.Load() {
		// A board tool ended the run, whatever the CLI did after it (its
		// next model request, refused by the gateway, or a tool result
		// still held for its message's end when it was stopped).
		res.asked = true
	}
	res.deadline = errors.Is(ctx.Err(), context.DeadlineExceeded) && !res.asked && !res.tokens
	res.stopped = parent.Err() != nil
	return res
}

// command is the engine's command for in, with the files it reads
// written into its config and home directories.
func (r *Runner) command(in Invocation) (Command, error) {
	cmd, err := r.opts.Engine.Command(in)
	if err != nil {
		return Command{}, err
	}
	if err := writeFiles(in.ConfigDir, cmd.Files); err != nil {
		return Command{}, err
	}
	if err := writeFiles(in.HomeDir, cmd.HomeFiles); err != nil {
		return Command{}, err
	}
	return cmd, nil
}

// outcome maps how the CLI ended to the run's outcome.
func (res result) outcome(e Engine, job agentjob.Job) agentjob.Outcome {
	out := agentjob.Outcome{Usage: agentjob.UsageOf(res.usage), Summary: res.text}
	if res.done != nil {
		out.Usage = agentjob.UsageOf(res.done.Usage)
		if res.done.Text != "" {
			out.Summary = res.done.Text
		}
	}
	switch {
	case res.limit != "" && res.err == nil:
		out.Status, out.Error = board.RunError, agentjob.LimitError(res.limit, res.command)
	case res.err != nil && errors.Is(res.err, executor.ErrCommandNotFound):
		out.Status, out.Error = board.RunError, fmt.Sprintf("%s is not installed: %s", e.Name(), e.Install())
	case res.err != nil:
		out.Status, out.Error = board.RunError, fmt.Sprintf("start %s: %v", e.Name(), res.err)
	case res.lost != nil:
		out.Status, out.Error = board.RunError, fmt.Sprintf("write the transcript: %v", res.lost)
	case res.asked:
		out.Status = board.RunCompleted
	case res.tokens:
		out.Status = board.RunBudgetExceeded
	case res.deadline:
		out.Status = board.RunTimeout
	case res.stopped:
		out.Status, out.Error = board.RunInterrupted, "stopped"
	case res.done != nil && res.done.Budget:
		out.Status = board.RunBudgetExceeded
	case res.done != nil && res.done.MaxTurns:
		out.Status, out.Error = board.RunTimeout, e.Name()+" reached its turn limit"
	case res.done != nil && res.done.Error != "":
		out.Status, out.Error = board.RunError, e.Name()+": "+res.done.Error
	case res.done != nil && res.exit.Code == 0:
		out.Status = board.RunCompleted
	default:
		// Killed, crashed or cut short: what it streamed is in the
		// transcript, and the next beat resumes.
		out.Status = board.RunInterrupted
		out.Error = fmt.Sprintf("%s exited with status %d before its result", e.Name(), res.exit.Code)
		if res.bad > 0 {
			out.Error += fmt.Sprintf(" (%d lines were not JSON events)", res.bad)
		}
		if res.stderr != "" {
			out.Error += ": " + cut(lastLine(res.stderr), 300)
		}
	}
	return out
}
