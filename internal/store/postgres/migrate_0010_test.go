package postgres_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// TestMigrate_SettingsMoved upgrades a version 9 board, whose agent
// settings were columns, holding a project with every setting away from
// its default and one with the defaults: each reads back the same from
// the settings JSON, and take_backlog stays a column for the pick.
func TestMigrate_SettingsMoved(t *testing.T) {
	u := pgtest.URL(t)
	names, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(names) < 10 {
		t.Fatalf("migrations: %v, %v", names, err)
	}
	script := `CREATE TABLE bonsai_schema (version integer NOT NULL, one boolean PRIMARY KEY DEFAULT true CHECK (one));
		INSERT INTO bonsai_schema (version) VALUES (9);`
	for _, n := range names[:9] {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		script += string(b) + ";\n"
	}
	execSQL(t, u, script+`
		INSERT INTO projects (id, slug, name, repo, default_branch, created_at, updated_at,
			model, verify, budget_usd, ticket_tokens, run_budget_usd, run_tokens, daily_budget_usd, daily_tokens,
			take_backlog, permission_mode, allow_commands, ask_commands, sandbox, network, allow_hosts,
			land, land_style, update_style, engine, thinking, mcp_servers, schedule_tools) VALUES
			('p1', 'set', 'S', '/r', 'main', 0, 0,
			 'openai/gpt-5', 'go test ./...', 2.5, 3, 0.1, 4, 10, 5,
			 true, 'ask', '["go test *"]', '["git push *"]', 'off', 'all', '["*.example.com"]',
			 'pr', 'rebase', 'rebase', 'codex', 'high', '["github"]', true);
		INSERT INTO projects (id, slug, name, repo, default_branch, created_at, updated_at) VALUES
			('p2', 'plain', 'P', '/r', 'main', 0, 0);`)

	db, err := postgres.Open(t.Context(), u)
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
		p, err := db.Project(t.Context(), slug)
		if err != nil || !reflect.DeepEqual(p.Agent, w) {
			t.Errorf("%s after migrating: %+v, %v\nwant %+v", slug, p.Agent, err, w)
		}
	}
	// The pick still reads take_backlog: the project that takes its
	// backlog offers a BACKLOG ticket, the other does not.
	for _, slug := range []string{"set", "plain"} {
		if _, err := db.CreateTicket(t.Context(), board.Ticket{ProjectSlug: slug, Title: "Idea", State: board.Backlog, Priority: 2}, board.Human); err != nil {
			t.Fatal(err)
		}
	}
	ov, err := db.Overview(t.Context(), storeAll)
	if err != nil || len(ov) != 2 {
		t.Fatalf("Overview = %+v, %v", ov, err)
	}
	for _, o := range ov {
		if picked := o.Pick != nil; picked != (o.Project.Slug == "set") {
			t.Errorf("%s: pick %+v", o.Project.Slug, o.Pick)
		}
		if o.Project.Slug == "set" && (o.Project.Agent.PermissionMode != board.ModeAsk || o.Project.Agent.Sandbox != board.SandboxOff) {
			t.Errorf("overview of set: %+v", o.Project.Agent)
		}
	}
}
