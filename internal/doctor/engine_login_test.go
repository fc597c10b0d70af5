package doctor

import (
	"errors"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Each active project in the login mode is checked: a missing login
// fails with the reason and the way back to the gateway, a login found
// is named with its risk; other projects are not listed.
func TestEngineLogins(t *testing.T) {
	t.Parallel()
	login := board.AgentSettings{Engine: board.EngineClaudeCode, EngineAuth: board.EngineAuthLogin}
	projects := []board.Project{
		{Slug: "sub", Active: true, Agent: login},
		{Slug: "nologin", Active: true, Agent: login},
		{Slug: "gw", Active: true, Agent: board.AgentSettings{Engine: board.EngineClaudeCode}},
		{Slug: "old", Agent: login},
	}
	checks := EngineLogins(projects, func(p board.Project) (string, error) {
		if p.Slug == "nologin" {
			return "", errors.New("run 'claude auth login'")
		}
		return "/home/u/.claude/.credentials.json", nil
	})
	if len(checks) != 2 {
		t.Fatalf("checks %+v", checks)
	}
	if c := checks[0]; c.Status != OK || !strings.Contains(c.Detail, ".credentials.json") || !strings.Contains(c.Detail, "can read it") {
		t.Errorf("login found: %+v", c)
	}
	if c := checks[1]; c.Status != Fail || !strings.Contains(c.Detail, "claude auth login") || !strings.Contains(c.Fix, "--engine-auth gateway") {
		t.Errorf("no login: %+v", c)
	}
}
