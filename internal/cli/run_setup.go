package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/mcpclient"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/runui"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// agentRun is one `bonsai run`: the workspace, the session and the agent.
type agentRun struct {
	a       *app
	o       runOptions
	mode    string
	cwd     string // absolute host path of the workspace
	sessDir string // where this directory's sessions live
	ex      workspaceExecutor
	host    *agenthost.Host
	agent   *agent.Agent
	config  config.Config
	models  modelResolver
	redact  *llm.Redactor // the process's secrets
	events  runui.Events  // passed on to the mode's handler
	mcp     *mcpclient.Client
	// approvals decides the commands the policy holds for a person.
	approvals *runui.Approvals
	// warnTo, when not nil, shows warnings instead of stderr: the
	// full-screen interface's transcript, while it runs.
	warnMu sync.Mutex
	warnTo func(string)
}

// newRuntime opens the workspace, the session and the model, and builds
// the agent.
func newRuntime(ctx context.Context, a *app, o runOptions, mode string) (*agentRun, error) {
	rt := &agentRun{a: a, o: o, mode: mode}
	ok := false
	defer func() {
		if !ok {
			rt.close()
		}
	}()
	d, err := a.dataDir()
	if err != nil {
		return nil, err
	}
	if rt.config, err = a.config(); err != nil {
		return nil, err
	}
	mcpNames, err := parseMCPFlag(o.mcp, rt.config)
	if err != nil {
		return nil, err
	}
	if err := rt.openWorkspace(d); err != nil {
		return nil, err
	}
	rt.mcp = a.openMCP(ctx, rt.config, mcpNames, rt.ex, func(msg string) { rt.warn("%s", msg) })
	rt.sessDir = session.Layout{Root: d.Sessions()}.RunDir(rt.cwd)
	thinking, err := llm.ParseThinkingLevel(o.thinking)
	if err != nil {
		return nil, usagef("--thinking: %s", cmdkit.LLMMessage(err))
	}
	names, err := parseTools(o.tools)
	if err != nil {
		return nil, err
	}
	sess, err := rt.openSession()
	if err != nil {
		return nil, err
	}
	for _, w := range sess.Warnings() {
		rt.warn("session %s: %s", sess.Path(), w)
	}
	if err := rt.openModels(ctx); err != nil {
		sess.Close()
		return nil, err
	}
	pmode, err := runPolicyMode(o.permissionMode)
	if err != nil {
		sess.Close()
		return nil, err
	}
	var configThinking llm.ThinkingLevel
	if rt.config.Agent.Thinking != "" {
		// config.json's agent.thinking, checked when it was loaded.
		configThinking, _ = llm.ParseThinkingLevel(rt.config.Agent.Thinking)
	}
	host, approvals, err := runui.Assemble(ctx, runui.Setup{
		Workspace: rt.ex, Root: rt.cwd,
		OpenDir: func(dir string) (executor.Executor, error) { return local.New(dir, local.Options{}) },
		Session: sess, Model: o.model, ConfigModel: rt.config.Model,
		Thinking: thinking, ThinkingSet: o.thinking != "", ConfigThinking: configThinking, Models: rt.models,
		Policy: policy.Config{Mode: pmode, Allow: append(slices.Clone(o.allow), rt.config.Policy.Allow...),
			Ask: rt.config.Policy.Ask, DataDir: d.Path(), HomeDir: a.homeDir(), Workspace: rt.cwd},
		Tools: names, Extra: rt.mcp.Tools(), UserSkills: filepath.Join(d.Path(), "skills"), Date: a.now(),
		MaxTurns: o.maxTurns, System: o.systemPrompt, Append: o.appendSystemPrompt, Warn: func(msg string) { rt.warn("%s", msg) },
	}, &rt.events)
	if err != nil {
		sess.Close()
		return nil, err
	}
	rt.host, rt.approvals, rt.agent = host, approvals, host.Agent()
	ok = true
	return rt, nil
}

