package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestMigrate_SettingsMoved upgrades a version 21 board, whose agent
// settings were columns, holding a project with every setting away from
// its default and one with the defaults: each reads back the same from
// the settings JSON, take_backlog stays a column for the pick, and the
// old columns are gone.
func TestMigrate_SettingsMoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var script []string
	for _, m := range ms[:21] {
		script = append(script, m.sql)
	}
	if _, err := old.Exec(strings.Join(script, ";\n") + `; PRAGMA user_version = 21;
		INSERT INTO projects (id, slug, name, repo, default_branch, created_at, updated_at,
			model, verify, budget_usd, ticket_tokens, run_budget_usd, run_tokens, daily_budget_usd, daily_tokens,
			take_backlog, permission_mode, allow_commands, ask_commands, sandbox, network, allow_hosts,
			land, land_style, update_style, engine, thinking, mcp_servers, schedule_tools) VALUES
			('p1', 'set', 'S', '/r', 'main', 0, 0,
			 'openai/gpt-5', 'go test ./...', 2.5, 3, 0.1, 4, 10, 5,
			 1, 'ask', '["go test *"]', '["git push *"]', 'off', 'all', '["*.example.com"]',
			 'pr', 'rebase', 'rebase', 'codex', 'high', '["github"]', 1);
		INSERT INTO projects (id, slug, name, repo, default_branch, created_at, updated_at) VALUES
			('p2', 'plain', 'P', '/r', 'main', 0, 0);`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string]board.AgentSettings{
		"set": {Model: "openai/gpt-5", Verify: "go test ./...", BudgetUSD: 2.5, TicketTokens: 3, RunBudgetUSD: 0.1,
			RunTokens: 4, DailyBudgetUSD: 10, DailyTokens: 5, TakeBacklog: true, PermissionMode: board.ModeAsk,
			Allow: []string{"go test *"}, Ask: []string{"git push *"}, Sandbox: board.SandboxOff, Network: board.NetworkAll,
			AllowHosts: []string{"*.example.com"}, Land: board.LandPR, LandStyle: board.LandRebase,
			UpdateStyle: board.UpdateRebase, Engine: board.EngineCodex, Thinking: board.ThinkingHigh,
			MCPServers: []string{"github"}, ScheduleTools: true},
		"plain": {},
	}
	for slug, w := range want {
		p, err := db.Project(ctx, slug)
		if err != nil || !reflect.DeepEqual(p.Agent, w) {
			t.Errorf("%s after migrating: %+v, %v\nwant %+v", slug, p.Agent, err, w)
		}
		var backlog bool
		if err := db.sql.QueryRow(`SELECT take_backlog FROM projects WHERE slug = ?`, slug).Scan(&backlog); err != nil || backlog != w.TakeBacklog {
			t.Errorf("%s: take_backlog column %v, %v", slug, backlog, err)
		}
	}
	if _, err := db.sql.Exec(`SELECT model FROM projects`); err == nil {
		t.Error("the model column is still there")
	}
	if _, err := db.sql.Exec(`UPDATE projects SET settings = '[]'`); err == nil {
		t.Error("the settings column accepts a JSON array")
	}
}
