package agentexec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// A ticket of a project whose engine runs with the person's login gets
// the person's credential file (from the person's home) bound read-write
// where the CLI reads it in the ticket's engine home, over an empty file
// the runtime wrote in place of the link the agent planted there, and
// the provider's hosts in its proxy's allow list. Without the login the
// sandbox is not opened; in the gateway mode neither bind nor hosts.
func TestOpen_EngineLogin(t *testing.T) {
	t.Parallel()
	d := config.Dir(t.TempDir())
	home := t.TempDir()
	var got Spec
	x := &Executors{Data: d, Home: home, Available: func() error { return nil },
		Engines: map[board.Engine]engine.Engine{board.EngineClaudeCode: engine.Claude{}},
		OpenSandbox: func(root string, s Spec) (Closer, error) {
			got = s
			ex, err := local.New(root, local.Options{})
			return marked{ex}, err
		}}
	root := filepath.Join(d.Worktrees(), "demo", "7")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	p := board.Project{Slug: "demo", Agent: board.AgentSettings{Engine: board.EngineClaudeCode, EngineAuth: board.EngineAuthLogin}}
	if _, err := x.Open(p, root, "/srv/clone"); err == nil || !strings.Contains(err.Error(), "claude auth login") {
		t.Fatalf("Open without a login = %v", err)
	}
	cred := filepath.Join(home, ".claude", ".credentials.json")
	if err := os.MkdirAll(filepath.Dir(cred), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cred, []byte("login"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, engineHome, err := engine.StateDirs(d.Path(), "demo", 7)
	if err != nil {
		t.Fatal(err)
	}
	at := filepath.Join(engineHome, "claude-code", ".credentials.json")
	// The agent planted a link where the mount point goes.
	secret := filepath.Join(t.TempDir(), "host-file")
	if err := os.MkdirAll(filepath.Dir(at), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, at); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Open(p, root, "/srv/clone"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Binds, Bind{Host: cred, At: at}) {
		t.Errorf("binds %+v lack the login at %s", got.Binds, at)
	}
	if fi, err := os.Lstat(at); err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
		t.Errorf("mount point %v, %v: want an empty file in place of the link", fi, err)
	}
	if _, err := os.Lstat(secret); !os.IsNotExist(err) {
		t.Errorf("the link was followed: %v", err)
	}
	if !slices.Contains(got.Allow, "api.anthropic.com") || !slices.Contains(got.Allow, "platform.claude.com") {
		t.Errorf("allow list %v lacks the provider's hosts", got.Allow)
	}

	p.Agent.EngineAuth = board.EngineAuthGateway
	if _, err := x.Open(p, root, "/srv/clone"); err != nil {
		t.Fatal(err)
	}
	for _, b := range got.Binds {
		if b.At != "" || b.Host == cred {
			t.Errorf("the gateway mode binds %+v", b)
		}
	}
	if slices.Contains(got.Allow, "api.anthropic.com") {
		t.Errorf("the gateway mode allows the provider: %v", got.Allow)
	}
}