// openModels sets rt.models, which resolves models through the
// embedded catalog with config.json's models settings, and rt.redact,
// the process's secrets hidden in their errors.
func (rt *agentRun) openModels(ctx context.Context) error {
	cat, err := modelCatalog(rt.config)
	if err != nil {
		return err
	}
	rt.redact = secrets(ctx, rt.a, nil)
	rt.redact = rt.redact.With(rt.o.apiKey)
	rt.models = envModels(rt.a.getenv, cat, rt.redact, llmprovider.Options{APIKey: rt.o.apiKey, BaseURL: rt.o.baseURL,
		ReasoningSummary: rt.config.Agent.ReasoningSummary,
		Warn:             func(msg string) { rt.warn("%s", msg) }})
	return nil
}

// workspaceExecutor is the executor of `bonsai run`'s workspace.
type workspaceExecutor interface {
	executor.Executor
	Close() error
}

func (rt *agentRun) openWorkspace(d config.Dir) error {
	cwd := rt.o.cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return err
	}
	if !isDir(abs) {
		return usagef("--cwd %s is not a directory", cwd)
	}
	var ex workspaceExecutor
	if rt.o.sandbox {
		ex, err = openRunSandbox(d, rt.config, abs, rt.o.network)
	} else {
		ex, err = local.New(abs, local.Options{Env: rt.config.Agent.Env})
	}
	if err != nil {
		return err
	}
	rt.cwd, rt.ex = abs, ex
	return nil
}

// openSession creates, resumes or keeps in memory the session the flags ask for.
func (rt *agentRun) openSession() (*session.File, error) {
	if rt.o.session != "" {
		if _, err := os.Stat(rt.o.session); errors.Is(err, os.ErrNotExist) {
			// A new file goes in an existing directory: a mistyped path
			// should not leave a tree of directories behind.
			if dir := filepath.Dir(rt.o.session); !isDir(dir) {
				return nil, usagef("--session %s: directory %s does not exist", rt.o.session, dir)
			}
		}
	}
	return rt.sessions().Open(rt.o.session, rt.o.cont)
}

// sessions are the sessions of the workspace.
func (rt *agentRun) sessions() agenthost.Sessions {
	return agenthost.Sessions{Dir: rt.sessDir, Cwd: rt.cwd, Memory: rt.o.noSession, Now: rt.a.now}
}

// newSession starts a fresh session file (or an in-memory one).
func (rt *agentRun) newSession() (*session.File, error) { return rt.sessions().New() }

// forkPath returns the path of a new fork file.
func (rt *agentRun) forkPath() string { return rt.sessions().ForkPath() }

// warn prints a warning to stderr, or shows it where warnTo says.
func (rt *agentRun) warn(format string, args ...any) {
	msg := termsafe.Text(fmt.Sprintf(format, args...))
	rt.warnMu.Lock()
	to := rt.warnTo
	rt.warnMu.Unlock()
	if to != nil {
		to(msg)
		return
	}
	fmt.Fprintf(rt.a.stderr, "bonsai: warning: %s\n", msg)
}

// showWarnings makes show receive the warnings to come (nil: stderr).
func (rt *agentRun) showWarnings(show func(string)) {
	rt.warnMu.Lock()
	defer rt.warnMu.Unlock()
	rt.warnTo = show
}

func (rt *agentRun) warnAll(msgs []string) {
	for _, m := range msgs {
		rt.warn("%s", m)
	}
}

// ui returns the run as the front ends drive it.
func (rt *agentRun) ui() *runui.Run {
	return &runui.Run{
		Agent: rt.agent, Events: &rt.events, Stdin: rt.a.stdin, Stdout: rt.a.stdout, Stderr: rt.a.stderr,
		Getenv: rt.a.getenv, Redact: rt.redact.String, Models: rt.models, Sessions: rt.sessions(),
		Approvals: rt.approvals, MCP: mcpReports(rt.mcp),
	}
}

func (rt *agentRun) close() {
	if rt.agent != nil {
		rt.agent.Session().Close()
	}
	if rt.mcp != nil {
		rt.mcp.Close()
	}
	if rt.ex != nil {
		rt.ex.Close()
	}
	if rt.host != nil {
		rt.host.Close()
	}
}

// isDir reports whether path names an existing directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
