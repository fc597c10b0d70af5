package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
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
	// Home is the person's home, where the CLIs keep their logins
	// (LoginOf), for projects with --engine-auth login.
	Home string
	// Images reports whether a "provider/model" takes pictures (its
	// catalog entry): the ticket's pictures are then shown with the
	// run's first message. Nil shows none; the files are in the run
	// either way.
	Images func(model string) bool
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
	_, err := r.endpoint(model, false)
	return err
}

// ReadyLogin is Ready for a project whose engine runs with the person's
// own login: the CLI is installed, the project's sandbox on (it binds
// the login in), the CLI's credential file in the person's home, and the
// model's provider one the CLI logs in to.
func (r *Runner) ReadyLogin(p board.Project, model string) error {
	if _, err := r.opts.Locate(r.opts.Engine); err != nil {
		return err
	}
	if _, err := CheckLogin(r.opts.Engine, p, r.opts.Home); err != nil {
		return err
	}
	_, err := r.endpoint(model, true)
	return err
}

// Spent implements agentjob.Charger: the usage the transcript recorded.
func (r *Runner) Spent(sessionFile string, since time.Time) (board.Usage, error) {
	u, err := session.UsageSince(sessionFile, since)
	return agentjob.UsageOf(u), err
}

// endpoint resolves a "provider/model" id to the server the CLI talks to;
// with the person's login (login) the CLI finds its server itself, and
// Bonsai's key and base URL stay out of it.
func (r *Runner) endpoint(model string, login bool) (Endpoint, error) {
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
	if login {
		e.BaseURL, e.Key = "", ""
	} else if e.Key == "" && !p.KeyOptional {
		return Endpoint{}, fmt.Errorf("no API key: set %s or run 'bonsai credentials set %s'", p.KeyEnv, p.Name)
	}
	if _, err := r.opts.Engine.Command(Invocation{Endpoint: e, Login: login}); err != nil {
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
	login := UsesLogin(job.Project)
	ep, err := r.endpoint(job.Model, login)
	if err == nil && login {
		err = r.ReadyLogin(job.Project, job.Model)
	}
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
	bs, closeBoard, err := r.serveBoardTools(ctx, job)
	if err != nil {
		return agentjob.Outcome{}, err
	}
	defer closeBoard()
	// The engine talks to the model through the run's gateway: it never
	// holds the key. With the person's login it talks to its provider.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if !login {
		var ended func() bool
		if _, atTurnEnd := e.(turnEnder); bs != nil && !atTurnEnd {
			ended = bs.terminate.Load
		}
		gw, err := serveGateway(ep, func(e *rejectedKey) { stop(e) }, ended)
		if err != nil {
			return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
		}
		defer gw.Close()
		ep = gw.endpoint
	}
	var mcpEP MCPEndpoint
	if bs != nil {
		mcpEP = bs.endpoint
	}
	closeForwards, err := relay(job, &ep, &mcpEP)
	if err != nil {
		return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
	}
	defer closeForwards()
	st, err := LoadState(job.SessionFile, e.Name())
	if err != nil {
		return agentjob.Outcome{}, err
	}
	in, err := r.invocation(ctx, job, bin, ep, mcpEP, st)
	if err != nil {
		return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
	}
	in.Login = login
	first := llm.UserText(in.Prompt)
	first.Content = append(first.Content, transcriptParts(in.Images)...)
	if _, err := sess.AppendMessage(first, nil); err != nil {
		return agentjob.Outcome{}, err
	}
	res := r.runResuming(ctx, job, in, sess, bs, st.Total)
	out := res.outcome(e, job)
	r.pause(ctx, res, &out)
	return out, nil
}

// serveBoardTools serves the job's board tools, with the project's MCP
// servers relayed through the command gate, to the CLI over MCP; nil and
// a no-op close when the job has none.
func (r *Runner) serveBoardTools(ctx context.Context, job agentjob.Job) (*boardServer, func(), error) {
	tools := job.Tools
	var release func()
	if r.opts.ExtraTools != nil && len(tools) > 0 {
		var more []tool.Tool
		more, release = r.opts.ExtraTools(ctx, job)
		tools = append([]tool.Tool(nil), tools...)
		// Judged by the project's policy as Bonsai's own agent's are
		// (internal/gate: allow and ask patterns, held calls).
		for _, t := range gate.Wrap(more, agentjob.Gate(job)) {
			tools = append(tools, relayed(t))
		}
	}
	done := func() {
		if release != nil {
			release()
		}
	}
	if len(tools) == 0 {
		return nil, done, nil
	}
	bs, err := serveBoard(tools, commandJudges(job))
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("serve the board tools: %w", err)
	}
	return bs, func() { bs.Close(); done() }, nil
}

