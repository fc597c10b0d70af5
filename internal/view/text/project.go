package text

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// WriteProjects writes the rows of `bonsai project list`; archived projects
// are marked.
func WriteProjects(w io.Writer, ps []board.Project, now time.Time) error {
	t := NewTable(w, "SLUG", "NAME", "BRANCH", "REPO", "CREATED")
	for _, p := range ps {
		slug := p.Slug
		if !p.Active {
			slug += " (archived)"
		}
		t.Row(slug, p.Name, p.DefaultBranch, p.Repo, RelTime(now, p.CreatedAt))
	}
	return t.Flush()
}

// WriteProject writes `bonsai project show`: the project's settings, in
// words, and its ticket counts.
func WriteProject(w io.Writer, d view.ProjectDetail, now time.Time) error {
	p := d.Project
	status := "active"
	if !p.Active {
		status = "archived"
	}
	t := NewTable(w)
	t.Row("Project:", fmt.Sprintf("%s (%s)", p.Name, p.Slug))
	t.Row("Status:", status)
	t.Row("Repository:", p.Repo)
	t.Row("Branch:", p.DefaultBranch)
	t.Row("Model:", orDefault(p.Agent.Model, "default (config.json)"))
	t.Row("Verify:", orDefault(p.Agent.Verify, "-"))
	backlog := "people move tickets out of BACKLOG"
	if p.Agent.TakeBacklog {
		backlog = "agents take BACKLOG tickets when nothing else waits"
	}
	t.Row("Backlog:", backlog)
	t.Row("Mode:", modeText(p.Agent.PermissionMode))
	if len(p.Agent.Allow) > 0 {
		t.Row("Allowed:", strings.Join(p.Agent.Allow, "; "))
	}
	if len(p.Agent.Ask) > 0 {
		t.Row("Asked:", strings.Join(p.Agent.Ask, "; "))
	}
	t.Row("Sandbox:", sandboxText(p.Agent))
	t.Row("Landing:", landText(p.Agent))
	if p.Agent.Engine != board.EngineBonsai || p.Agent.Thinking != board.ThinkingDefault {
		t.Row("Engine:", fmt.Sprintf("%s, thinking %s", p.Agent.Engine, p.Agent.Thinking))
	}
	if len(p.Agent.MCPServers) > 0 {
		t.Row("MCP servers:", strings.Join(p.Agent.MCPServers, ", "))
	}
	if p.Agent.ScheduleTools {
		t.Row("Schedules:", "agents may create, list and cancel schedules")
	}
	if caps := budgetText(p.Agent); len(caps) > 0 {
		t.Row("Budget:", strings.Join(caps, ", "))
	}
	for _, r := range settingRows(p.Agent) {
		t.Row(r[0]+":", r[1])
	}
	if len(p.Agent.Unknown) > 0 {
		t.Row("Unknown settings:", strings.Join(slices.Sorted(maps.Keys(p.Agent.Unknown)), ", ")+
			" (kept as stored; a newer bonsai wrote them)")
	}
	t.Row("Created:", RelTime(now, p.CreatedAt))
	var counts []string
	for _, s := range board.States {
		counts = append(counts, fmt.Sprintf("%s %d", s, d.Counts[s]))
	}
	t.Row("Tickets:", strings.Join(counts, "  "))
	return t.Flush()
}

// settingRows are the rows of the settings that board.Settings lists in
// a shared row (Setting.Row), in table order: each row lists its settings
// that are not at their default, such as "Limits: processes 64, tmp 16 MiB".
func settingRows(a board.AgentSettings) [][2]string {
	var rows [][2]string
	at := map[string]int{}
	for _, s := range board.Settings {
		if s.Row == "" || s.IsDefault(a) {
			continue
		}
		v := s.Label + " " + s.Format(a)
		if s.Unit != "" {
			v += " " + s.Unit
		}
		if s.Note != "" {
			v += " (" + s.Note + ")"
		}
		if i, ok := at[s.Row]; ok {
			rows[i][1] += ", " + v
			continue
		}
		at[s.Row] = len(rows)
		rows = append(rows, [2]string{s.Row, v})
	}
	return rows
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// budgetText describes a project's own caps, or nothing when it has none
// (config.json's caps apply).
func budgetText(s board.AgentSettings) []string {
	var out []string
	add := func(usd float64, tokens int64, per string) {
		switch {
		case usd > 0 && tokens > 0:
			out = append(out, fmt.Sprintf("%s or %d tokens per %s", board.USD(usd), tokens, per))
		case usd > 0:
			out = append(out, fmt.Sprintf("%s per %s", board.USD(usd), per))
		case tokens > 0:
			out = append(out, fmt.Sprintf("%d tokens per %s", tokens, per))
		}
	}
	add(s.RunBudgetUSD, s.RunTokens, "run")
	add(s.BudgetUSD, s.TicketTokens, "ticket")
	add(s.DailyBudgetUSD, s.DailyTokens, "day")
	return out
}

// modeText says what a permission mode lets agents do.
func modeText(m board.PermissionMode) string {
	switch m {
	case board.ModePlan:
		return "plan: a person approves each plan before agents implement it"
	case board.ModeAsk:
		return "ask: a person approves each command not on the allow list"
	case board.ModeReadOnly:
		return "read-only: agents research and plan; they change nothing"
	}
	return "auto: agents implement the plans they save"
}

// sandboxText says where the project's commands run and what they reach.
func sandboxText(a board.AgentSettings) string {
	if a.Sandbox == board.SandboxOff {
		return "OFF: commands run on the host as you (bonsai project edit <slug> --sandbox required)"
	}
	s := "required, network " + a.Network.String()
	if a.Network == board.NetworkProxy && len(a.AllowHosts) > 0 {
		s += " (also " + strings.Join(a.AllowHosts, ", ") + ")"
	}
	return s
}

// landText says how approved work reaches the default branch.
func landText(a board.AgentSettings) string {
	s := a.Land.String()
	if a.Land != board.LandNone && a.Land != board.LandPR {
		s += ", " + a.LandStyle.String()
	}
	return s + "; branches kept current by " + a.UpdateStyle.String()
}
