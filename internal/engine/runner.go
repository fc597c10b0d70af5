package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Options configures a Runner.
type Options struct {
	// Engine is the CLI this runner drives.
	Engine Engine
	// Locate finds the CLI's program and its version; nil uses Locator
	// with PATH.
	Locate func(e Engine) (bin string, err error)
	// Getenv reads provider keys and base URLs (stored credentials
	// included); nil reads nothing.
	Getenv func(string) string
	// Price returns the catalog's price of a "provider/model" id, for
	// the engines whose events carry tokens but no cost; nil prices
	// nothing.
	Price func(model string) llm.Price
	// Logger receives lines the CLI printed that are not events; nil
	// logs nothing.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// ExtraTools, when not nil, gives a job more tools: the project's MCP
	// servers, started by Bonsai where its own agent's would be (the
	// worktree's executor, so the sandbox) with their secrets. The CLI
	// reaches them through the run's board server beside the board
	// tools, so no engine holds their commands or secrets. The returned
	// func releases them after the run.
	ExtraTools func(ctx context.Context, job agentjob.Job) ([]tool.Tool, func())
	// DataDir is the data directory, which holds each ticket's engine
	// state (StateRoot); required.
	DataDir string
	// Thinking gives how much a job's model thinks (the project's
	// setting, else config.json's per task); nil, or an error, leaves
	// it off.
	Thinking func(job agentjob.Job) llm.ThinkingLevel
}

// Runner runs one engine's CLI on tickets.
type Runner struct {
	opts Options
}

var (
	_ agentjob.AgentRunner = (*Runner)(nil)
	_ agentjob.Charger     = (*Runner)(nil)
	_ agentjob.Readiness   = (*Runner)(nil)
)

