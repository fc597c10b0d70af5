package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// fakeTool is a tool whose behaviour is a function field.
type fakeTool struct {
	name     string
	schema   string
	readOnly bool
	run      func(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error)
}

func (f *fakeTool) Name() string        { return f.name }
func (f *fakeTool) Description() string { return "The " + f.name + " tool." }
func (f *fakeTool) Schema() json.RawMessage {
	if f.schema == "" {
		return json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)
	}
	return json.RawMessage(f.schema)
}
func (f *fakeTool) ReadOnly() bool { return f.readOnly }
func (f *fakeTool) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	return f.run(ctx, args, update)
}

// echo returns a tool that answers "<name> <args>".
func echo(name string, readOnly bool) *fakeTool {
	return &fakeTool{name: name, readOnly: readOnly, run: func(_ context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
		return tool.Text(name + " " + string(args)), nil
	}}
}

// recorder keeps the events of a run.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) on(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// trace renders the events one per line, collapsing runs of updates.
func (r *recorder) trace() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var lines []string
	for _, e := range r.events {
		s := string(e.Type)
		switch e.Type {
		case agent.EventMessageStart, agent.EventMessageEnd:
			s += " " + string(e.Message.Role)
			if e.Type == agent.EventMessageEnd {
				if t := e.Message.Text(); t != "" {
					s += " " + fmt.Sprintf("%q", t)
				}
				if e.Message.StopReason != "" {
					s += " [" + string(e.Message.StopReason) + "]"
				}
				if e.Message.IsError {
					s += " [error]"
				}
			}
		case agent.EventMessageUpdate, agent.EventToolExecutionUpdate:
			if len(lines) > 0 && strings.HasPrefix(lines[len(lines)-1], s) {
				continue
			}
			s += "…"
		case agent.EventToolExecutionStart, agent.EventToolExecutionEnd:
			s += " " + e.ToolName + " " + e.ToolCallID
		case agent.EventTurnStart, agent.EventTurnEnd:
			s += fmt.Sprintf(" %d", e.Turn)
		case agent.EventAgentEnd:
			s += " " + string(e.Run.Reason)
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

// fixedSession returns an in-memory session with a deterministic clock and ids.
func fixedOptions() session.Options {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	var mu sync.Mutex
	return session.Options{
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); t = t.Add(time.Second); return t },
		NewID: func() string {
			mu.Lock()
			defer mu.Unlock()
			n++
			return fmt.Sprintf("%08x", n)
		},
	}
}

func asst(text string, calls ...llm.Part) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Provider: "llmtest", Model: "scripted", Usage: &llm.Usage{Input: 100, Output: 10, Cost: 0.01}}
	if text != "" {
		m.Content = append(m.Content, llm.Text(text))
	}
	m.Content = append(m.Content, calls...)
	return m
}

func call(id, name, args string) llm.Part { return llm.ToolCall(id, name, []byte(args)) }

func turn(text string, calls ...llm.Part) llmtest.Turn {
	return llmtest.Turn{Message: asst(text, calls...)}
}

// newAgent builds an agent on model with tools, recording events.
func newAgent(t *testing.T, model llm.Model, cfg agent.Config, tools ...tool.Tool) (*agent.Agent, *recorder) {
	t.Helper()
	return newAgentWith(t, model, cfg, nil, tools...)
}

// newAgentWith is newAgent with a hook called after each event is recorded.
func newAgentWith(t *testing.T, model llm.Model, cfg agent.Config, hook func(agent.Event), tools ...tool.Tool) (*agent.Agent, *recorder) {
	t.Helper()
	rec := &recorder{}
	cfg.Model = model
	cfg.Tools = tools
	if cfg.Session == nil {
		cfg.Session = session.New("project", fixedOptions())
	}
	cfg.OnEvent = func(e agent.Event) {
		rec.on(e)
		if hook != nil {
			hook(e)
		}
	}
	if cfg.Info.ID == "" {
		cfg.Info = llm.Info{ID: "llmtest/scripted", ContextWindow: 200000, MaxOutputTokens: 8192}
	}
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, rec
}

// lastToolTexts returns the text of each tool result in the request's messages.
func toolTexts(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == llm.RoleToolResult {
			out = append(out, m.ToolCallID+": "+m.Text())
		}
	}
	return out
}
