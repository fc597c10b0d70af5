package gate_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// mcpTool stands for a tool of an MCP server; it counts its runs.
type mcpTool struct {
	name     string
	readOnly bool
	runs     *int
}

func (m mcpTool) Name() string            { return m.name }
func (m mcpTool) Description() string     { return "an MCP tool" }
func (m mcpTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (m mcpTool) ReadOnly() bool          { return m.readOnly }
func (m mcpTool) Run(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
	*m.runs++
	return tool.Text("ran"), nil
}

func TestMCPToolsAreJudged(t *testing.T) {
	for _, tt := range []struct {
		mode     policy.Mode
		allow    []string
		askPat   []string
		readOnly bool
		asker    bool
		ran      bool
		want     string
	}{
		{mode: policy.ModeAuto, ran: true},
		{mode: policy.ModeAsk, readOnly: true, ran: true},
		{mode: policy.ModeAsk, want: "held for a person's approval (ask-mode)"},
		{mode: policy.ModeAsk, allow: []string{"mcp__github__create_issue"}, ran: true},
		{mode: policy.ModeAsk, asker: true, ran: true},
		{mode: policy.ModeReadOnly, readOnly: true, ran: true},
		{mode: policy.ModeReadOnly, want: "held for a person's approval (read-only-unknown)"},
		{mode: policy.ModeAuto, askPat: []string{"mcp__github__create_issue"}, readOnly: true, want: "(ask-pattern)"},
	} {
		runs := 0
		var asked string
		c := gate.Config{Policy: policy.Config{Mode: tt.mode, Allow: tt.allow, Ask: tt.askPat}}
		if tt.asker {
			c.Ask = func(_ context.Context, command string, d policy.Decision) gate.Answer {
				asked = command
				return gate.Answer{Allow: true}
			}
		}
		ts := gate.Wrap([]tool.Tool{mcpTool{name: "mcp__github__create_issue", readOnly: tt.readOnly, runs: &runs}}, c)
		r := tool.Call(context.Background(), ts[0], json.RawMessage(`{"title":"x"}`), nil)
		if tt.ran != (runs == 1) || tt.ran == r.IsError {
			t.Errorf("%+v: ran %d times, result %+v", tt, runs, r)
		}
		if tt.want != "" && !strings.Contains(r.Text(), tt.want) {
			t.Errorf("%+v: result %q, want %q", tt, r.Text(), tt.want)
		}
		if tt.asker && asked != `mcp__github__create_issue {"title":"x"}` {
			t.Errorf("asked about %q", asked)
		}
	}
}
