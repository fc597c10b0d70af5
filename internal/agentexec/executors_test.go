package agentexec

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// marked is a local executor that also has the sandbox's Mark and
// HidePaths, so Open reports its refusals.
type marked struct{ *local.Executor }

func (marked) Mark(string)               {}
func (marked) HidePaths(s string) string { return s }

var _ heartbeat.RefusalReporter = reportingExecutor{}

// TestOpen_SandboxSpec: a project with its sandbox off runs on the host
// with agent.env; any other gets a sandbox spec with its own caches, the
// clone's git directory, the proxy's hosts and hint, and the refusals its
// proxy reports listed once per host for the ticket.
func TestOpen_SandboxSpec(t *testing.T) {
	t.Parallel()
	d := config.Dir(t.TempDir())
	var got Spec
	var localEnv []string
	x := &Executors{Data: d, Home: "/home/u", Env: []string{"A=1"}, AllowHosts: []string{"mirror.example.org"},
		Available: func() error { return nil },
		OpenLocal: func(root string, env []string) (executor.Executor, error) {
			localEnv = env
			return local.New(root, local.Options{Env: env})
		},
		OpenSandbox: func(root string, s Spec) (Closer, error) {
			got = s
			ex, err := local.New(root, local.Options{})
			return marked{ex}, err
		},
	}
	root := t.TempDir()
	if _, err := x.Open(board.Project{Slug: "demo", Agent: board.AgentSettings{Sandbox: board.SandboxOff}}, root, "/c"); err != nil || !slices.Equal(localEnv, x.Env) {
		t.Fatalf("sandbox off: env %v, %v", localEnv, err)
	}
	ex, err := x.Open(board.Project{Slug: "demo"}, root, "/srv/clone")
	if err != nil {
		t.Fatal(err)
	}
	if got.GitDir != "/srv/clone/.git" || got.Home != "/home/u" || got.Network != NetworkProxy || !slices.Contains(got.Allow, "mirror.example.org") ||
		got.Caches["GOCACHE"] != filepath.Join(d.Path("caches", "demo"), "gocache") || !strings.Contains(got.Hint, "--allow-host") {
		t.Errorf("spec = %+v", got)
	}
	got.OnRefused(netproxy.Refusal{Host: "evil.example", Port: 443, Reason: "not allowed"})
	got.OnRefused(netproxy.Refusal{Host: "evil.example", Port: 443, Reason: "not allowed"})
	lines, hint := ex.(heartbeat.RefusalReporter).NetworkRefusals()
	if !slices.Equal(lines, []string{"evil.example:443, 2 times: not allowed"}) || hint != got.Hint {
		t.Errorf("refusals = %q, %q", lines, hint)
	}
	if lines, _ := ex.(heartbeat.RefusalReporter).NetworkRefusals(); len(lines) != 0 {
		t.Errorf("refusals taken twice: %q", lines)
	}
}

// TestCheck_Unavailable: a sandboxed project on a system without the
// sandbox is refused with executor.ErrSandboxUnavailable; one with its
// sandbox off is not.
func TestCheck_Unavailable(t *testing.T) {
	t.Parallel()
	x := &Executors{Available: func() error { return errors.New("no bwrap") }}
	if err := x.Check(board.Project{}); !errors.Is(err, executor.ErrSandboxUnavailable) || !strings.Contains(err.Error(), "no bwrap") {
		t.Errorf("Check = %v", err)
	}
	if err := x.Check(board.Project{Agent: board.AgentSettings{Sandbox: board.SandboxOff}}); err != nil {
		t.Errorf("sandbox off: %v", err)
	}
}

// contained is marked whose Close, like the sandbox's, ends every
// process its commands started.
type contained struct{ marked }

func (contained) ContainsProcesses() bool { return true }

// TestOpen_ContainsProcessesAsTheSandbox: the executor Open returns for a
// sandboxed project says it contains its processes exactly when the
// sandbox it wraps does (the heartbeat then skips the scan for what a run
// left running).
func TestOpen_ContainsProcessesAsTheSandbox(t *testing.T) {
	t.Parallel()
	for _, want := range []bool{false, true} {
		x := &Executors{Data: config.Dir(t.TempDir()), Home: "/home/u", Available: func() error { return nil },
			OpenSandbox: func(root string, s Spec) (Closer, error) {
				ex, err := local.New(root, local.Options{})
				if want {
					return contained{marked{ex}}, err
				}
				return marked{ex}, err
			},
		}
		ex, err := x.Open(board.Project{Slug: "demo"}, t.TempDir(), "/srv/clone")
		if err != nil {
			t.Fatal(err)
		}
		if got := executor.ContainsProcesses(ex); got != want {
			t.Errorf("ContainsProcesses = %v over a sandbox that says %v", got, want)
		}
	}
}
