package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// toolchainCaches are the variables of the toolchain caches a sandbox
// keeps between runs: each gets a writable directory of its own under
// the data directory, bound into the sandbox's home. GOPATH is not among
// them: Go defaults it to $HOME/go, which the sandbox's writable home
// holds for one command, and GOMODCACHE keeps the downloads.
var toolchainCaches = []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "PIP_CACHE_DIR", "CARGO_HOME"}

// runCacheDir is the directory under caches/ holding the caches of
// `bonsai run --sandbox`; the underscore keeps it apart from every
// project slug.
const runCacheDir = "_run"

// agentExecutors opens the executors agents' commands run in, by each
// project's sandbox setting (docs/sandbox.md).
type agentExecutors struct {
	data       config.Dir
	home       string         // the user's home, hidden in the sandbox
	env        []string       // config.json's agent.env
	allowHosts []string       // config.json's network.allowHosts
	limits     sandbox.Limits // config.json's limits, defaults filled in
	// log, when set, gets a line for each connection a project's proxy
	// refuses.
	log *slog.Logger
	// available is sandboxAvailable, asked once per process.
	available func() error
	// locate finds an engine's CLI (engineLocate).
	locate func(engine.Engine) (string, error)
}

// newAgentExecutors returns the executors of the data directory d with
// config.json's agent.env and network.allowHosts.
func newAgentExecutors(d config.Dir, cfg config.Config) *agentExecutors {
	return &agentExecutors{data: d, home: userHome(), env: cfg.Agent.Env, allowHosts: cfg.Network.AllowHosts,
		limits: sandboxLimits(cfg.Limits), available: sync.OnceValue(sandboxAvailable), locate: engineLocate}
}

// sandboxLimits are config.json's limits, defaults filled in, in bytes.
func sandboxLimits(c config.Limits) sandbox.Limits {
	r := c.Resolved()
	mib := func(v config.AutoInt) int64 { return int64(v) << 20 }
	return sandbox.Limits{Memory: mib(r.MemoryMiB), Processes: int(r.Processes), Tmp: mib(r.TmpMiB),
		FileSize: mib(r.FileSizeMiB), DiskGrowth: mib(r.DiskGrowthMiB)}
}

// check is heartbeat.Options.Sandbox: nil when p's commands can run as
// its sandbox setting asks, else an error wrapping
// executor.ErrSandboxUnavailable with the reason and its fix.
func (x *agentExecutors) check(p board.Project) error {
	if p.Agent.Sandbox == board.SandboxOff {
		return nil
	}
	if err := sandboxUsable(x.available); err != nil {
		return err
	}
	if _, err := x.cliBinds(p); err != nil {
		return fmt.Errorf("%w: %w", executor.ErrSandboxUnavailable, err)
	}
	return nil
}

// sandboxUsable wraps available's answer in executor.ErrSandboxUnavailable.
func sandboxUsable(available func() error) error {
	if err := available(); err != nil {
		return fmt.Errorf("%w: %w", executor.ErrSandboxUnavailable, err)
	}
	return nil
}