// New returns a Runner of opts.Engine.
func New(opts Options) (*Runner, error) {
	if opts.Engine == nil {
		return nil, errors.New("engine runner: Engine is required")
	}
	if opts.DataDir == "" {
		return nil, errors.New("engine runner: DataDir is required")
	}
	if opts.Locate == nil {
		opts.Locate = NewLocator(nil).Locate
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Runner{opts: opts}, nil
}

// Ready implements agentjob.Readiness: the CLI is installed and recent
// enough, and the model's provider is configured for it.
func (r *Runner) Ready(model string) error {
	if _, err := r.opts.Locate(r.opts.Engine); err != nil {
		return err
	}
	_, err := r.endpoint(model)
	return err
}

// Spent implements agentjob.Charger: the usage the transcript recorded.
func (r *Runner) Spent(sessionFile string, since time.Time) (board.Usage, error) {
	u, err := session.UsageSince(sessionFile, since)
	return agentjob.UsageOf(u), err
}

// endpoint resolves a "provider/model" id to the server the CLI talks to.
func (r *Runner) endpoint(model string) (Endpoint, error) {
	id, err := llm.ParseModelID(model)
	if err != nil {
		return Endpoint{}, err
	}
	p, ok := llm.LookupProvider(id.Provider)
	if !ok {
		return Endpoint{}, fmt.Errorf("unknown provider %q in model %s", id.Provider, model)
	}
	e := Endpoint{Wire: p.Wire, Responses: p.Wire == llm.WireOpenAIResponses || p.ReasoningWire == llm.WireOpenAIResponses, Provider: p.Name, Model: id.Model, Key: r.opts.Getenv(p.KeyEnv), BaseURL: r.opts.Getenv(p.BaseURLEnv)}
	if e.BaseURL == "" {
		e.BaseURL = p.DefaultBaseURL
	}
	if e.Key == "" && !p.KeyOptional {
		return Endpoint{}, fmt.Errorf("no API key: set %s or run 'bonsai credentials set %s'", p.KeyEnv, p.Name)
	}
	if _, err := r.opts.Engine.Command(Invocation{Endpoint: e}); err != nil {
		return Endpoint{}, err
	}
	return e, nil
}

// RunAgent implements agentjob.AgentRunner: it starts the CLI in the
// ticket's worktree, resuming the ticket's vendor session (or a new one
// primed with a summary of the transcript when it cannot be resumed), and
// appends its events to the ticket's transcript as they stream.
func (r *Runner) RunAgent(ctx context.Context, job agentjob.Job) (agentjob.Outcome, error) {
	e := r.opts.Engine
	bin, err := r.opts.Locate(e)
	if err != nil {
		return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
	}
	ep, err := r.endpoint(job.Model)
	if err != nil {
		return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
	}
	if job.Workspace == nil || job.Workspace.Exec == nil {
		return agentjob.Outcome{}, errors.New("engine runner: the job has no workspace")
	}
	sess, err := openTranscript(job.SessionFile, job.Project.Slug, job.Mirror)
	if err != nil {
		return agentjob.Outcome{}, err
	}
	defer sess.Close()
	tools := job.Tools
	if r.opts.ExtraTools != nil && len(tools) > 0 {
		more, release := r.opts.ExtraTools(ctx, job)
		defer release()
		tools = append([]tool.Tool(nil), tools...)
		// Judged by the project's policy as Bonsai's own agent's are
		// (internal/gate: allow and ask patterns, held calls).
		for _, t := range gate.Wrap(more, agentjob.Gate(job)) {
			tools = append(tools, relayed(t))
		}
	}
	var bs *boardServer
	if len(tools) > 0 {
		if bs, err = serveBoard(tools, commandJudges(job)); err != nil {
			return agentjob.Outcome{}, fmt.Errorf("serve the board tools: %w", err)
		}
		defer bs.Close()
	}
	// The engine talks to the model through the run's gateway: it never
	// holds the key.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	gw, err := serveGateway(ep, func(e *rejectedKey) { stop(e) })
	if err != nil {
		return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
	}
	defer gw.Close()
	ep = gw.endpoint
	var mcpEP MCPEndpoint
	if bs != nil {
		mcpEP = bs.endpoint
	}
	if fw := newForwards(job); fw != nil {
		// A sandbox in the proxy network mode reaches the host only
		// through its proxy, which relays the run's two servers under
		// names of their own.
		defer fw.close()
		for _, u := range []struct {
			url  *string
			name string
		}{{&ep.BaseURL, gatewayName}, {&mcpEP.URL, boardName}, {&mcpEP.Hook, boardName}} {
			err := fw.rewrite(u.url, u.name)
			if errors.Is(err, errUnrelayed) {
				break
			}
			if err != nil {
				return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
			}
		}
	}
	st, err := LoadState(job.SessionFile, e.Name())
	if err != nil {
		return agentjob.Outcome{}, err
	}
	total := st.Total
	cfg, home, err := engineDirs(r.opts.DataDir, job.Project.Slug, job.Ticket.Number, e.Name())
	if err != nil {
		return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
	}
	in := Invocation{Bin: bin, Endpoint: ep, ConfigDir: cfg, HomeDir: home,
		Resume: st.Session, System: systemPrompt(ctx, job), Prompt: agentjob.TaskPrompt(job),
		BudgetUSD: job.Budget.USD, ReadOnly: job.ReadOnly || job.Policy.Mode == policy.ModeReadOnly, Thinking: llm.ThinkingOff}
	if r.opts.Thinking != nil {
		in.Thinking = r.opts.Thinking(job)
	}
	in.MCP = mcpEP
	if _, err := sess.AppendMessage(llm.UserText(in.Prompt), nil); err != nil {
		return agentjob.Outcome{}, err
	}
	if r.opts.Price != nil {
		in.price = r.opts.Price(job.Model)
	}
	res := r.run(ctx, job, in, sess, bs, total)
	if in.Resume != "" && res.resumeFailed() {
		// The vendor's session is gone (another machine, a cleaned
		// directory): a new one, told what happened so far.
		r.logf("engine session cannot be resumed; starting a new one", "ticket", job.Ticket.Ref().String(), "session", in.Resume, "stderr", res.stderr)
		in.Resume = ""
		if s := Summary(job.SessionFile); s != "" {
			in.Prompt = "This ticket's earlier session could not be resumed. What happened so far, from its transcript:\n\n" + s + "\n\n" + in.Prompt
		}
		res = r.run(ctx, job, in, sess, bs, llm.Usage{})
	}
	out := res.outcome(e, job)
	var rk *rejectedKey
	if errors.As(context.Cause(ctx), &rk) {
		out.Status, out.Error = board.RunError, rk.Error()
		out.RetryAt = r.opts.Now().Add(agentjob.AuthPause)
	} else if res.done != nil && out.Status == board.RunError {
		// A rejected key fails every run until a person fixes it; a rate
		// limit passes: the provider's work pauses either way.
		switch res.done.HTTPStatus {
		case 401, 403:
			out.RetryAt = r.opts.Now().Add(agentjob.AuthPause)
		case 429:
			out.RetryAt = r.opts.Now().Add(RateLimitPause)
		}
	}
	return out, nil
}

// RateLimitPause is how long a provider that rate-limited an engine (which
// does not say until when) is left alone.
const RateLimitPause = time.Minute

// systemPrompt is what Bonsai appends to the engine's own system prompt:
// the ticket rules, the persona and the ticket, as the in-process agent
// gets them (its tool guidance aside: the engine has its own tools).
func systemPrompt(ctx context.Context, job agentjob.Job) string {
	return "Bonsai's board tools are the MCP server \"bonsai\" (ticket_comment, ticket_ask, ticket_plan, ticket_move).\n\n" +
		strings.Join(agentjob.Sections(ctx, job), "\n\n")
}

// openTranscript opens the ticket's transcript, creating it on the first
// run; every line written also goes to mirror (nil: none).
func openTranscript(path, cwd string, mirror session.Mirror) (*session.File, error) {
	opts := session.Options{Mirror: mirror}
	if _, err := os.Stat(path); err == nil {
		return session.Open(path, opts)
	}
	return session.Create(path, cwd, opts)
}

func (r *Runner) logf(msg string, args ...any) {
	if r.opts.Logger != nil {
		r.opts.Logger.Warn(msg, args...)
	}
}

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
	var res result
	if in.Resume == "" && in.NewSession == "" {
		in.NewSession = newUUID()
	}
	cmd, err := e.Command(in)
	if err != nil {
		res.err = err
		return res
	}
	if err := writeFiles(in.ConfigDir, cmd.Files); err != nil {
		res.err = err
		return res
	}
	if err := writeFiles(in.HomeDir, cmd.HomeFiles); err != nil {
		res.err = err
		return res
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
	vendor := in.Resume
	if vendor == "" {
		vendor = in.NewSession
	}
	parser := e.NewParser()
	var onDone func() // a steerable engine answered a message
	live := session.NewLiveWriter(job.SessionFile, r.opts.Logger)
	live.SetStore(job.LiveStore)
	defer live.Close()
	var mu sync.Mutex
	handle := func(line []byte) {
		mu.Lock()
		defer mu.Unlock()
		var evs []Event
		if line == nil {
			evs = parser.Flush()
		} else {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				return
			}
			var err error
			if evs, err = parser.Line(line); err != nil {
				res.bad++
				r.logf("engine printed a line that is not an event", "engine", e.Name(), "ticket", job.Ticket.Ref().String(), "line", cut(string(line), 200), "error", err)
				return
			}
		}
		for _, ev := range evs {
			if l := ev.Live; l != nil {
				switch {
				case l.Start:
					live.Start()
				case l.Delta != nil:
					live.Delta(*l.Delta)
				case l.End:
					live.End()
				}
				continue
			}
			res.events++
			if ev.Session != "" && ev.Session != vendor {
				vendor, total = ev.Session, llm.Usage{}
				_ = saveState(job.SessionFile, e.Name(), State{Session: vendor})
			}
			if d := ev.Done; d != nil && d.Cumulative {
				// This run's part of the session's total, as a usage entry.
				u := sub(d.Usage, total)
				total, d.Usage, d.Cumulative = d.Usage, u, false
				_ = saveState(job.SessionFile, e.Name(), State{Session: vendor, Total: total})
				ev.Message = &llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{}, Usage: &u, StopReason: llm.StopEnd}
			}
			if m := ev.Message; m != nil {
				if m.Usage != nil && m.Usage.Cost == 0 {
					m.Usage.Cost = in.price.Cost(*m.Usage)
				}
				if _, err := sess.AppendMessage(*m, nil); err != nil {
					r.logf("write the transcript", "error", err)
					var me *session.ErrMirror
					if errors.As(err, &me) && res.lost == nil {
						// The store holds the transcript: what it did
						// not take is lost to the next worker, so stop.
						res.lost = err
						cancel()
					}
				}
				res.messages++
				res.watchLimits(job, *m, cancel)
				if m.Role == llm.RoleAssistant {
					if m.Usage != nil {
						res.usage = res.usage.Add(*m.Usage)
					}
					if t := m.Text(); t != "" {
						res.text = t
					}
					if job.OnUsage != nil {
						job.OnUsage(agentjob.UsageOf(res.usage))
					}
					if job.Budget.Tokens > 0 && res.usage.Input+res.usage.Output+res.usage.CacheRead+res.usage.CacheWrite >= job.Budget.Tokens {
						res.tokens = true
						cancel()
					}
				}
			}
			if ev.StepEnd && bs != nil && bs.terminate.Load() {
				// A board tool ended the run (the agent asked a person, or
				// handed the ticket on): it stops here.
				res.asked = true
				cancel()
			}
			if ev.Done != nil {
				if onDone != nil {
					onDone()
				}
				res.done = ev.Done
				if res.done.Usage.Cost == 0 {
					res.done.Usage.Cost = in.price.Cost(res.done.Usage)
				}
			}
		}
	}
	out := &lineWriter{fn: handle}
	errw := &tailWriter{max: 4 << 10}
	var stdin io.Reader = strings.NewReader(cmd.Stdin)
	if st, ok := e.(Steerable); ok {
		in, err := newSteerInput(st, cmd.Stdin, job.Steering)
		if err != nil {
			res.err = err
			return res
		}
		defer in.close()
		onDone = in.answered
		stdin = in.r
	}
	// A read-only run's engine (a read-only project, research before a
	// person approved the plan) runs with the worktree and its git
	// metadata mounted read-only: what its commands cannot write, no
	// text rule has to catch. Its own state is a bind of its own.
	res.exit, res.err = job.Workspace.Exec.Exec(ctx, cmd.Argv, executor.RunOptions{
		Env: cmd.Env, Stdin: stdin, Output: out, Stderr: errw, ReadOnly: job.ReadOnly || job.Policy.Mode == policy.ModeReadOnly})
	out.flush()
	handle(nil)
	if res.limit == "" && res.exit.Limit != "" {
		// A limit the sandbox noted when the CLI ended (its /tmp
		// filled, a file too large, the worktree's growth).
		res.limit = res.exit.Limit
	}
	res.stderr = strings.TrimSpace(errw.String())
	res.deadline = errors.Is(ctx.Err(), context.DeadlineExceeded) && !res.asked && !res.tokens
	res.stopped = parent.Err() != nil
	return res
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

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// lineWriter calls fn with each complete line written to it.
type lineWriter struct {
	buf []byte
	fn  func([]byte)
}

// maxLine bounds a line held while it is incomplete.
const maxLine = 16 << 20

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.fn(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLine {
		w.fn(w.buf)
		w.buf = nil
	}
	return len(p), nil
}

func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.fn(w.buf)
		w.buf = nil
	}
}

// tailWriter keeps the last max bytes written.
type tailWriter struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = w.b[len(w.b)-w.max:]
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}

// sub returns a-b, field by field, never below zero (a session whose
// total went down started again).
func sub(a, b llm.Usage) llm.Usage {
	d := func(x, y int64) int64 { return max(x-y, 0) }
	return llm.Usage{Input: d(a.Input, b.Input), Output: d(a.Output, b.Output),
		CacheRead: d(a.CacheRead, b.CacheRead), CacheWrite: d(a.CacheWrite, b.CacheWrite)}
}
