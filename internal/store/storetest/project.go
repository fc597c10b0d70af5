package storetest

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var projectCases = []testCase{
	{"CreateAndRead", testProjectCreateAndRead},
	{"Validation", testProjectValidation},
	{"DuplicateSlug", testProjectDuplicateSlug},
	{"NotFound", testProjectNotFound},
	{"ListAndArchive", testProjectListAndArchive},
	{"Update", testProjectUpdate},
	{"Settings", testProjectSettings},
}

func testProjectCreateAndRead(t *testing.T, s store.Store, clock *clock) {
	before := lastEventID(t, s)
	in := newProject("demo")
	in.Agent = board.AgentSettings{Model: "anthropic/claude-sonnet-4-5", BudgetUSD: 2.5, Verify: "go test ./...",
		TicketTokens: 400000, RunBudgetUSD: 0.5, RunTokens: 50000, DailyBudgetUSD: 20, DailyTokens: 3000000}
	in.Active = false // ignored: a new project is active
	p, err := s.CreateProject(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if p.ID == "" || !p.Active {
		t.Errorf("created project has ID %q, active %v; want an ID and active", p.ID, p.Active)
	}
	wantRecent(t, "CreatedAt", p.CreatedAt)
	if !p.UpdatedAt.Equal(p.CreatedAt) {
		t.Errorf("UpdatedAt %v != CreatedAt %v on a new project", p.UpdatedAt, p.CreatedAt)
	}
	want := in
	want.ID, want.Active, want.CreatedAt, want.UpdatedAt = p.ID, true, p.CreatedAt, p.UpdatedAt
	same(t, "created project", p, want)
	got, err := s.Project(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "read project", got, p)

	es := wantEvents(t, s, before, board.EventProjectCreated)
	if len(es) == 1 && (es[0].ProjectID != p.ID || es[0].Actor != board.Human) {
		t.Errorf("event = %+v, want project %s by human", es[0], p.ID)
	}

	other := mustProject(t, s, "other")
	if other.ID == p.ID {
		t.Errorf("two projects share ID %s", p.ID)
	}
}

func testProjectValidation(t *testing.T, s store.Store, clock *clock) {
	before := lastEventID(t, s)
	for _, tc := range []struct {
		name string
		edit func(*board.Project)
		msg  string
	}{
		{"bad slug", func(p *board.Project) { p.Slug = "Has Space" }, "project slug"},
		{"empty slug", func(p *board.Project) { p.Slug = "" }, "project slug is empty"},
		{"empty name", func(p *board.Project) { p.Name = " " }, "project name is empty"},
		{"no repo", func(p *board.Project) { p.Repo = "" }, "project repo is required"},
		{"bad branch", func(p *board.Project) { p.DefaultBranch = "a b" }, "not a valid git branch name"},
		{"bad model", func(p *board.Project) { p.Agent.Model = "gpt" }, "must look like provider/model"},
		{"negative budget", func(p *board.Project) { p.Agent.BudgetUSD = -1 }, "budget"},
		{"negative ticket tokens", func(p *board.Project) { p.Agent.TicketTokens = -1 }, "ticket tokens must be 0"},
		{"negative run budget", func(p *board.Project) { p.Agent.RunBudgetUSD = -0.5 }, "run budget must be 0"},
		{"negative run tokens", func(p *board.Project) { p.Agent.RunTokens = -1 }, "run tokens must be 0"},
		{"negative daily budget", func(p *board.Project) { p.Agent.DailyBudgetUSD = -2 }, "daily budget must be 0"},
		{"negative daily tokens", func(p *board.Project) { p.Agent.DailyTokens = -3 }, "daily tokens must be 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject("demo")
			tc.edit(&p)
			_, err := s.CreateProject(t.Context(), p)
			wantCode(t, err, board.EINVALID, tc.msg)
		})
	}
	ps, err := s.Projects(t.Context(), store.ProjectFilter{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 0 {
		t.Errorf("invalid projects were stored: %+v", ps)
	}
	wantEvents(t, s, before)
}

func testProjectDuplicateSlug(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	before := lastEventID(t, s)
	_, err := s.CreateProject(t.Context(), newProject("demo"))
	wantCode(t, err, board.ECONFLICT, `project "demo" already exists`)
	wantEvents(t, s, before)

	// Archived projects keep their slug.
	if _, err := s.ArchiveProject(t.Context(), "demo"); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreateProject(t.Context(), newProject("demo"))
	wantCode(t, err, board.ECONFLICT, `project "demo" already exists`)
}

func testProjectNotFound(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	ctx := t.Context()
	const msg = `project "nope" not found`
	_, err := s.Project(ctx, "nope")
	wantCode(t, err, board.ENOTFOUND, msg)
	name := "x"
	_, err = s.UpdateProject(ctx, "nope", board.ProjectPatch{Name: &name})
	wantCode(t, err, board.ENOTFOUND, msg)
	_, err = s.ArchiveProject(ctx, "nope")
	wantCode(t, err, board.ENOTFOUND, msg)
	_, err = s.CreateTicket(ctx, board.Ticket{ProjectSlug: "nope", Title: "t"}, board.Human)
	wantCode(t, err, board.ENOTFOUND, msg)
	_, err = s.Tickets(ctx, store.TicketFilter{ProjectSlug: "nope"})
	wantCode(t, err, board.ENOTFOUND, msg)
	_, err = s.Pick(ctx, "nope")
	wantCode(t, err, board.ENOTFOUND, msg)
}

func testProjectListAndArchive(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	ps, err := s.Projects(ctx, store.ProjectFilter{})
	if err != nil || len(ps) != 0 {
		t.Fatalf("Projects on an empty store = %v, %v; want none", ps, err)
	}
	for _, slug := range []string{"zeta", "alpha", "mid"} {
		mustProject(t, s, slug)
	}
	tk := ticketIn(t, s, "mid", board.InProgress)
	clock.tick()

	before := lastEventID(t, s)
	p, err := s.ArchiveProject(ctx, "mid")
	if err != nil {
		t.Fatal(err)
	}
	if p.Active || !p.UpdatedAt.After(p.CreatedAt) {
		t.Errorf("archived project: active %v, updated %v, created %v; want inactive and updated later", p.Active, p.UpdatedAt, p.CreatedAt)
	}
	wantEvents(t, s, before, board.EventProjectArchived)
	same(t, "archived project read back", mustProjectGet(t, s, "mid"), p)

	// Archiving again changes nothing.
	before = lastEventID(t, s)
	again, err := s.ArchiveProject(ctx, "mid")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "archived twice", again, p)
	wantEvents(t, s, before)

	slugs := func(f store.ProjectFilter) []string {
		ps, err := s.Projects(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Slug)
		}
		return out
	}
	same(t, "active projects", slugs(store.ProjectFilter{}), []string{"alpha", "zeta"})
	same(t, "all projects", slugs(store.ProjectFilter{IncludeArchived: true}), []string{"alpha", "mid", "zeta"})

	// The archived project keeps its tickets.
	same(t, "ticket of the archived project", mustGet(t, s, tk.Ref()), tk)
	if picks := pickRefs(t, s, ""); len(picks) != 0 {
		t.Errorf("picks with the only pickable ticket's project archived = %v, want none", picks)
	}

	// Restoring makes it active again, and its tickets pickable.
	clock.tick()
	before = lastEventID(t, s)
	restored, err := s.RestoreProject(ctx, "mid")
	if err != nil {
		t.Fatal(err)
	}
	if !restored.Active || !restored.UpdatedAt.After(p.UpdatedAt) {
		t.Errorf("restored project: active %v, updated %v; want active and updated after %v", restored.Active, restored.UpdatedAt, p.UpdatedAt)
	}
	wantEvents(t, s, before, board.EventProjectRestored)
	same(t, "restored project read back", mustProjectGet(t, s, "mid"), restored)
	same(t, "active projects after restoring", slugs(store.ProjectFilter{}), []string{"alpha", "mid", "zeta"})
	same(t, "picks after restoring", pickRefs(t, s, ""), map[string]board.PickClass{tk.Ref().String(): board.ClassInProgress})

	// Restoring an active project changes nothing; an unknown one is not found.
	before = lastEventID(t, s)
	again, err = s.RestoreProject(ctx, "mid")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "restored twice", again, restored)
	wantEvents(t, s, before)
	if _, err := s.RestoreProject(ctx, "nope"); board.ErrorCode(err) != board.ENOTFOUND {
		t.Errorf("RestoreProject(nope) = %v, want ENOTFOUND", err)
	}
}

