package cli

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
)

// TestModelStatuses_LoginProjectsNeedNoKey: a project whose engine CLI
// uses the person's own login is not reported as missing Bonsai's key by
// status, the web banner or up's next steps; the same engine on the
// gateway is.
func TestModelStatuses_LoginProjectsNeedNoKey(t *testing.T) {
	t.Parallel()
	noKeys := func(string) string { return "" }
	login := board.Project{Slug: "sub", Active: true, Agent: board.AgentSettings{
		Engine: board.EngineClaudeCode, EngineAuth: board.EngineAuthLogin, Model: "anthropic/claude-sonnet-4-5"}}
	got := modelStatuses(noKeys, noKeys, config.Default(), []board.Project{login})
	if len(got) != 0 {
		t.Errorf("a login project's model was checked for a key: %+v", got)
	}
	gateway := login
	gateway.Slug, gateway.Agent.EngineAuth = "keyed", board.EngineAuthGateway
	got = modelStatuses(noKeys, noKeys, config.Default(), []board.Project{login, gateway})
	if len(got) != 1 || got[0].Problem == "" || len(got[0].Projects) != 1 || got[0].Projects[0] != "keyed" {
		t.Errorf("statuses = %+v; want the gateway project's model with its missing key", got)
	}
}