// open is workspace.Options.OpenAgent: the executor of a ticket's
// worktree root, a worktree of clone. A project with its sandbox off gets
// the local executor, on the host; every other one the system's sandbox
// (bubblewrap, or Seatbelt on macOS) with the data directory and the
// user's home hidden, the clone's .git reachable for commits, the
// project's own toolchain caches and networkFor's network (in the proxy
// mode a proxy of its own, stopped by Close). Nothing else of the
// runtime's environment goes in: executor.CleanEnv's allowlist, agent.env
// and the cache variables.
func (x *agentExecutors) open(p board.Project, root, clone string) (executor.Executor, error) {
	if p.Agent.Sandbox == board.SandboxOff {
		return local.New(root, local.Options{Env: x.env})
	}
	if err := x.check(p); err != nil {
		return nil, err
	}
	caches, err := cachesUnder(x.data.Path("caches", p.Slug))
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
	ex, err := openSandbox(root, sandboxSpec{
		Home: x.home, DataDir: x.data.Path(), GitDir: gitDirOf(clone), Caches: caches, Env: x.env, Limits: projectLimits(x.limits, p.Agent),
		Net: networkFor(p, x.allowHosts), Hint: hint, Binds: binds,
		OnRefused: func(r netproxy.Refusal) {
			refused.add(r)
			if x.log != nil {
				x.log.Warn("proxy refused a connection", "project", p.Slug, "host", r.Host, "port", r.Port, "reason", r.Reason)
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
func (x *agentExecutors) engineBinds(p board.Project, root string) ([]sandbox.Bind, error) {
	if p.Agent.Engine == board.EngineBonsai || filepath.Dir(root) != filepath.Join(x.data.Worktrees(), p.Slug) {
		return nil, nil
	}
	n, err := strconv.Atoi(filepath.Base(root))
	if err != nil || n <= 0 {
		return nil, nil
	}
	cfg, home, err := engine.StateDirs(x.data.Path(), p.Slug, n)
	if err != nil {
		return nil, err
	}
	cli, err := x.cliBinds(p)
	if err != nil {
		return nil, err
	}
	return append([]sandbox.Bind{{Host: cfg, ReadOnly: true}, {Host: home}}, cli...), nil
}

// gitDirOf is the git directory of clone to bind into the sandbox; ""
// (none) for a checkout that is no worktree of a clone (Checkout's).
func gitDirOf(clone string) string {
	if clone == "" {
		return ""
	}
	return filepath.Join(clone, ".git")
}

// cachesUnder maps each toolchain cache variable to a directory below
// dir, creating them 0700 like the rest of the data directory. One
// project's sandbox binds its own directory only, and the data directory
// around it is hidden, so no project sees another's caches.
func cachesUnder(dir string) (map[string]string, error) {
	m := make(map[string]string, len(toolchainCaches))
	for _, k := range toolchainCaches {
		m[k] = filepath.Join(dir, strings.ToLower(k))
		if err := os.MkdirAll(m[k], 0o700); err != nil {
			return nil, fmt.Errorf("create the toolchain caches: %w", err)
		}
	}
	return m, nil
}

// runCaches is the cache directory of `bonsai run --sandbox` in the
// directory cwd: its base name, for people looking, and a hash of the
// whole path, so two checkouts named alike do not share.
func runCaches(d config.Dir, cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	name := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, filepath.Base(cwd))
	return d.Path("caches", runCacheDir, name+"-"+hex.EncodeToString(sum[:4]))
}

// userHome is the home the sandbox hides; "" lets the sandbox ask.
func userHome() string {
	h, _ := os.UserHomeDir()
	return h
}

// projectNetwork is the network a project's sandboxed commands get.
type projectNetwork struct {
	// Mode is the sandbox's network mode.
	Mode sandbox.Network
	// Allow are the hosts the proxy mode lets commands reach:
	// netproxy.DefaultAllow (the public registries, GitHub, GitLab), the
	// host of the project's repository when it is a URL, config.json's
	// network.allowHosts and the project's own allowed hosts, without
	// repeats. Empty for the other modes.
	Allow []string
}

// networkFor returns the network of project p's sandbox; configHosts is
// config.json's network.allowHosts. The project's mode maps one to one:
// proxy (the default), none or all.
func networkFor(p board.Project, configHosts []string) projectNetwork {
	switch p.Agent.Network {
	case board.NetworkAll:
		return projectNetwork{Mode: sandbox.NetworkAll}
	case board.NetworkNone:
		return projectNetwork{Mode: sandbox.NetworkNone}
	}
	var allow []string
	seen := map[string]bool{}
	add := func(h string) {
		if h != "" && !seen[h] {
			seen[h] = true
			allow = append(allow, h)
		}
	}
	for _, h := range netproxy.DefaultAllow() {
		add(h)
	}
	if h, err := netproxy.RemoteHost(p.Repo); err == nil {
		add(h) // a local path has no host
	}
	for _, h := range configHosts {
		add(h)
	}
	for _, h := range p.Agent.AllowHosts {
		add(h)
	}
	return projectNetwork{Mode: sandbox.NetworkProxy, Allow: allow}
}
