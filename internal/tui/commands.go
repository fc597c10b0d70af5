package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// command is one slash command.
type command struct {
	name, args, help string
	run              func(m *Model, arg string) tea.Cmd
	idle             bool // refused while a turn runs
}

// commands are the slash commands, in /help's order. Filled in init, as
// /help reads the list.
var commands []command

func init() {
	commands = []command{
		{name: "help", help: "this list, and the keys", run: (*Model).cmdHelp},
		{name: "model", args: "[id]", help: "show or switch the model", run: (*Model).cmdModel, idle: true},
		{name: "thinking", args: "[level]", help: "show or set the thinking level: off, low, medium, high", run: (*Model).cmdThinking, idle: true},
		{name: "cost", help: "tokens and cost of the session", run: (*Model).cmdCost},
		{name: "clear", help: "start a new session", run: (*Model).cmdClear, idle: true},
		{name: "compact", help: "summarise the older conversation now", run: (*Model).cmdCompact, idle: true},
		{name: "export", args: "[file|html]", help: "write the conversation as Markdown or HTML", run: (*Model).cmdExport},
		{name: "fork", help: "continue in a new session file from here", run: (*Model).cmdFork, idle: true},
		{name: "resume", args: "[N]", help: "list this directory's sessions, or resume the Nth", run: (*Model).cmdResume, idle: true},
		{name: "tree", args: "[N]", help: "the session's tree, or continue from its entry N", run: (*Model).cmdTree, idle: true},
		{name: "skill:NAME", args: "[text]", help: "ask the agent to use a skill", run: nil},
		{name: "mode", args: "[mode]", help: "show or set the permission mode: auto, ask, read-only", run: (*Model).cmdMode},
		{name: "exit", help: "quit (also /quit, Ctrl-D, Ctrl-C twice)", run: (*Model).cmdExit},
	}
}

// command runs a slash command line.
func (m *Model) command(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	arg = strings.TrimSpace(arg)
	if name == "quit" {
		name = "exit"
	}
	if skill, ok := strings.CutPrefix(name, "skill:"); ok {
		return m.cmdSkill(skill, arg)
	}
	for _, c := range commands {
		if c.name != name || c.run == nil {
			continue
		}
		if c.idle && m.running {
			m.tr.add(kindError, "/"+name+" waits for the turn to end (Esc aborts it)")
			return nil
		}
		return c.run(m, arg)
	}
	m.tr.add(kindError, fmt.Sprintf("unknown command /%s: /help lists them", name))
	return nil
}

func (m *Model) cmdHelp(string) tea.Cmd {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-22s %s\n", "/"+strings.TrimSpace(c.name+" "+c.args), c.help)
	}
	b.WriteString("Keys: Enter sends · Alt/Shift-Enter newline · ↑↓ history · Tab completes @file\n")
	b.WriteString("Esc aborts · Ctrl-C twice quits · PgUp/PgDn scroll\n")
	b.WriteString("Ctrl-O shows the tool output · Ctrl-T shows the thinking")
	m.tr.notice(b.String())
	return nil
}

func (m *Model) cmdModel(arg string) tea.Cmd {
	if arg == "" {
		m.tr.notice("model: " + m.rt.Agent.Model().ID + " (/model provider/model switches)")
		return nil
	}
	m.setModel(arg, m.rt.Agent.Thinking())
	return nil
}

func (m *Model) cmdThinking(arg string) tea.Cmd {
	if arg == "" {
		m.tr.notice("thinking: " + string(thinkingName(m.rt.Agent.Thinking())) + " (/thinking off|low|medium|high sets it)")
		return nil
	}
	t, err := llm.ParseThinkingLevel(arg)
	if err != nil {
		m.tr.add(kindError, err.Error())
		return nil
	}
	m.setModel(m.rt.Agent.Model().ID, t)
	return nil
}

// setModel switches the model and thinking level, recorded in the
// session.
func (m *Model) setModel(id string, t llm.ThinkingLevel) {
	model, info, warning, err := m.rt.Models(id)
	if err == nil {
		err = m.rt.Agent.SetModel(model, info, t)
	}
	if err != nil {
		m.tr.add(kindError, m.redact(err.Error()))
		return
	}
	if warning != "" {
		m.tr.notice("warning: " + warning)
	}
	m.tr.notice("model: " + info.ID + " · thinking " + string(thinkingName(t)))
}

func (m *Model) cmdCost(string) tea.Cmd {
	u := m.rt.Agent.Usage()
	s := fmt.Sprintf("session: %d tokens in (%d cached, %d to cache) · %d out", u.Input+u.CacheRead+u.CacheWrite, u.CacheRead, u.CacheWrite, u.Output)
	if u.Reasoning > 0 {
		s += fmt.Sprintf(" (%d thinking)", u.Reasoning)
	}
	s += " · " + board.USD(u.Cost)
	m.tr.notice(s)
	return nil
}

func (m *Model) cmdMode(arg string) tea.Cmd {
	a := m.rt.Approvals
	if a == nil {
		m.tr.notice("permission mode: unknown")
		return nil
	}
	switch mode := policy.Mode(strings.ToLower(arg)); mode {
	case "":
		m.tr.notice("permission mode: " + string(a.Mode()) + " (/mode auto|ask|read-only sets it)")
	case policy.ModeAuto, policy.ModeAsk, policy.ModeReadOnly:
		a.SetMode(mode)
		m.tr.notice("permission mode: " + string(mode) + ", from the next command on")
	default:
		m.tr.add(kindError, fmt.Sprintf("/mode %s: give auto, ask or read-only", arg))
	}
	return nil
}

func (m *Model) cmdExit(string) tea.Cmd {
	m.quit = true
	return tea.Quit
}

// redact hides the process's secrets in s.
func (m *Model) redact(s string) string {
	if m.rt.Redact == nil {
		return s
	}
	return m.rt.Redact(s)
}
