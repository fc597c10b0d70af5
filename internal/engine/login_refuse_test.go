package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// In the login mode no command line or environment holds Bonsai's key,
// a gateway or the provider's base URL; the gateway mode's does.
func TestLoginCommandHoldsNoGatewayKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		e     engine.Engine
		wire  engine.Endpoint
		login string // a file of the home files, the login's mount point
	}{
		{engine.Claude{}, engine.Endpoint{Provider: "anthropic", Model: "m"}, ".credentials.json"},
		{engine.Codex{}, engine.Endpoint{Provider: "openai", Responses: true, Model: "m"}, "auth.json"},
		{engine.OpenCode{}, engine.Endpoint{Provider: "anthropic", Model: "m"}, "data/opencode/auth.json"},
	} {
		for _, login := range []bool{false, true} {
			ep := c.wire
			ep.BaseURL, ep.Key = "http://127.0.0.1:9/gw", "bonsai-run-token"
			if login {
				ep.BaseURL, ep.Key = "", ""
			}
			ep.Wire = llm.WireAnthropicMessages
			cmd, err := c.e.Command(engine.Invocation{Bin: "cli", Endpoint: ep, HomeDir: "/h", ConfigDir: "/c", Login: login})
			if err != nil {
				t.Fatalf("%s login=%v: %v", c.e.Name(), login, err)
			}
			all := strings.Join(cmd.Argv, " ") + " " + strings.Join(cmd.Env, " ")
			for _, bad := range []string{"bonsai-run-token", "127.0.0.1:9", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "model_providers.bonsai", "apiKey", "baseURL"} {
				if login && strings.Contains(all, bad) {
					t.Errorf("%s in the login mode: %q in the command", c.e.Name(), bad)
				}
			}
			if !login && (!strings.Contains(all, "bonsai-run-token") || !strings.Contains(all, "127.0.0.1:9")) {
				t.Errorf("%s in the gateway mode: no gateway in the command:\n%s", c.e.Name(), all)
			}
			if _, ok := cmd.HomeFiles[c.login]; ok != login {
				t.Errorf("%s login=%v: mount point %s written: %v", c.e.Name(), login, c.login, ok)
			}
		}
	}
}

// A project in the login mode whose CLI has no login is refused before
// the CLI starts, by the skip check and by the run, with the command that
// logs in; without the sandbox (which binds the login in) too.
func TestLoginRefusedWithoutTheLoginOrTheSandbox(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bin := filepath.Join(t.TempDir(), "claude")
	r, err := engine.New(engine.Options{Engine: engine.Claude{}, DataDir: t.TempDir(), Home: home,
		Locate: func(engine.Engine) (string, error) { return bin, nil }})
	if err != nil {
		t.Fatal(err)
	}
	d := &engine.Dispatch{Engines: map[board.Engine]agentjob.AgentRunner{board.EngineClaudeCode: r}}
	p := board.Project{Slug: "demo", Agent: board.AgentSettings{Engine: board.EngineClaudeCode, EngineAuth: board.EngineAuthLogin}}
	want := "run 'claude auth login'"
	if err := d.ReadyFor(p, "anthropic/claude-sonnet-4-5"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadyFor without a login = %v, want %q", err, want)
	}
	out, err := r.RunAgent(context.Background(), agentjob.Job{Brief: agentjob.Brief{Project: p}, Model: "anthropic/claude-sonnet-4-5"})
	if err != nil || out.Status != board.RunError || !strings.Contains(out.Error, want) {
		t.Errorf("run without a login = %+v, %v", out, err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", ".credentials.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.ReadyFor(p, "anthropic/claude-sonnet-4-5"); err != nil {
		t.Errorf("ReadyFor with a login and no key = %v", err)
	}
	p.Agent.Sandbox = board.SandboxOff
	if err := d.ReadyFor(p, "anthropic/claude-sonnet-4-5"); err == nil || !strings.Contains(err.Error(), "needs the sandbox") {
		t.Errorf("ReadyFor with the sandbox off = %v", err)
	}
	// The gateway mode still needs Bonsai's key.
	p.Agent.EngineAuth, p.Agent.Sandbox = board.EngineAuthGateway, ""
	if err := d.ReadyFor(p, "anthropic/claude-sonnet-4-5"); err == nil || !strings.Contains(err.Error(), "no API key") {
		t.Errorf("ReadyFor in the gateway mode without a key = %v", err)
	}
}
