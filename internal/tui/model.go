package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/runui"
)

// Options are what the interface shows that the run does not know.
type Options struct {
	// Root is the workspace's path; /export writes there.
	Root string
	// Sandbox says where commands run: "host" or "sandbox" and its
	// network.
	Sandbox string
	// Skills are the skills /skill:NAME can name.
	Skills []agent.Skill
	// Warnings, when not nil, is called with a function that shows a
	// warning in the transcript while the interface runs, and with nil
	// when it ends: the run's warnings go there instead of to stderr,
	// which would garble the screen.
	Warnings func(show func(string))
}

// Model is the interface's state, a Bubble Tea model. Its Update runs on
// Bubble Tea's goroutine only; the agent's goroutine reaches it by
// messages (agentMsg, doneMsg, askMsg).
type Model struct {
	rt   *runui.Run
	opts Options
	base context.Context
	send func(tea.Msg) // Program.Send, for the goroutines it starts

	w, h    int
	tr      transcript
	ed      editor
	ask     *askMsg // the held command waiting for an answer
	cancel  context.CancelFunc
	done    chan struct{} // closed when the last turn's goroutine ends
	running bool
	armed   bool // Ctrl-C was pressed once: the next one quits
	spin    int  // the spinner's frame while a turn runs
	quit    bool
	files   []string // the workspace's files, listed at the first @ completion
	hint    string   // a line above the editor until the next key
}

// doneMsg says a turn (or a compaction) ended.
type doneMsg struct {
	res agent.Result
	err error // of a compaction
}

// New returns the interface for rt; send delivers messages to the
// running program (nil until the program starts: see Run).
func New(ctx context.Context, rt *runui.Run, opts Options) *Model {
	m := &Model{rt: rt, opts: opts, base: context.WithoutCancel(ctx), w: 80, h: 24, ed: newEditor()}
	m.ed.setWidth(m.w)
	m.tr.notice(banner(rt))
	m.showHistory()
	return m
}

// banner is the first line of the transcript.
func banner(rt *runui.Run) string {
	s := "bonsai · " + rt.Agent.Model().ID
	if p := rt.Agent.Session().Path(); p != "" {
		s += " · " + p
	}
	return s + " · /help for commands and keys"
}

// showHistory puts a resumed session's messages in the transcript.
func (m *Model) showHistory() {
	for _, msg := range m.rt.Agent.Messages() {
		switch msg.Role {
		case llm.RoleUser:
			m.tr.add(kindUser, msg.Text())
		case llm.RoleAssistant:
			if t := msg.Text(); t != "" {
				m.tr.add(kindText, t)
			}
			for _, p := range msg.Content {
				if p.Type == llm.PartToolCall {
					m.tr.startCall(agent.Event{ToolCallID: p.ID, ToolName: p.Name, Args: p.Arguments})
				}
			}
		case llm.RoleToolResult:
			if en := m.tr.calls[msg.ToolCallID]; en != nil {
				en.call.output, en.call.dropped = tail(msg.Text(), maxOutput)
				en.call.done, en.call.isError = true, msg.IsError
			}
		}
	}
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	if m.running {
		return m.tick()
	}
	return nil
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.ed.setWidth(m.w)
	case agentMsg:
		m.tr.apply(agent.Event(msg))
	case doneMsg:
		m.finish(msg)
	case *askMsg:
		m.ask = msg
	case tea.PasteMsg:
		if m.ask == nil {
			m.paste(msg.Content)
		}
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tickMsg:
		if m.running && int(msg) == m.spin {
			m.spin++
			return m, m.tick()
		}
	case warningMsg:
		m.tr.add(kindError, "warning: "+string(msg))
	case quitMsg:
		m.quit = true
		return m, tea.Quit
	default:
		return m, m.ed.update(msg)
	}
	return m, nil
}

// warningMsg is a warning of the run (Options.Warnings).
type warningMsg string

// quitMsg ends the program (the run's context ended).
type quitMsg struct{}

// finish records the end of a turn.
func (m *Model) finish(d doneMsg) {
	m.running, m.cancel = false, nil
	m.tr.stream = nil
	if d.err != nil {
		m.tr.add(kindError, d.err.Error())
		return
	}
	m.tr.showResult(d.res)
	if m.ask != nil {
		m.ask = nil
	}
}

// paste inserts pasted text, or attaches the image whose path it is.
func (m *Model) paste(text string) {
	part, name, isImage, err := pastedImage(text)
	switch {
	case err != nil:
		m.tr.add(kindError, "paste: "+err.Error())
	case isImage:
		if !m.rt.Agent.Model().Images {
			m.tr.notice("note: " + m.rt.Agent.Model().ID + " may not read images")
		}
		m.ed.attach(part, name)
	default:
		m.ed.paste(text)
	}
}

// submit sends the editor's text: a command, a prompt, or a steering
// message while a turn runs.
func (m *Model) submit() tea.Cmd {
	text := strings.TrimSpace(m.ed.take())
	msg := llm.UserText(text)
	msg.Content = append(msg.Content, m.ed.takeImages(text)...)
	switch {
	case text == "":
		return nil
	case strings.HasPrefix(text, "/"):
		return m.command(text)
	case m.running:
		m.rt.Agent.Steer(msg)
		m.tr.add(kindUser, text)
		m.tr.notice("steering: delivered before the next model call")
		return nil
	}
	return m.startMessage(msg)
}

// start runs a turn on a text prompt in the background.
func (m *Model) start(text string) tea.Cmd { return m.startMessage(llm.UserText(text)) }

// startMessage runs a turn on a user message in the background.
func (m *Model) startMessage(msg llm.Message) tea.Cmd {
	m.tr.add(kindUser, msg.Text())
	return m.background(func(ctx context.Context) doneMsg {
		return doneMsg{res: m.rt.Agent.Prompt(ctx, msg)}
	})
}

// background runs fn, a turn or a compaction, on a goroutine of its
// own; its end comes back as a doneMsg.
func (m *Model) background(fn func(ctx context.Context) doneMsg) tea.Cmd {
	ctx, cancel := context.WithCancel(m.base)
	done := make(chan struct{})
	m.running, m.cancel, m.done = true, cancel, done
	send := m.send
	go func() {
		defer close(done)
		d := fn(ctx)
		cancel()
		send(d)
	}()
	return m.tick()
}

// abort cancels the running turn, if any.
func (m *Model) abort() bool {
	if m.cancel == nil {
		return false
	}
	m.cancel()
	return true
}