func mustProjectGet(t *testing.T, s store.Store, slug string) board.Project {
	t.Helper()
	p, err := s.Project(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testProjectUpdate(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	p := mustProject(t, s, "demo")
	clock.tick()

	before := lastEventID(t, s)
	name, repo, branch, model, verify, budget := "Renamed", "git@example.com:x/y.git", "trunk", "openai/gpt-5", "make test", 7.5
	var ticketTokens, runTokens, dailyTokens int64 = 100000, 20000, 900000
	runUSD, dailyUSD := 0.75, 15.0
	takeBacklog, mode := true, board.ModeReadOnly
	allow, ask, hosts := []string{"go test *", "make"}, []string{"git push *"}, []string{"*.example.com", "10.0.0.1:3128"}
	sandbox, network := board.SandboxOff, board.NetworkNone
	land, landStyle, update := board.LandPR, board.LandRebase, board.UpdateRebase
	engine, thinking, mcp, schedules := board.EngineClaudeCode, board.ThinkingHigh, []string{"github", "files"}, true
	got, err := s.UpdateProject(ctx, "demo", board.ProjectPatch{
		Land: &land, LandStyle: &landStyle, UpdateStyle: &update, Engine: &engine, Thinking: &thinking,
		MCPServers: &mcp, ScheduleTools: &schedules,
		Name: &name, Repo: &repo, DefaultBranch: &branch, Model: &model, Verify: &verify, BudgetUSD: &budget,
		TicketTokens: &ticketTokens, RunBudgetUSD: &runUSD, RunTokens: &runTokens, DailyBudgetUSD: &dailyUSD, DailyTokens: &dailyTokens,
		TakeBacklog: &takeBacklog, PermissionMode: &mode,
		Allow: &allow, Ask: &ask, Sandbox: &sandbox, Network: &network, AllowHosts: &hosts,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := p
	want.Name, want.Repo, want.DefaultBranch = name, repo, branch
	want.Agent = board.AgentSettings{Model: model, Verify: verify, BudgetUSD: budget,
		TicketTokens: ticketTokens, RunBudgetUSD: runUSD, RunTokens: runTokens, DailyBudgetUSD: dailyUSD, DailyTokens: dailyTokens,
		TakeBacklog: true, PermissionMode: board.ModeReadOnly,
		Allow: allow, Ask: ask, Sandbox: board.SandboxOff, Network: board.NetworkNone, AllowHosts: hosts,
		Land: land, LandStyle: landStyle, UpdateStyle: update, Engine: engine, Thinking: thinking,
		MCPServers: mcp, ScheduleTools: true}
	want.UpdatedAt = got.UpdatedAt
	same(t, "updated project", got, want)
	if !got.UpdatedAt.After(p.UpdatedAt) {
		t.Errorf("UpdatedAt %v not after %v", got.UpdatedAt, p.UpdatedAt)
	}
	same(t, "updated project read back", mustProjectGet(t, s, "demo"), got)
	wantEvents(t, s, before, board.EventProjectUpdated)

	// Setting the same values changes nothing.
	before = lastEventID(t, s)
	again, err := s.UpdateProject(ctx, "demo", board.ProjectPatch{Name: &name, Model: &model})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "no-op update", again, got)
	wantEvents(t, s, before)

	// Emptied lists read back as none.
	none := []string{}
	cleared, err := s.UpdateProject(ctx, "demo", board.ProjectPatch{Allow: &none, AllowHosts: &none})
	if err != nil || cleared.Agent.Allow != nil || cleared.Agent.AllowHosts != nil {
		t.Fatalf("clearing the lists: %+v, %v", cleared.Agent, err)
	}
	same(t, "cleared lists read back", mustProjectGet(t, s, "demo"), cleared)
	if _, err := s.UpdateProject(ctx, "demo", board.ProjectPatch{Allow: &allow, AllowHosts: &hosts}); err != nil {
		t.Fatal(err)
	}
	got = mustProjectGet(t, s, "demo")
	before = lastEventID(t, s)

	// An invalid value changes nothing.
	bad := "not a model"
	_, err = s.UpdateProject(ctx, "demo", board.ProjectPatch{Name: &verify, Model: &bad})
	wantCode(t, err, board.EINVALID, "provider/model")
	badEngine, badMCP := board.Engine("aider"), []string{"files", "Bad Name"}
	_, err = s.UpdateProject(ctx, "demo", board.ProjectPatch{Name: &verify, Engine: &badEngine})
	wantCode(t, err, board.EINVALID, "engine")
	_, err = s.UpdateProject(ctx, "demo", board.ProjectPatch{Name: &verify, MCPServers: &badMCP})
	wantCode(t, err, board.EINVALID, "MCP server name")
	same(t, "project after a refused update", mustProjectGet(t, s, "demo"), got)
	wantEvents(t, s, before)
}
