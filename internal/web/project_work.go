package web

import (
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// workChoice is one choice field of the landing and engine settings: how
// to read it, where it is in the project and in an update.
type workChoice struct {
	field string
	in    *string
	set   func(v string, a *board.AgentSettings, u *board.ProjectPatch) (changed bool, err error)
}

// setChoice parses v with parse and, when it differs from *cur, sets *dst.
func setChoice[T comparable](v string, parse func(string) (T, error), cur *T, dst **T) (bool, error) {
	x, err := parse(v)
	if err != nil {
		return false, err
	}
	if x == *cur {
		return false, nil
	}
	if dst != nil {
		*dst = &x
	}
	*cur = x
	return true, nil
}

// workChoices are the choice fields of e.
func workChoices(e projectEdit) []workChoice {
	return []workChoice{
		{"land", e.Land, func(v string, a *board.AgentSettings, u *board.ProjectPatch) (bool, error) {
			return setChoice(v, board.ParseLandMode, &a.Land, &u.Land)
		}},
		{"landStyle", e.LandStyle, func(v string, a *board.AgentSettings, u *board.ProjectPatch) (bool, error) {
			return setChoice(v, board.ParseLandStyle, &a.LandStyle, &u.LandStyle)
		}},
		{"updateStyle", e.UpdateStyle, func(v string, a *board.AgentSettings, u *board.ProjectPatch) (bool, error) {
			return setChoice(v, board.ParseUpdateStyle, &a.UpdateStyle, &u.UpdateStyle)
		}},
		{"engine", e.Engine, func(v string, a *board.AgentSettings, u *board.ProjectPatch) (bool, error) {
			return setChoice(v, board.ParseEngine, &a.Engine, &u.Engine)
		}},
		{"thinking", e.Thinking, func(v string, a *board.AgentSettings, u *board.ProjectPatch) (bool, error) {
			return setChoice(v, board.ParseThinking, &a.Thinking, &u.Thinking)
		}},
	}
}

// planWork adds to u the landing, engine, thinking, MCP and schedule
// settings of e that change cur, and to errs what is wrong with each.
func planWork(cur board.Project, e projectEdit, u *board.ProjectPatch, errs fieldErrors) {
	a := cur.Agent
	for _, c := range workChoices(e) {
		if c.in == nil {
			continue
		}
		if _, err := c.set(*c.in, &a, u); err != nil {
			errs[c.field] = err.Error()
		}
	}
	if e.MCPServers != nil {
		l, msg := cleanList("mcpServers", *e.MCPServers, board.ValidateMCPName)
		switch {
		case msg != "":
			errs["mcpServers"] = msg
		case slices.Equal(l, cur.Agent.MCPServers):
		default:
			p := cur
			p.Agent.MCPServers = l
			if err := p.Validate(); err != nil {
				errs["mcpServers"] = err.Error()
			} else {
				u.MCPServers = &l
			}
		}
	}
	if e.ScheduleTools != nil && *e.ScheduleTools != cur.Agent.ScheduleTools {
		u.ScheduleTools = e.ScheduleTools
	}
}

// newWork reads the landing, engine, thinking, MCP and schedule settings
// of a project being added (POST /api/projects) into a.
func newWork(in newProjectInput, a *board.AgentSettings) error {
	e := projectEdit{Land: &in.Land, LandStyle: &in.LandStyle, UpdateStyle: &in.UpdateStyle,
		Engine: &in.Engine, Thinking: &in.Thinking}
	var u board.ProjectPatch
	for _, c := range workChoices(e) {
		if _, err := c.set(*c.in, a, &u); err != nil {
			return err
		}
	}
	l, msg := cleanList("mcpServers", in.MCPServers, board.ValidateMCPName)
	if msg != "" {
		return board.Errorf(board.EINVALID, "%s", msg)
	}
	a.MCPServers, a.ScheduleTools = l, in.ScheduleTools
	return nil
}

// parseWorkForm reads the landing, engine, thinking and MCP fields of the
// project settings form (the schedule checkbox is read with the others).
func parseWorkForm(field func(name string) (string, bool), f *projectForm, e *projectEdit) {
	choice := func(name string, shown *string, dst **string) {
		if v, ok := field(name); ok {
			*shown, *dst = v, &v
		}
	}
	choice("land", &f.Land, &e.Land)
	choice("landStyle", &f.LandStyle, &e.LandStyle)
	choice("updateStyle", &f.UpdateStyle, &e.UpdateStyle)
	choice("engine", &f.Engine, &e.Engine)
	choice("thinking", &f.Thinking, &e.Thinking)
	if v, ok := field("mcpServers"); ok {
		f.MCPServers = v
		l := splitLines(strings.ReplaceAll(v, ",", "\n"))
		e.MCPServers = &l
	}
}

// LandChoice is the landing mode field.
func (v projectSettingsView) LandChoice() choiceField {
	return choiceField{Name: "land", Label: "Land approved work", Value: v.Form.Land, Error: v.Errors["land"],
		Options: []choiceOption{
			{"auto", "auto", "merge for a repository that is a local path; a pull request when the remote is on GitHub, GitLab or Gitea and a forge token is stored; else none"},
			{"merge", "merge", "approving merges the ticket branch into the default branch, and pushes it when the project has a remote"},
			{"pr", "pull request", "a ticket reaching Verification opens a pull request; reviews on the forge come back to the ticket, and approving merges it through the forge"},
			{"none", "none", "the work stays on the ticket branch; the ticket page says how to merge it"},
		}}
}

// LandStyleChoice is the landing style field.
func (v projectSettingsView) LandStyleChoice() choiceField {
	return choiceField{Name: "landStyle", Label: "Merge style", Value: v.Form.LandStyle, Error: v.Errors["landStyle"],
		Options: []choiceOption{
			{"squash", "squash", "one commit, its message built from the ticket's title, number and criteria"},
			{"merge", "merge", "a fast-forward when possible, else a merge commit"},
			{"rebase", "rebase", "the ticket's commits replayed on the default branch"},
		}}
}

// UpdateStyleChoice is the update style field.
func (v projectSettingsView) UpdateStyleChoice() choiceField {
	return choiceField{Name: "updateStyle", Label: "Keep branches current", Value: v.Form.UpdateStyle, Error: v.Errors["updateStyle"],
		Options: []choiceOption{
			{"merge", "merge", "before Verification and before landing, the default branch is merged into the ticket branch; its history is never rewritten"},
			{"rebase", "rebase", "the ticket branch is rebased on the default branch instead"},
		}}
}

// EngineChoice is the engine field.
func (v projectSettingsView) EngineChoice() choiceField {
	return choiceField{Name: "engine", Label: "Engine", Value: v.Form.Engine, Error: v.Errors["engine"],
		Options: []choiceOption{
			{"bonsai", "Bonsai", "Bonsai's own agent, with the project's model"},
			{"claude-code", "Claude Code", "the claude CLI, with its own tools and subscription"},
			{"codex", "Codex", "the codex CLI"},
			{"opencode", "OpenCode", "the opencode CLI"},
		}}
}

// ThinkingChoice is the thinking field.
func (v projectSettingsView) ThinkingChoice() choiceField {
	return choiceField{Name: "thinking", Label: "Thinking", Value: v.Form.Thinking, Error: v.Errors["thinking"],
		Options: []choiceOption{
			{"default", "default", "config.json's agent.thinking and its per-task levels"},
			{"off", "off", "no extended thinking"},
			{"low", "low", "a little, for quick tasks"},
			{"medium", "medium", "more, for research and planning"},
			{"high", "high", "the most, for hard problems; costs the most tokens"},
		}}
}

// MCPField is the project's MCP servers.
func (v projectSettingsView) MCPField() linesField {
	return linesField{Name: "mcpServers", Label: "MCP servers", Value: v.Form.MCPServers, Placeholder: "github", Error: v.Errors["mcpServers"],
		Help: "Servers of config.json's mcp.servers that ticket runs use, one name a line. Their tools go through the command policy like any other."}
}
