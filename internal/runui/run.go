package runui

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/mattn/go-isatty"
)

// Run is one `bonsai run`: the agent and the process's streams. A front
// end (Print, JSON, RPC, Interactive) drives it.
type Run struct {
	Agent *agent.Agent
	// Events receives the agent's events (the agent's OnEvent calls
	// Events.Handle); the front end sets what it does with them.
	Events *Events
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (provider variables for hints,
	// NO_COLOR and TERM for the terminal).
	Getenv func(string) string
	// Redact hides the process's secrets in an error; nil keeps it.
	Redact func(string) string
	// Models opens a "provider/model" id for set_model; it also returns a
	// warning for a model the catalog does not know.
	Models func(id string) (llm.Model, llm.Info, string, error)
	// Sessions opens new sessions and forks for new_session and fork.
	Sessions agenthost.Sessions
	// Approvals decides the commands the policy holds for a person: the
	// interactive front end asks at the terminal. nil refuses them.
	Approvals *Approvals
	// MCP describes the run's MCP servers (one value per server); json
	// mode prints them after the session header as
	// {"type":"mcp","servers":[…]}. Empty prints nothing.
	MCP []any
}

func (rt *Run) redact(s string) string {
	if rt.Redact == nil {
		return s
	}
	return rt.Redact(s)
}

// warn prints a warning to stderr.
func (rt *Run) warn(msg string) {
	fmt.Fprintf(rt.Stderr, "bonsai: warning: %s\n", msg)
}

// Events passes agent events to the handler a front end sets. It is safe
// for concurrent use.
type Events struct {
	mu      sync.Mutex
	handler func(agent.Event)
}

// Handle passes e to the current handler, if any.
func (ev *Events) Handle(e agent.Event) {
	ev.mu.Lock()
	h := ev.handler
	ev.mu.Unlock()
	if h != nil {
		h(e)
	}
}

// Set makes h the handler of the events to come.
func (ev *Events) Set(h func(agent.Event)) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.handler = h
}

// Terminal reports whether a stream is a terminal.
func Terminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
