package agentexec

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// Executors opens the executors agents' commands run in, by each
// project's sandbox setting. Its fields are set once, before the first
// open.
type Executors struct {
	// Data is the data directory, hidden in the sandbox.
	Data config.Dir
	// Home is the user's home, hidden in the sandbox; "" lets the
	// sandbox ask.
	Home string
	// Env is config.json's agent.env; AllowHosts its network.allowHosts.
	Env        []string
	AllowHosts []string
	// Log, when set, gets a line for each connection a project's proxy
	// refuses.
	Log *slog.Logger
	// Available says whether this system's sandbox can start (asked once
	// per process by the caller's choice).
	Available func() error
	// Engines are the engines that run a vendor's CLI, by the name
	// projects give them; Locate finds an engine's CLI, links resolved.
	// With Locate nil no CLI is bound.
	Engines map[board.Engine]engine.Engine
	Locate  func(engine.Engine) (string, error)
	// OpenLocal opens the host executor on root with the environment
	// env; OpenSandbox the system's sandbox.
	OpenLocal   func(root string, env []string) (executor.Executor, error)
	OpenSandbox func(root string, s Spec) (Closer, error)
}

// Check is heartbeat.Options.Sandbox: nil when p's commands can run as
// its sandbox setting asks, else an error wrapping
// executor.ErrSandboxUnavailable with the reason and its fix.
func (x *Executors) Check(p board.Project) error {
	if p.Agent.Sandbox == board.SandboxOff {
		return nil
	}
	if err := Usable(x.Available); err != nil {
		return err
	}
	if _, err := x.CLIBinds(p); err != nil {
		return fmt.Errorf("%w: %w", executor.ErrSandboxUnavailable, err)
	}
	return nil
}

// Usable wraps available's answer in executor.ErrSandboxUnavailable.
func Usable(available func() error) error {
	if err := available(); err != nil {
		return fmt.Errorf("%w: %w", executor.ErrSandboxUnavailable, err)
	}
	return nil
}

// Open is workspace.Options.OpenAgent: the executor of a ticket's
// worktree root, a worktree of clone. A project with its sandbox off gets
// the local executor, on the host; every other one the system's sandbox
// (bubblewrap, or Seatbelt on macOS) with the data directory and the
// user's home hidden, the clone's .git reachable for commits, the
// project's own toolchain caches and NetworkFor's network (in the proxy
// mode a proxy of its own, stopped by Close). Nothing else of the
// runtime's environment goes in: executor.CleanEnv's allowlist, agent.env
// and the cache variables.
func (x *Executors) Open(p board.Project, root, clone string) (executor.Executor, error) {
	if p.Agent.Sandbox == board.SandboxOff {
		return x.OpenLocal(root, x.Env)
	}
	if err := x.Check(p); err != nil {
		return nil, err
	}
	caches, err := cachesUnder(x.Data.Path("caches", p.Slug))
	if err != nil {
		return nil, err
	}
	binds, err := x.engineBinds(p, root)
	if err != nil {
		return nil, err
	}
	hint := fmt.Sprintf("Allow a host for the commands of %s with: bonsai project edit %s --allow-host HOST "+
		"(or for every project: network.allowHosts in config.json)", p.Slug, p.Slug)
	refused := newRefusals(hint)
	mode, allow := NetworkFor(p, x.AllowHosts)
	if e, ok := x.Engines[p.Agent.Engine]; ok && engine.UsesLogin(p) && mode == NetworkProxy {
		// The CLI talks to its provider itself, through the proxy.
		allow = append(allow, engine.LoginOf(e).Hosts...)
	}
	ex, err := x.OpenSandbox(root, Spec{
		Home: x.Home, DataDir: x.Data.Path(), GitDir: GitDirOf(clone), Caches: caches, Env: x.Env,
		Network: mode, Allow: allow, Hint: hint, Binds: binds, Agent: p.Agent,
		OnRefused: func(r netproxy.Refusal) {
			refused.add(r)
			if x.Log != nil {
				x.Log.Warn("proxy refused a connection", "project", p.Slug, "host", r.Host, "port", r.Port, "reason", r.Reason)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	if s, ok := ex.(sandboxed); ok {
		// The heartbeat lists the refusals on the ticket at the end of
		// the run.
		return reportingExecutor{sandboxed: s, refused: refused}, nil
	}
	return ex, nil
}

// engineBinds are the directories of the engine state of the ticket
// whose worktree is root, for a project worked by an engine CLI
// (docs/engines.md): its config directory read-only, its home writable,
// each at its own path. The ticket is known by root, the runtime's own
// path for it (workspace.Provider.WorktreePath): nothing in the worktree
// names it. The schedule pre-check's checkout and Bonsai's own agent get
// none.
func (x *Executors) engineBinds(p board.Project, root string) ([]Bind, error) {
	if p.Agent.Engine == board.EngineBonsai || filepath.Dir(root) != filepath.Join(x.Data.Worktrees(), p.Slug) {
		return nil, nil
	}
	n, err := strconv.Atoi(filepath.Base(root))
	if err != nil || n <= 0 {
		return nil, nil
	}
	cfg, home, err := engine.StateDirs(x.Data.Path(), p.Slug, n)
	if err != nil {
		return nil, err
	}
	cli, err := x.CLIBinds(p)
	if err != nil {
		return nil, err
	}
	binds := append([]Bind{{Host: cfg, ReadOnly: true}, {Host: home}}, cli...)
	login, err := x.loginBind(p, home)
	if err != nil || login == nil {
		return binds, err
	}
	return append(binds, *login), nil
}

// loginBind is, for a project whose engine runs with the person's own
// login (--engine-auth login), the person's credential file bound
// read-write where the CLI reads it in its home in the ticket's state
// (home): the CLI refreshes the token in place. The file is taken from
// the person's home, never from the engine's home, which the agent
// writes; the runtime never reads or writes it.
func (x *Executors) loginBind(p board.Project, home string) (*Bind, error) {
	e, ok := x.Engines[p.Agent.Engine]
	if !ok || !engine.UsesLogin(p) {
		return nil, nil
	}
	file, err := engine.LoginFile(e, x.Home, p.Slug)
	if err != nil {
		return nil, err
	}
	at, err := engine.LoginMountPoint(e, home)
	if err != nil {
		return nil, err
	}
	return &Bind{Host: file, At: at}, nil
}
