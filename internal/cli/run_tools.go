package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// defaultTools are the coding tools of DESIGN.md §6, in order.
var defaultTools = []string{"read", "write", "edit", "bash", "grep", "find", "ls"}

// readOnlyTools never change the workspace; the agent runs their calls of
// one turn in parallel.
var readOnlyTools = []string{"read", "grep", "find", "ls"}

// skillsPrefix is how the model names files of the user's skills
// directory, which lies outside the workspace.
const skillsPrefix = "~/.bonsai/skills/"

// parseTools checks a --tools list against the known tools.
func parseTools(list string) ([]string, error) {
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(defaultTools, n) {
			return nil, usagef("--tools: unknown tool %q (known: %s)", n, strings.Join(defaultTools, ","))
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// codingTools returns the named tools working through ex. skills, when
// not nil, serves read calls under skillsPrefix.
func codingTools(ex executor.Executor, names []string, skills executor.Executor) []agent.Tool {
	all := tools.New(ex, tools.Options{})
	var out []agent.Tool
	for _, n := range names {
		t := tools.Lookup(all, n)
		if t == nil {
			continue
		}
		at := toolAdapter{t: t}
		if n == "read" && skills != nil {
			at.skills = tools.Lookup(tools.New(skills, tools.Options{}), "read")
		}
		out = append(out, at)
	}
	return out
}

// toolAdapter makes a tools.Tool an agent.Tool.
type toolAdapter struct {
	t      tools.Tool
	skills tools.Tool // read on the user's skills directory, or nil
}

var (
	_ agent.Tool      = toolAdapter{}
	_ agent.ReadOnly  = toolAdapter{}
	_ agent.Validator = toolAdapter{}
)

func (a toolAdapter) Name() string                        { return a.t.Name() }
func (a toolAdapter) Description() string                 { return a.t.Description() }
func (a toolAdapter) Schema() json.RawMessage             { return a.t.Schema() }
func (a toolAdapter) ReadOnly() bool                      { return slices.Contains(readOnlyTools, a.t.Name()) }
func (a toolAdapter) Validate(args json.RawMessage) error { return tools.Validate(a.t, args) }

func (a toolAdapter) Run(ctx context.Context, args json.RawMessage, update func(agent.ToolResult)) (agent.ToolResult, error) {
	t := a.t
	if a.skills != nil {
		if rewritten, ok := skillArgs(args); ok {
			t, args = a.skills, rewritten
		}
	}
	r, err := t.Run(ctx, args, func(p tools.Result) { update(convertResult(p)) })
	return convertResult(r), err
}

// skillArgs rewrites read arguments whose path is under skillsPrefix to a
// path relative to the skills directory.
func skillArgs(args json.RawMessage) (json.RawMessage, bool) {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, false
	}
	p, _ := m["path"].(string)
	rest, ok := strings.CutPrefix(p, skillsPrefix)
	if !ok {
		return nil, false
	}
	m["path"] = rest
	b, err := json.Marshal(m)
	return b, err == nil
}

func convertResult(r tools.Result) agent.ToolResult {
	out := agent.ToolResult{IsError: r.IsError}
	for _, c := range r.Content {
		switch c.Type {
		case "image":
			out.Content = append(out.Content, llm.Image(c.MIMEType, c.Data))
		default:
			out.Content = append(out.Content, llm.Text(c.Text))
		}
	}
	if r.Details != nil {
		if b, err := json.Marshal(r.Details); err == nil {
			out.Details = b
		} else {
			out.Details = json.RawMessage(fmt.Sprintf("%q", err.Error()))
		}
	}
	return out
}
