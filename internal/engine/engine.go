package engine

import (
	"github.com/bonsai-run/bonsai/internal/llm"
)

// Engine is one external agent CLI: how to start a run of it and how to
// read what it prints.
type Engine interface {
	// Name is the project setting's value, e.g. "claude-code".
	Name() string
	// Program is the executable's name, looked up on PATH.
	Program() string
	// Install is the command that installs the CLI.
	Install() string
	// MinVersion is the oldest version whose wire this package reads
	// ("2.1.0"); older CLIs are refused with the install command.
	MinVersion() string
	// Command builds the invocation of one run.
	Command(in Invocation) (Command, error)
	// NewParser returns a reader of one run's stdout lines.
	NewParser() Parser
}

// Invocation is what a run of an engine needs.
type Invocation struct {
	// Bin is the CLI's path.
	Bin string
	// Endpoint is the model server the CLI talks to.
	Endpoint Endpoint
	// ConfigDir is the engine's directory of files the runtime writes
	// for this ticket (Command.Files), read-only in the sandbox.
	ConfigDir string
	// HomeDir is the engine's own directory for this ticket (its config,
	// sessions, database), writable in the sandbox.
	HomeDir string
	// Resume is the vendor session to resume; "" starts a new one.
	Resume string
	// NewSession is a fresh session id for engines that take one.
	NewSession string
	// System is appended to the engine's own system prompt.
	System string
	// Prompt is the run's user message; it names the ticket's files,
	// which are in ConfigDir/attachments.
	Prompt string
	// Attachments is the directory of the ticket's files in the run
	// (ConfigDir/attachments); "" when the ticket has none.
	Attachments string
	// Images are the ticket's pictures the model is shown with Prompt:
	// the CLI's image arguments, or image blocks in its input.
	Images []Image
	// MCP is the ticket's board server.
	MCP MCPEndpoint
	// BudgetUSD caps the run's spend when the CLI can (0: none).
	BudgetUSD float64
	// ReadOnly keeps the engine from editing files (plan permission mode).
	ReadOnly bool
	// Thinking is how much the model thinks; "" or off asks for none.
	Thinking llm.ThinkingLevel
	// Login runs the CLI with the person's own login (--engine-auth
	// login): Endpoint has no base URL or key, the CLI talks to its
	// provider itself, with the credential file the sandbox binds at
	// HomeDir/LoginOf(engine).At.
	Login bool

	// price is the model's catalog price, for events without a cost.
	price llm.Price
}

// Endpoint is a model server and the model to ask.
type Endpoint struct {
	// Wire is the API the server speaks.
	Wire llm.WireFormat
	// Responses reports that the server also speaks OpenAI's Responses
	// API (Codex's only wire).
	Responses bool
	// Provider is the provider's name, e.g. "anthropic".
	Provider string
	// BaseURL is the API root (for OpenAI-style wires, with its /v1).
	BaseURL string
	// Key is the API key; it goes to the CLI's environment only.
	Key string
	// Model is the model's name without its provider.
	Model string
}

// MCPEndpoint is where the ticket's board tools are served.
type MCPEndpoint struct {
	// Name is the server's name in the engine's config ("bonsai").
	Name string
	// URL is the streamable HTTP endpoint.
	URL string
	// Token is the bearer token the endpoint requires.
	Token string
	// Hook, when set, is the URL (same token) that judges a shell
	// command with the project's policy before it runs: Claude Code's
	// PreToolUse HTTP hook, which OpenCode's plugin and Codex's hook
	// program post to as well.
	Hook string
}

// Command is how to start one run.
type Command struct {
	Argv []string
	// Env is added to the executor's clean environment.
	Env []string
	// Stdin is the CLI's input (the prompt, which may be longer than an
	// argument may be).
	Stdin string
	// Files are written into ConfigDir before the run, by name (the
	// system prompt, a hook, a plugin).
	Files map[string]string
	// HomeFiles are written into HomeDir before every start, by name,
	// each replacing whatever is there (a link included): the CLI's own
	// settings files there, which the agent's commands can write, hold
	// the runtime's content when the CLI reads them.
	HomeFiles map[string]string
}

// Steerable is implemented by engines that read further user messages
// on stdin while they work (Claude Code's stream-json input): Command's
// Stdin is then the first message, stdin stays open, people's comments
// posted during the run are sent as more messages, and stdin is closed
// once every message was answered (its Done arrived), which ends the CLI.
type Steerable interface {
	// Message encodes a user message as a line of the CLI's input.
	Message(text string) string
}

// Parser reads one run's stdout, line by line.
type Parser interface {
	// Line turns one line into events; a line that is not an event of
	// the CLI's wire is an error (the run goes on: it is logged).
	Line(b []byte) ([]Event, error)
	// Flush returns what the parser still holds when the CLI's output
	// ended (a message cut short by a kill).
	Flush() []Event
}

// Event is one normalised event of a run.
type Event struct {
	// Session, when set, is the vendor session the run works in.
	Session string
	// Message, when set, is a complete message for the transcript: an
	// assistant message or a tool result.
	Message *llm.Message
	// Done, when set, is the run's result.
	Done *Done
	// StepEnd marks the end of one step of the agent (a model response
	// and its tool calls), once its usage was given: where a run that a
	// board tool ended (a ticket_ask) is stopped without losing what the
	// step cost.
	StepEnd bool
	// Live, when set, is a step of the assistant message being streamed,
	// for the live view (see LiveStep).
	Live *LiveStep
}

// LiveStep is one step of a streamed assistant message: Start, then
// Delta events, then End once the complete message was given as an
// Event's Message; or a tool call that started running (Tool), shown
// until its result is in the transcript.
type LiveStep struct {
	Start bool
	Delta *llm.Event
	End   bool
	// Tool is a call that started running: its ID, Name and Arguments.
	Tool *llm.Part
}

// Done is how an engine said its run ended.
type Done struct {
	// Usage is the run's total usage, cost included.
	Usage llm.Usage
	// Text is the agent's last words.
	Text string
	// Error, when set, is why the run failed.
	Error string
	// Budget reports that the engine stopped at its spend cap.
	Budget bool
	// MaxTurns reports that the engine stopped at its turn cap.
	MaxTurns bool
	// HTTPStatus is the model server's error status that ended the run,
	// when the engine says (0 otherwise).
	HTTPStatus int
	// NoSession reports that the session to resume was not found.
	NoSession bool
	// Cumulative reports that Usage is the vendor session's total since
	// it began (Codex), not this run's: the runner subtracts the total
	// the last run saw, and writes the difference to the transcript.
	Cumulative bool
}
