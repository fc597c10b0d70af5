package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// maxRunTurns ends a heartbeat run after this many model requests, so a
// model that never stops calling tools costs a bounded amount per beat.
const maxRunTurns = 200

// wiredHeartbeat is a heartbeat with its concrete parts.
type wiredHeartbeat struct {
	hb      *heartbeat.Heartbeat
	log     *slog.Logger
	logFile *os.File
}

func (w *wiredHeartbeat) close() {
	if w.logFile != nil {
		w.logFile.Close()
	}
}

// wireHeartbeat builds the heartbeat on the board's store, git worktrees
// and the agents (Bonsai's own or an engine CLI), configured from
// config.json, logging to logs/heartbeat.log with the secrets redacted.
func wireHeartbeat(ctx context.Context, a *app, project string, ticket board.Ref, progress func(heartbeat.Progress), idle func() string) (*wiredHeartbeat, error) {
	d, err := a.dataDir()
	if err != nil {
		return nil, err
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	listed := heartbeat.ListProjects(ctx, st)
	if err := listed.CheckActive(ctx, project); err != nil {
		return nil, err
	}
	lf, err := heartbeat.OpenLog(d.Logs(), "heartbeat.log")
	if err != nil {
		return nil, err
	}
	redact := secretsOf(ctx, a, st, listed.All())
	log := slog.New(slog.NewTextHandler(&redactWriter{w: lf, r: redact}, nil)).With("pid", os.Getpid())
	o, err := a.beatOptions(ctx, d, cfg, listed, redact, log)
	if err == nil {
		o.Project, o.Ticket, o.Progress, o.Idle = project, ticket, progress, idle
		var hb *heartbeat.Heartbeat
		if hb, err = heartbeat.New(o); err == nil {
			return &wiredHeartbeat{hb: hb, log: log, logFile: lf}, nil
		}
	}
	lf.Close()
	return nil, err
}

// beatOptions wires the heartbeat's parts on the store listed: the
// workspaces and agent executors, the runners, the leases and worker
// record of a shared board, the limits and the forge side of the pr mode.
func (a *app) beatOptions(ctx context.Context, d config.Dir, cfg config.Config, listed *heartbeat.ListedProjects,
	redact *llm.Redactor, log *slog.Logger) (heartbeat.Options, error) {
	agents := newAgentExecutors(d, cfg)
	agents.Log = log
	leases, err := a.sharedLeases(listed.Store)
	if err != nil {
		return heartbeat.Options{}, err
	}
	ws, err := beatWorkspaces(a, d, cfg, agents.Open, leases != nil)
	if err != nil {
		return heartbeat.Options{}, err
	}
	runners, err := beatRunners(a, cfg, redact, log)
	if err != nil {
		return heartbeat.Options{}, err
	}
	ttl, err := a.leaseTTL()
	if err != nil {
		return heartbeat.Options{}, err
	}
	limit := heartbeat.ConcurrencyLimit(int(cfg.Heartbeat.MaxConcurrentAgents))
	host, _ := os.Hostname()
	// On a shared board, a limit set by hand holds across the machines
	// (their leases are counted); "auto" sizes each machine alone. Each
	// beat records its worker there.
	global := 0
	var worker board.WorkerBeat
	if leases != nil {
		global = int(cfg.Heartbeat.MaxConcurrentAgents)
		worker = a.workerBeat(d, host)
	}
	return heartbeat.Options{
		Store: listed, Workspaces: withEngineState{Provider: ws, data: d.Path()}, Runner: runners, Logger: log,
		LockFile: d.LockFile(), StateFile: d.Path("heartbeat.json"), Sessions: d.Sessions(), Skills: d.Path("skills"),
		DefaultModel: cfg.Model, MaxConcurrent: limit, Limits: limitsOf(cfg.Budget), Attachments: cfg.Attachments.Limits(),
		MaxDuration: time.Duration(cfg.Heartbeat.MaxDurationSec) * time.Second,
		WorkerID:    fmt.Sprintf("%s:%d", host, os.Getpid()), Now: a.now,
		Reap: local.KillMarked, Redact: redact.String, Sandbox: agents.Check, Leases: leases,
		GlobalLimit: global, SharedBoard: leases != nil, Registry: listed.Store, Worker: worker,
		Transcripts: listed.Store, LeaseTTL: ttl, ControlWake: eventsChanged(listed.Store),
		Policy:         policy.Config{Allow: cfg.Policy.Allow, Ask: cfg.Policy.Ask, DataDir: d.Path(), HomeDir: a.homeDir()},
		ResolveProgram: programResolvers([]string{a.homeDir(), userHome()}, d.Path()),
		PullRequests:   newForges(a, listed.Store, cfg, redact.String, log),
		Trackers:       newTrackers(a, listed.Store, cfg, redact.String, log),
	}, nil
}

// beatWorkspaces are the clones and worktrees of the beat: the runtime's
// own git on the host (clone, fetch and push need the network and
// RemoteEnv's credentials), the agents' commands in openAgent's
// executors.
func beatWorkspaces(a *app, d config.Dir, cfg config.Config, openAgent func(board.Project, string, string) (executor.Executor, error), shared bool) (*workspace.Provider, error) {
	return workspace.New(workspace.Options{
		Projects: d.Projects(), Worktrees: d.Worktrees(),
		Open: func(root string) (executor.Executor, error) {
			return local.New(root, local.Options{})
		},
		OpenAgent:     openAgent,
		RemoteEnv:     a.remoteEnv(),
		AgentIdentity: agentIdentity(cfg),
		// A person at a terminal sees a large clone progress; a beat fired
		// by a service or 'bonsai up' logs no progress bars.
		CloneProgress: cloneProgress(a),
		// Other machines work the tickets too: a worktree starts from
		// the ticket branch they pushed.
		SharedBoard: shared,
	})
}

// beatRunners are the beat's AgentRunners: Bonsai's own agent on the
// models of config.json's catalog, and the engine CLIs, each with the
// project's MCP servers.
func beatRunners(a *app, cfg config.Config, redact *llm.Redactor, log *slog.Logger) (*engine.Dispatch, error) {
	cat, err := beatCatalog(cfg)
	if err != nil {
		return nil, err
	}
	open := func(id string) (llm.Model, llm.Info, error) {
		r, err := llmprovider.Resolve(id, llmprovider.Options{Getenv: a.getenv, Catalog: cat(), Redactor: redact,
			ReasoningSummary: cfg.Agent.ReasoningSummary, Warn: func(msg string) { log.Warn("model", "model", id, "warning", msg) }})
		return r.Model, r.Info, err
	}
	// The project's MCP servers, started through the worktree's executor
	// (the sandbox when on); problems go to the log. Engines reach them
	// through the run's board server.
	extraTools := func(ctx context.Context, job heartbeat.Job) ([]tool.Tool, func()) {
		if len(job.Project.Agent.MCPServers) == 0 || job.Workspace == nil {
			return nil, func() {}
		}
		warn := func(msg string) { log.Warn("mcp", "ticket", job.Ticket.Ref().String(), "warning", msg) }
		c := a.openMCP(ctx, cfg, job.Project.Agent.MCPServers, job.Workspace.Exec, warn)
		return c.Tools(), func() { c.Close() }
	}
	runner, err := agentrunner.New(agentrunner.Options{
		Model:      open,
		Ready:      func(id string) error { return llmprovider.Check(id, a.getenv) },
		OpenDir:    func(dir string) (executor.Executor, error) { return local.New(dir, local.Options{}) },
		MaxTurns:   maxRunTurns,
		Thinking:   cfg.TaskThinkingLevel,
		Logger:     log,
		ExtraTools: extraTools,
	})
	if err != nil {
		return nil, err
	}
	return engineRunners(a, runner, open, extraTools, log)
}

// limitsOf turns config.json's budget keys into the heartbeat's caps.
func limitsOf(b config.Budget) heartbeat.Limits {
	return heartbeat.Limits{
		RunTokens: int64(b.RunTokens), RunUSD: b.RunUSD,
		TicketTokens: int64(b.TicketTokens), TicketUSD: b.TicketUSD,
		DailyTokens: int64(b.ProjectDailyTokens), DailyUSD: b.ProjectDailyUSD,
	}
}

// homeDir is the user's home for the command policy's ~ and $HOME: $HOME,
// else the account's home; empty when neither is known.
func (a *app) homeDir() string {
	if h := a.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// remoteEnv is what the runtime's git gets to reach a remote
// (workspace.Options.RemoteEnv): the variables of workspace.RemoteVars
// and the forge tokens, exported or stored.
func (a *app) remoteEnv() []string {
	return append(workspace.PickEnv(os.Environ(), append(workspace.RemoteVars, forgeTokenEnv...)), storedForgeTokens(a)...)
}

// storedForgeTokens returns, as KEY=VALUE pairs for git's credential
// helpers, the stored forge tokens whose variables the environment does
// not set (an exported one is already in the remote environment).
func storedForgeTokens(a *app) []string {
	var out []string
	for _, k := range forgeTokenEnv {
		if a.env(k) == "" {
			if v := a.getenv(k); v != "" {
				out = append(out, k+"="+v)
			}
		}
	}
	return out
}

// cloneProgress is where git's clone progress goes: the terminal on
// stderr, else nowhere.
func cloneProgress(a *app) io.Writer {
	if isTerminal(a.stderr) && a.getenv("TERM") != "dumb" {
		return a.stderr
	}
	return nil
}
