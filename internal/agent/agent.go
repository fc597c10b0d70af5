package agent

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Compaction defaults of issue 4: compact when the context exceeds the
// window minus the reserve; keep at least KeepRecent tokens verbatim.
const (
	DefaultCompactReserve = 16384
	DefaultKeepRecent     = 20000
)

// Config configures an Agent.
type Config struct {
	// Model streams responses; wrap it with llm.WithRetry for retries.
	Model llm.Model
	// Info describes the model: ID ("provider/model") is recorded in the
	// session, ContextWindow drives compaction (0 disables the threshold
	// check; context overflow errors still compact).
	Info llm.Info
	// System is the system prompt (see SystemPrompt).
	System string
	// Tools are the tools offered to the model.
	Tools []tool.Tool
	// Session records every message; nil keeps the conversation in memory.
	// The agent resumes from the session's current leaf.
	Session *session.File
	// Thinking is the thinking level; MaxTokens caps each response (0 is
	// the model's default).
	Thinking  llm.ThinkingLevel
	MaxTokens int
	// MaxTurns ends a run after this many model requests (0: no limit).
	MaxTurns int
	// Budget ends a run once its cost in USD reaches it (0: no limit).
	Budget float64
	// TokenBudget ends a run once its input plus output tokens (cached
	// ones included) reach it (0: no limit).
	TokenBudget int64
	// Deadline ends a run with EndTimeout when it passes (zero: none).
	Deadline time.Time
	// CompactReserve and KeepRecent tune compaction (0: the defaults).
	CompactReserve int
	KeepRecent     int
	// OnEvent receives every event, synchronously and one at a time. A
	// slow handler slows the loop; nil discards events.
	OnEvent func(Event)
	// LoadDocument, when not nil, gives the base64 bytes of a document
	// part a resumed session keeps by reference only (path and SHA-256),
	// or false when the file is gone or changed; the model then reads a
	// notice instead.
	LoadDocument func(p llm.Part) (string, bool)
}

// Agent runs prompts against a model with tools, one run at a time. Steer
// and FollowUp may be called from other goroutines while a run is going.
type Agent struct {
	cfg     Config
	tools   map[string]*tool.Checked
	specs   []llm.ToolSpec
	session *session.File

	emitMu sync.Mutex // serialises OnEvent calls from parallel tools

	mu       sync.Mutex // guards the fields below
	running  bool
	model    llm.Model
	info     llm.Info
	thinking llm.ThinkingLevel
	steer    []llm.Message
	followUp []llm.Message
	messages []llm.Message // the context, as sent to the model
	entryIDs []string      // the session entry of each message ("" if synthetic)
	lastCtx  int64         // context tokens reported by the last response
	lastAt   int           // len(messages) when lastCtx was measured
	usage    llm.Usage     // all runs of this agent
}

// ErrBusy means a run is already going.
var ErrBusy = errors.New("agent is already running")

// New returns an agent that continues the conversation of cfg.Session.
func New(cfg Config) (*Agent, error) {
	if cfg.Model == nil {
		return nil, errors.New("new agent: no model")
	}
	if cfg.CompactReserve <= 0 {
		cfg.CompactReserve = DefaultCompactReserve
	}
	if cfg.KeepRecent <= 0 {
		cfg.KeepRecent = DefaultKeepRecent
	}
	a := &Agent{cfg: cfg, session: cfg.Session, model: cfg.Model, info: cfg.Info,
		thinking: cfg.Thinking, tools: make(map[string]*tool.Checked)}
	if a.session == nil {
		a.session = session.New("", session.Options{})
	}
	for _, t := range cfg.Tools {
		if _, dup := a.tools[t.Name()]; dup {
			return nil, fmt.Errorf("new agent: two tools are named %q", t.Name())
		}
		e, err := tool.Check(t)
		if err != nil {
			return nil, fmt.Errorf("new agent: %w", err)
		}
		a.tools[t.Name()] = e
		a.specs = append(a.specs, llm.ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	}
	a.reload()
	return a, nil
}

// reload rebuilds the in-memory context from the session's leaf.
func (a *Agent) reload() {
	c := a.session.Context()
	a.messages, a.entryIDs = c.Messages, c.EntryIDs
	if a.cfg.LoadDocument != nil {
		a.messages = llm.LoadDocuments(a.messages, a.cfg.LoadDocument)
	}
	a.messages = llm.ImagesNotLoaded(a.messages)
	a.lastCtx, a.lastAt = 0, 0
	for i := len(a.messages) - 1; i >= 0; i-- {
		if u := a.messages[i].Usage; a.messages[i].Role == llm.RoleAssistant && u != nil && usable(a.messages[i]) {
			a.lastCtx, a.lastAt = u.ContextTokens(), i+1
			break
		}
	}
}

// Session returns the session the agent records to.
func (a *Agent) Session() *session.File {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session
}

// SetSession switches to another session (new, resumed or forked) and
// loads its context. It fails while a run is going.
func (a *Agent) SetSession(s *session.File) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return ErrBusy
	}
	a.session = s
	a.reload()
	return nil
}

// Messages returns a copy of the context the model sees.
func (a *Agent) Messages() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]llm.Message(nil), a.messages...)
}

// Running reports whether a run is going.
func (a *Agent) Running() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}

// Model returns the model info in use.
func (a *Agent) Model() llm.Info {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.info
}

// Thinking returns the thinking level in use.
func (a *Agent) Thinking() llm.ThinkingLevel {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.thinking
}

// Usage returns the usage summed over every run of this agent.
func (a *Agent) Usage() llm.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage
}

// SetModel switches the model (from the next request on) and records a
// model_change entry.
func (a *Agent) SetModel(m llm.Model, info llm.Info, thinking llm.ThinkingLevel) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.model, a.info, a.thinking = m, info, thinking
	_, err := a.session.AppendModelChange(info.ID, thinking)
	return err
}

// Steer queues a message to deliver as soon as the running tool call
// finishes: the turn's remaining tool calls are skipped and the message
// is sent before the next model request. When idle it is delivered by the
// next run.
func (a *Agent) Steer(m llm.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steer = append(a.steer, m)
}

// FollowUp queues a message to deliver when the agent would otherwise
// stop.
func (a *Agent) FollowUp(m llm.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.followUp = append(a.followUp, m)
}

// takeSteer and takeFollowUp drain a queue.
func (a *Agent) takeSteer() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.steer
	a.steer = nil
	return q
}

func (a *Agent) takeFollowUp() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.followUp
	a.followUp = nil
	return q
}

func (a *Agent) steering() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.steer) > 0
}

func (a *Agent) emit(e Event) {
	if a.cfg.OnEvent == nil {
		return
	}
	a.emitMu.Lock()
	defer a.emitMu.Unlock()
	a.cfg.OnEvent(e)
}

// start marks the agent running; false means a run is already going.
func (a *Agent) start() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return false
	}
	a.running = true
	return true
}

func (a *Agent) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.running = false
}

// usable reports whether an assistant message is sent back to the model:
// failed and aborted responses are kept in the session but not resent.
func usable(m llm.Message) bool {
	return m.Role != llm.RoleAssistant || m.StopReason != llm.StopError && m.StopReason != llm.StopAborted
}
