package text

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// TestWriteProject: settings read as words, only the caps the project
// sets are listed, and every state is counted.
func TestWriteProject(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main", CreatedAt: now,
		Agent: board.AgentSettings{PermissionMode: board.ModePlan, TakeBacklog: true, BudgetUSD: 2.5, TicketTokens: 1000, DailyTokens: 50}}
	var b bytes.Buffer
	if err := WriteProject(&b, view.ProjectDetail{Project: p, Counts: view.NewStateCounts(map[board.State]int{board.Done: 4})}, now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Project:     Demo (demo)\n", "Status:      archived\n", "Model:       default (config.json)\n", "Verify:      -\n",
		"agents take BACKLOG tickets", "a person approves each plan",
		"Budget:      $2.50 or 1000 tokens per ticket, 50 tokens per day\n",
		"DONE 4",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("project lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	p.Agent = board.AgentSettings{}
	if err := WriteProject(&b, view.ProjectDetail{Project: p}, now); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Budget:") {
		t.Errorf("a project without caps shows a budget:\n%s", b.String())
	}
}

func TestWriteProjects(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	ps := []board.Project{{Slug: "a", Name: "A", Active: true}, {Slug: "old", Name: "Old"}}
	if err := WriteProjects(&b, ps, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "old (archived)") || strings.Contains(b.String(), "a (archived)") {
		t.Errorf("projects =\n%s", b.String())
	}
}

// The settings the table lists in a shared row (the sandbox limits) are
// shown there when set, and settings this version does not know are
// reported, not hidden.
func TestWriteProject_TableRowsAndUnknown(t *testing.T) {
	t.Parallel()
	p := board.Project{Slug: "demo", Name: "Demo", Agent: board.AgentSettings{LimitProcesses: 64, LimitMemoryMiB: 512,
		Unknown: map[string]json.RawMessage{"agentsPerMoon": json.RawMessage("3"), "future": json.RawMessage(`"x"`)}}}
	var b bytes.Buffer
	if err := WriteProject(&b, view.ProjectDetail{Project: p}, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Limits:            memory 512 MiB, processes 64\n",
		"Unknown settings:  agentsPerMoon, future (kept as stored; a newer bonsai wrote them)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("project lacks %q:\n%s", want, b.String())
		}
	}
}

// An engine using the person's own login is shown with the risk it
// carries, next to the setting; the default (the gateway) is not listed.
func TestWriteProject_EngineLoginShowsTheRisk(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		auth board.EngineAuth
		want bool
	}{{board.EngineAuthLogin, true}, {board.EngineAuthGateway, false}} {
		p := board.Project{Slug: "demo", Name: "Demo", Agent: board.AgentSettings{Engine: board.EngineClaudeCode, EngineAuth: c.auth}}
		var b bytes.Buffer
		if err := WriteProject(&b, view.ProjectDetail{Project: p}, time.Now()); err != nil {
			t.Fatal(err)
		}
		line := regexp.MustCompile(`(?m)^Credentials: +engine login \(the agent's commands run beside your login's credential file and can read it`)
		if got := line.MatchString(b.String()); got != c.want {
			t.Errorf("engine auth %q: shows the login line %v, want %v:\n%s", c.auth, got, c.want, b.String())
		}
	}
}