// relay rewrites the gateway's and the board server's addresses for a
// sandbox in the proxy network mode, which reaches the host only through
// its proxy: the proxy relays the run's two servers under names of their
// own. The returned func ends the relays.
func relay(job agentjob.Job, ep *Endpoint, mcpEP *MCPEndpoint) (func(), error) {
	fw := newForwards(job)
	if fw == nil {
		return func() {}, nil
	}
	for _, u := range []struct {
		url  *string
		name string
	}{{&ep.BaseURL, gatewayName}, {&mcpEP.URL, boardName}, {&mcpEP.Hook, boardName}} {
		err := fw.rewrite(u.url, u.name)
		if errors.Is(err, errUnrelayed) {
			break
		}
		if err != nil {
			fw.close()
			return nil, err
		}
	}
	return fw.close, nil
}

// invocation is how the CLI at bin starts for job: its endpoints, its
// directories, the session to resume (st), the prompts, the ticket's
// files (written into the run), the budget, the thinking level and the
// model's price.
func (r *Runner) invocation(ctx context.Context, job agentjob.Job, bin string, ep Endpoint, mcpEP MCPEndpoint, st State) (Invocation, error) {
	cfg, home, err := engineDirs(r.opts.DataDir, job.Project.Slug, job.Ticket.Number, r.opts.Engine.Name())
	if err != nil {
		return Invocation{}, err
	}
	in := Invocation{Bin: bin, Endpoint: ep, ConfigDir: cfg, HomeDir: home, MCP: mcpEP,
		Resume: st.Session, System: systemPrompt(ctx, job), Prompt: agentjob.TaskPrompt(job),
		BudgetUSD: job.Budget.USD, ReadOnly: job.ReadOnly || job.Policy.Mode == policy.ModeReadOnly, Thinking: llm.ThinkingOff}
	files, err := writeAttachments(ctx, cfg, job.Attachments, r.opts.Images != nil && r.opts.Images(job.Model))
	if err != nil {
		return Invocation{}, err
	}
	if s := attachmentBrief(files); s != "" {
		in.Prompt += "\n\n" + s
	}
	in.Images = runImages(files)
	if len(files) > 0 {
		in.Attachments = filepath.Join(cfg, attachmentsDir)
	}
	if r.opts.Thinking != nil {
		in.Thinking = r.opts.Thinking(job)
	}
	if r.opts.Price != nil {
		in.price = r.opts.Price(job.Model)
	}
	return in, nil
}

// runResuming starts the CLI once; when the vendor's session it resumes
// is gone (another machine, a cleaned directory), once more in a new
// session, told what happened so far.
func (r *Runner) runResuming(ctx context.Context, job agentjob.Job, in Invocation, sess *session.File, bs *boardServer, total llm.Usage) result {
	res := r.run(ctx, job, in, sess, bs, total)
	if in.Resume == "" || !res.resumeFailed() {
		return res
	}
	r.logf("engine session cannot be resumed; starting a new one", "ticket", job.Ticket.Ref().String(), "session", in.Resume, "stderr", res.stderr)
	in.Resume = ""
	if s := Summary(job.SessionFile); s != "" {
		in.Prompt = "This ticket's earlier session could not be resumed. What happened so far, from its transcript:\n\n" + s + "\n\n" + in.Prompt
	}
	return r.run(ctx, job, in, sess, bs, llm.Usage{})
}

// pause sets when the provider may be asked again after the gateway saw
// the key rejected (ctx's cause), or the CLI's result said it was
// rejected or rate-limited: the provider's work pauses either way.
func (r *Runner) pause(ctx context.Context, res result, out *agentjob.Outcome) {
	var rk *rejectedKey
	if errors.As(context.Cause(ctx), &rk) {
		out.Status, out.Error = board.RunError, rk.Error()
		out.RetryAt = r.opts.Now().Add(agentjob.AuthPause)
		return
	}
	if res.done == nil || out.Status != board.RunError {
		return
	}
	// A rejected key fails every run until a person fixes it; a rate
	// limit passes.
	switch res.done.HTTPStatus {
	case 401, 403:
		out.RetryAt = r.opts.Now().Add(agentjob.AuthPause)
	case 429:
		out.RetryAt = r.opts.Now().Add(RateLimitPause)
	}
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

// turnEnder is an engine whose run, once a board tool ended it, stops at
// the end of the model's turn rather than at the tool's result: its
// gateway keeps forwarding until then.
type turnEnder interface{ stopsAtTurnEnd() }
