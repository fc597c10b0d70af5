package agenthost

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Config is what an agent for a workspace is built from.
type Config struct {
	// Prompt says how to build the system prompt. Its Tools are filled
	// in from Tools and Extra.
	Prompt Prompt
	// OpenDir opens a host directory as an executor; it serves the user's
	// skills directory (Prompt.UserSkills) to read. nil serves none. An
	// executor that is an io.Closer is closed by Close.
	OpenDir func(dir string) (executor.Executor, error)
	// Tools names the coding tools offered, working through
	// Prompt.Workspace.
	Tools []string
	// NewTools, when not nil, replaces the coding tools: it receives the
	// workspace and the skills directory (nil when none).
	NewTools func(ws, skills executor.Executor) []tool.Tool
	// Gate judges the coding tools' calls: every bash command goes through
	// the command policy, and read-only mode refuses write and edit. Its
	// Policy.Workspace defaults to Prompt.Root. The zero value judges in
	// auto mode and refuses the commands the policy holds for a person.
	Gate gate.Config
	// Extra are more tools, offered after the coding tools: the ticket
	// tools, MCP servers' tools. They pass through the gate too, which
	// judges the MCP tools (mcp__<server>__<tool>) and leaves others be.
	Extra []tool.Tool
	// Session records the conversation; the agent resumes from its leaf.
	Session *session.File

	Model       llm.Model
	Info        llm.Info
	Thinking    llm.ThinkingLevel
	MaxTurns    int
	Budget      float64
	TokenBudget int64
	Deadline    time.Time
	OnEvent     func(agent.Event)
}

// Host is an assembled agent and what it holds open.
type Host struct {
	agent    *agent.Agent
	skills   executor.Executor
	warnings []string
}

// New assembles the agent. Problems that do not stop it (a skills
// directory that cannot be opened, an unreadable AGENTS.md) are in
// Warnings. Close releases what New opened; the session stays the
// caller's.
func New(ctx context.Context, cfg Config) (*Host, error) {
	h := &Host{}
	if cfg.OpenDir != nil && cfg.Prompt.UserSkills != "" && isDir(cfg.Prompt.UserSkills) {
		ex, err := cfg.OpenDir(cfg.Prompt.UserSkills)
		if err != nil {
			h.warnings = append(h.warnings, fmt.Sprintf("skills: %v", err))
		} else {
			h.skills = ex
		}
	}
	if h.skills == nil {
		cfg.Prompt.UserSkills = ""
	}
	var toolset []tool.Tool
	if cfg.NewTools != nil {
		toolset = cfg.NewTools(cfg.Prompt.Workspace, h.skills)
	} else {
		toolset = Tools(cfg.Prompt.Workspace, h.skills, cfg.Tools)
	}
	if cfg.Gate.Policy.Workspace == "" {
		cfg.Gate.Policy.Workspace = cfg.Prompt.Root
	}
	toolset = gate.Wrap(append(toolset, cfg.Extra...), cfg.Gate)
	cfg.Prompt.Tools = append(append([]string(nil), cfg.Tools...), Names(cfg.Extra)...)
	system, w := cfg.Prompt.Render(ctx)
	h.warnings = append(h.warnings, w...)
	a, err := agent.New(agent.Config{
		Model: cfg.Model, Info: cfg.Info, System: system, Tools: toolset, Session: cfg.Session,
		Thinking: cfg.Thinking, MaxTurns: cfg.MaxTurns, Budget: cfg.Budget, TokenBudget: cfg.TokenBudget,
		Deadline: cfg.Deadline, OnEvent: cfg.OnEvent,
	})
	if err != nil {
		h.Close()
		return nil, err
	}
	h.agent = a
	return h, nil
}

// Agent returns the agent.
func (h *Host) Agent() *agent.Agent { return h.agent }

// Warnings returns the problems New found that did not stop it.
func (h *Host) Warnings() []string { return h.warnings }

// Close closes the skills directory New opened.
func (h *Host) Close() {
	if c, ok := h.skills.(io.Closer); ok {
		c.Close()
	}
	h.skills = nil
}

// Names returns the names of tools, in order.
func Names(tools []tool.Tool) []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		out = append(out, t.Name())
	}
	return out
}
