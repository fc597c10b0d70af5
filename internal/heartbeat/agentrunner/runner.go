package agentrunner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Options configures a Runner.
type Options struct {
	// Model opens a "provider/model" id, with retries; an error names what
	// is missing (a key, a base URL).
	Model func(id string) (llm.Model, llm.Info, error)
	// Ready reports, without a request, whether a model id can be opened;
	// nil means every model is ready.
	Ready func(id string) error
	// OpenDir opens a host directory as an executor: the user's skills
	// directory, which read serves under ~/.bonsai/skills/. nil offers no
	// user skills.
	OpenDir func(dir string) (executor.Executor, error)
	// CodingTools, when not nil, replaces the coding tools working
	// through the worktree ws, with read serving the user's skills from
	// skills when it is not nil.
	CodingTools func(ws, skills executor.Executor) []tool.Tool
	// ExtraTools, when not nil, gives a job more tools (the project's MCP
	// servers, working through the job's workspace executor) and a func
	// that releases them when the run ends.
	ExtraTools func(ctx context.Context, job agentjob.Job) ([]tool.Tool, func())
	// MaxTurns ends a run after this many model requests (0: no limit).
	MaxTurns int
	// Thinking gives the configured thinking level of a task's runs
	// (config.json's agent.taskThinking.<task> and agent.thinking); a
	// project's own Thinking setting wins. nil means off.
	Thinking func(task board.TaskKind) llm.ThinkingLevel
	// Logger receives one line per tool call; nil logs nothing.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Runner runs the agent loop in this process.
type Runner struct {
	opts Options
}

var (
	_ agentjob.AgentRunner = (*Runner)(nil)
	_ agentjob.Readiness   = (*Runner)(nil)
)

// New returns a Runner.
func New(opts Options) (*Runner, error) {
	if opts.Model == nil {
		return nil, errors.New("agent runner: Model is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Runner{opts: opts}, nil
}

// Ready implements agentjob.Readiness.
func (r *Runner) Ready(model string) error {
	if r.opts.Ready == nil {
		return nil
	}
	return r.opts.Ready(model)
}

// RunAgent implements agentjob.AgentRunner: it resumes (or starts) the
// ticket's transcript, prompts the agent with the job's task and maps how
// the loop ended to a run status.
func (r *Runner) RunAgent(ctx context.Context, job agentjob.Job) (agentjob.Outcome, error) {
	model, info, err := r.opts.Model(job.Model)
	if err != nil {
		return agentjob.Outcome{Status: board.RunError, Error: err.Error()}, nil
	}
	sess, err := agenthost.Resume(job.SessionFile, job.Project.Slug, session.Options{Mirror: job.Mirror})
	if err != nil {
		return agentjob.Outcome{}, fmt.Errorf("open transcript: %w", err)
	}
	defer sess.Close()
	// The message being streamed goes to a side file the web UI follows.
	live := NewLive(job.SessionFile, r.opts.Logger)
	live.SetStore(job.LiveStore)
	defer live.Close()
	var (
		a     *agent.Agent
		start llm.Usage // the agent's total before this run
	)
	extra := job.Tools
	if r.opts.ExtraTools != nil {
		more, release := r.opts.ExtraTools(ctx, job)
		defer release()
		extra = append(append([]tool.Tool(nil), extra...), more...)
	}
	hit := &limitHit{}
	host, err := agenthost.New(ctx, agenthost.Config{
		Prompt:  Prompt(ctx, job, nil),
		OpenDir: r.opts.OpenDir, Tools: agenthost.AgentTools(), NewTools: r.codingTools(hit), Extra: extra,
		Gate:    agentjob.Gate(job),
		Session: sess, Model: model, Info: info, MaxTurns: r.opts.MaxTurns, Thinking: r.ThinkingLevel(job, info),
		Budget: job.Budget.USD, TokenBudget: job.Budget.Tokens, Deadline: job.Deadline,
		OnEvent: func(e agent.Event) {
			live.Event(e)
			if e.Type == agent.EventToolExecutionEnd && r.opts.Logger != nil && e.ToolResult != nil {
				r.opts.Logger.Info("tool call", "ticket", job.Ticket.Ref().String(), "tool", e.ToolName, "error", e.ToolResult.IsError)
			}
			// The agent's total includes compaction summaries, which no
			// turn reports. It is reported as soon as a response ends,
			// before its tool calls run, so that a ticket tool (the
			// completion comment of ticket_move) counts the response that
			// called it.
			end := e.Type == agent.EventTurnEnd ||
				e.Type == agent.EventMessageEnd && e.Message != nil && e.Message.Role == llm.RoleAssistant
			if end && job.OnUsage != nil {
				job.OnUsage(agentjob.UsageOf(a.Usage()).Sub(agentjob.UsageOf(start)))
			}
		},
	})
	if err != nil {
		return agentjob.Outcome{}, err
	}
	defer host.Close()
	if r.opts.Logger != nil {
		for _, w := range host.Warnings() {
			r.opts.Logger.Warn("agent setup", "ticket", job.Ticket.Ref().String(), "warning", w)
		}
	}
	a = host.Agent()
	start = a.Usage()
	// A person's comment posted while the agent works reaches it before
	// its next model request, quoted as data like the thread.
	job.Steering.Attach(func(cs []board.Comment) { a.Steer(llm.UserText(agentjob.SteerText(cs))) })
	defer job.Steering.Attach(nil)
	// The run's usage comes from the loop's result (compaction included).
	res := a.Prompt(ctx, agentjob.TaskMessage(job, a.Model()))
	out := r.outcome(res)
	if e := hit.Error(); e != "" && (res.Reason == agent.EndStopped || res.Reason == agent.EndNoProgress) {
		out.Status, out.Error = board.RunError, e
	}
	return out, nil
}

// codingTools builds the coding tools of a run (Options.CodingTools, else
// agenthost's) with bash ending the run at a sandbox limit, recorded in
// hit (limit.go).
func (r *Runner) codingTools(hit *limitHit) func(ws, skills executor.Executor) []tool.Tool {
	return func(ws, skills executor.Executor) []tool.Tool {
		var ts []tool.Tool
		if r.opts.CodingTools != nil {
			ts = r.opts.CodingTools(ws, skills)
		} else {
			ts = agenthost.Tools(ws, skills, agenthost.AgentTools())
		}
		return stopOnLimit(ts, hit)
	}
}

// outcome maps how the loop ended to the run's outcome.
func (r *Runner) outcome(res agent.Result) agentjob.Outcome {
	out := agentjob.Outcome{Usage: agentjob.UsageOf(res.Usage), Summary: res.Text()}
	switch res.Reason {
	case agent.EndStop, agent.EndStopped:
		out.Status = board.RunCompleted
	case agent.EndTimeout:
		out.Status = board.RunTimeout
	case agent.EndMaxTurns:
		// Like a timeout: the work goes on next beat from the transcript.
		out.Status, out.Error = board.RunTimeout, res.Detail
	case agent.EndAborted:
		out.Status, out.Error = board.RunInterrupted, res.Detail
	case agent.EndBudget:
		out.Status = board.RunBudgetExceeded
	default: // error, no progress
		out.Status, out.Error = board.RunError, res.Detail
	}
	var le *llm.Error
	if errors.As(res.Err, &le) {
		switch {
		case le.Kind == llm.KindRateLimit && le.RetryAfter > 0:
			out.RetryAt = r.opts.Now().Add(le.RetryAfter)
		case le.Kind == llm.KindAuth:
			// A rejected key fails every run until a person fixes it.
			out.RetryAt = r.opts.Now().Add(agentjob.AuthPause)
		}
	}
	return out
}

// Spent implements agentjob.Charger: it sums the usage of the assistant
// messages the transcript recorded since a time.
func (r *Runner) Spent(sessionFile string, since time.Time) (board.Usage, error) {
	u, err := session.UsageSince(sessionFile, since)
	return agentjob.UsageOf(u), err
}

// ThinkingLevel returns the thinking level of job's run: the project's
// setting, else the configured level of its task; off for a model the
// catalog does not mark as thinking (it would refuse the parameter).
// The engines' runs get the same (engine.Options.Thinking).
func (r *Runner) ThinkingLevel(job agentjob.Job, info llm.Info) llm.ThinkingLevel {
	if !info.Thinking {
		return llm.ThinkingOff
	}
	if t := job.Project.Agent.Thinking; t != board.ThinkingDefault {
		if l, err := llm.ParseThinkingLevel(string(t)); err == nil {
			return l
		}
	}
	if r.opts.Thinking == nil {
		return llm.ThinkingOff
	}
	return r.opts.Thinking(job.Task)
}
