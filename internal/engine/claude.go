package engine

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Claude is Claude Code (`claude -p --output-format stream-json`).
type Claude struct{}

// claudeTools are the built-in tools a ticket run gets: the coding tools,
// not the web, scheduling, worktree or sub-agent ones.
const claudeTools = "Bash,Read,Edit,Write,Glob,Grep"

// claudeReadOnlyTools are the tools of a run that must not edit files.
const claudeReadOnlyTools = "Bash,Read,Glob,Grep"

// Name implements Engine.
func (Claude) Name() string { return "claude-code" }

// Program implements Engine.
func (Claude) Program() string { return "claude" }

// Install implements Engine.
func (Claude) Install() string { return "npm install -g @anthropic-ai/claude-code" }

// MinVersion implements Engine: the oldest series tested (stream-json in
// and out with partial messages, --session-id, --tools,
// --max-budget-usd, HTTP hooks).
func (Claude) MinVersion() string { return "2.1.0" }

// Command implements Engine. Claude Code refuses
// --dangerously-skip-permissions as root, so permissions are explicit:
// the dontAsk mode refuses every tool the allow list does not name.
func (Claude) Command(in Invocation) (Command, error) {
	if in.Endpoint.Wire != llm.WireAnthropicMessages {
		return Command{}, fmt.Errorf("claude-code speaks the Anthropic Messages API; model provider %s speaks %s (use an anthropic/… model)", in.Endpoint.Provider, in.Endpoint.Wire)
	}
	tools := claudeTools
	if in.ReadOnly {
		tools = claudeReadOnlyTools
	}
	allowed := tools
	// Bonsai's executor is the sandbox; Claude Code's own one would need
	// socat and bubblewrap inside it. Every Bash command is judged by the
	// project's policy first, through the board server's hook.
	settings := map[string]any{"sandbox": map[string]any{"enabled": false}}
	if in.MCP.Hook != "" {
		settings["hooks"] = map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
			"hooks": []any{map[string]any{"type": "http", "url": in.MCP.Hook, "timeout": 3600,
				"headers": map[string]string{"Authorization": "Bearer " + in.MCP.Token}}}}}}
	}
	set, err := json.Marshal(settings)
	if err != nil {
		return Command{}, err
	}
	argv := []string{in.Bin, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages",
		"--model", in.Endpoint.Model, "--permission-mode", "dontAsk", "--tools", tools, "--settings", string(set),
		// No user, project or local settings: the ones in the CLI's home
		// and the worktree's .claude/ are the agent's to write, and
		// "disableAllHooks" there turns the policy hook off. Only
		// --settings and the machine's managed settings apply.
		"--setting-sources", ""}
	if in.MCP.URL != "" {
		cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{in.MCP.Name: map[string]any{
			"type": "http", "url": in.MCP.URL, "headers": map[string]string{"Authorization": "Bearer " + in.MCP.Token}}}})
		if err != nil {
			return Command{}, err
		}
		argv = append(argv, "--mcp-config", string(cfg), "--strict-mcp-config")
		allowed += ",mcp__" + in.MCP.Name
	}
	argv = append(argv, "--allowedTools", allowed)
	if in.Attachments != "" {
		// The ticket's files, outside the worktree: Read may read them
		// without asking (dontAsk would refuse).
		argv = append(argv, "--add-dir", in.Attachments)
	}
	files := map[string]string{}
	if in.System != "" {
		// A file: the ticket block can be longer than one argument may be.
		files[systemFile] = in.System
		argv = append(argv, "--append-system-prompt-file", filepath.Join(in.ConfigDir, systemFile))
	}
	if in.BudgetUSD > 0 {
		argv = append(argv, "--max-budget-usd", strconv.FormatFloat(in.BudgetUSD, 'f', -1, 64))
	}
	if in.Resume != "" {
		argv = append(argv, "--resume", in.Resume)
	} else if in.NewSession != "" {
		argv = append(argv, "--session-id", in.NewSession)
	}
	var env []string
	if !in.Login {
		env = []string{"ANTHROPIC_BASE_URL=" + in.Endpoint.BaseURL, "ANTHROPIC_API_KEY=" + in.Endpoint.Key}
	}
	env = append(env,
		// The same model for the background requests Claude Code sends to
		// its small model.
		"ANTHROPIC_DEFAULT_HAIKU_MODEL="+in.Endpoint.Model,
		"ANTHROPIC_SMALL_FAST_MODEL="+in.Endpoint.Model,
		"CLAUDE_CONFIG_DIR="+in.HomeDir,
		// No update checks, telemetry or error reports: the sandbox's
		// proxy would refuse them anyway.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		// No memory files (they would name the data directory in the
		// prompt), scheduled prompts or surveys: the ticket is the memory.
		"CLAUDE_CODE_DISABLE_AUTO_MEMORY=1", "CLAUDE_CODE_DISABLE_CRON=1", "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
		// Claude Code in print mode connects its MCP servers in the
		// background (and, told to wait, waits 5 s), so on a busy machine
		// its first request went out before the board's tools were there
		// and the agent worked without its board. It waits for them now:
		// the board server is on loopback, so the wait costs nothing
		// unless the machine is that busy.
		"MCP_CONNECTION_NONBLOCKING=0", "MCP_CONNECT_TIMEOUT_MS=120000", "MCP_TIMEOUT=120000",
		// Claude Code thinks by default on the models that can; the
		// ticket's level decides, with Bonsai's own budgets (0: none).
		"MAX_THINKING_TOKENS="+strconv.Itoa(in.Thinking.ThinkingBudget()))
	return Command{Argv: argv, Env: env, Stdin: claudeFirstMessage(in.Prompt, in.Images), Files: files, HomeFiles: loginMountPoint(Claude{}, in, nil)}, nil
}

// Message implements Steerable: a stream-json user message.
func (Claude) Message(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	return string(b) + "\n"
}

// claudeFirstMessage is the run's first stream-json user message: the
// prompt, and the pictures the model is shown as image blocks (the
// Messages API's, which Claude Code passes on).
func claudeFirstMessage(prompt string, imgs []Image) string {
	if len(imgs) == 0 {
		return Claude{}.Message(prompt)
	}
	content := []any{map[string]any{"type": "text", "text": prompt}}
	for _, im := range imgs {
		content = append(content, map[string]any{"type": "image", "source": map[string]any{
			"type": "base64", "media_type": im.MediaType, "data": base64.StdEncoding.EncodeToString(im.Data)}})
	}
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}})
	return string(b) + "\n"
}

// NewParser implements Engine.
func (Claude) NewParser() Parser { return &claudeParser{names: map[string]string{}} }

// claudeParser reads stream-json with partial messages: system/init,
// stream_event (the API's own stream events: message_start,
// content_block_start/delta/stop, message_delta with the response's final
// usage, message_stop), assistant (one event per finished content block,
// the message's id repeated), user (tool results) and the final result.
// A message is complete, with its usage, at its message_stop.
type claudeParser struct {
	names   map[string]string // tool call id → tool name
	cur     *llm.Message      // the message being streamed
	partial bool              // stream events arrive
	usage   llm.Usage         // the results' usage so far (one result per user message)
	// early are tool results printed before the message holding their
	// calls ended (Claude Code runs a call as soon as its block ends, and
	// may print its result before the message's message_stop): they
	// follow that message, so no result precedes its call.
	early []Event
}

type claudeLine struct {
	Type    string          `json:"type"`
	Subtype string          `json:"subtype"`
	Session string          `json:"session_id"`
	Message json.RawMessage `json:"message"`
	Event   *claudeEvent    `json:"event"`
	// result
	IsError bool         `json:"is_error"`
	Status  int          `json:"api_error_status"`
	Result  string       `json:"result"`
	CostUSD float64      `json:"total_cost_usd"`
	Usage   *claudeUsage `json:"usage"`
	Errors  []string     `json:"errors"`
}

// claudeEvent is one of the API's stream events, as Claude Code relays it.
type claudeEvent struct {
	Type    string         `json:"type"`
	Index   int            `json:"index"`
	Message *claudeMessage `json:"message"`
	Block   *claudeBlock   `json:"content_block"`
	Delta   struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *claudeUsage `json:"usage"`
}

type claudeUsage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
}

func (u *claudeUsage) llm() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
}

type claudeMessage struct {
	Model   string        `json:"model"`
	Content []claudeBlock `json:"content"`
	Usage   *claudeUsage  `json:"usage"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Line implements Parser.
func (p *claudeParser) Line(b []byte) ([]Event, error) {
	var l claudeLine
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("not a stream-json event: %w", err)
	}
	switch l.Type {
	case "system":
		return []Event{{Session: l.Session}}, nil
	case "stream_event":
		if l.Event == nil {
			return nil, nil
		}
		p.partial = true
		return p.stream(l.Session, l.Event), nil
	case "assistant":
		var m claudeMessage
		if err := json.Unmarshal(l.Message, &m); err != nil {
			return nil, fmt.Errorf("assistant event: %w", err)
		}
		if p.cur == nil {
			p.cur = &llm.Message{Role: llm.RoleAssistant, Provider: "anthropic", Model: m.Model, StopReason: llm.StopEnd}
		}
		for _, c := range m.Content {
			p.cur.Content = append(p.cur.Content, p.part(c))
		}
		if p.partial {
			// The message is complete at its message_stop.
			return []Event{{Session: l.Session}}, nil
		}
		// Without stream events each block is its own message, with the
		// usage the message started with.
		msg := p.cur
		p.cur = nil
		if u := m.Usage.llm(); u != (llm.Usage{}) {
			msg.Usage = &u
		}
		return []Event{{Session: l.Session, Message: msg}}, nil
	case "user":
		var m claudeMessage
		if err := json.Unmarshal(l.Message, &m); err != nil {
			// A user message given as a plain string (a replayed prompt).
			return nil, nil
		}
		var out []Event
		for _, c := range m.Content {
			if c.Type != "tool_result" {
				continue
			}
			r := llm.ToolResultText(c.ToolUseID, p.names[c.ToolUseID], blockText(c.Content), c.IsError)
			out = append(out, Event{Session: l.Session, Message: &r})
		}
		if len(out) > 0 {
			// The response's usage came with its message_delta.
			out[len(out)-1].StepEnd = true
		}
		if p.cur != nil && p.partial {
			p.early = append(p.early, out...)
			return nil, nil
		}
		return out, nil
	case "result":
		// Each user message gets a result with its own usage; the cost
		// is the process's total so far.
		p.usage = p.usage.Add(l.Usage.llm())
		d := &Done{Usage: p.usage, Text: l.Result, HTTPStatus: l.Status}
		d.Usage.Cost = l.CostUSD
		switch l.Subtype {
		case "success":
			if l.IsError {
				d.Error = l.Result
			}
		case "error_max_budget_usd":
			d.Budget = true
		case "error_max_turns":
			d.MaxTurns = true
		default:
			d.Error = l.Subtype
			if len(l.Errors) > 0 {
				d.Error += ": " + l.Errors[0]
				d.NoSession = strings.HasPrefix(l.Errors[0], "No conversation found")
			}
		}
		return []Event{{Session: l.Session, Done: d}}, nil
	}
	// Other events (status, rate limits, hooks) carry nothing the
	// transcript keeps.
	return []Event{{Session: l.Session}}, nil
}

// part converts one finished content block.
func (p *claudeParser) part(c claudeBlock) llm.Part {
	switch c.Type {
	case "thinking":
		return llm.Part{Type: llm.PartThinking, Thinking: c.Thinking, Signature: c.Signature}
	case "tool_use":
		p.names[c.ID] = c.Name
		return llm.ToolCall(c.ID, c.Name, c.Input)
	}
	return llm.Text(c.Text)
}

// stream folds one API stream event: the live steps, the message's usage
// and, at message_stop, the complete message.
func (p *claudeParser) stream(session string, e *claudeEvent) []Event {
	ev := func(x Event) []Event { x.Session = session; return []Event{x} }
	switch e.Type {
	case "message_start":
		p.cur = &llm.Message{Role: llm.RoleAssistant, Provider: "anthropic", StopReason: llm.StopEnd}
		if e.Message != nil {
			p.cur.Model = e.Message.Model
			if u := e.Message.Usage.llm(); u != (llm.Usage{}) {
				p.cur.Usage = &u
			}
		}
		return ev(Event{Live: &LiveStep{Start: true}})
	case "content_block_start":
		if e.Block != nil && e.Block.Type == "tool_use" {
			return ev(Event{Live: &LiveStep{Delta: &llm.Event{Type: llm.EventToolCallStart, Index: e.Index, Part: &llm.Part{Type: llm.PartToolCall, ID: e.Block.ID, Name: e.Block.Name}}}})
		}
	case "content_block_delta":
		d := &llm.Event{Index: e.Index}
		switch e.Delta.Type {
		case "text_delta":
			d.Type, d.Delta = llm.EventTextDelta, e.Delta.Text
		case "thinking_delta":
			d.Type, d.Delta = llm.EventThinkingDelta, e.Delta.Thinking
		case "input_json_delta":
			d.Type, d.Delta = llm.EventToolCallDelta, e.Delta.PartialJSON
		default:
			return nil
		}
		return ev(Event{Live: &LiveStep{Delta: d}})
	case "message_delta":
		if p.cur != nil {
			if e.Usage != nil {
				u := e.Usage.llm()
				if p.cur.Usage != nil && u.Input == 0 {
					// Older servers send only the output count here.
					u.Input, u.CacheRead, u.CacheWrite = p.cur.Usage.Input, p.cur.Usage.CacheRead, p.cur.Usage.CacheWrite
				}
				p.cur.Usage = &u
			}
			if e.Delta.StopReason == "tool_use" {
				p.cur.StopReason = llm.StopToolUse
			} else if e.Delta.StopReason == "max_tokens" {
				p.cur.StopReason = llm.StopLength
			}
		}
	case "message_stop":
		msg := p.cur
		p.cur = nil
		if msg == nil {
			return nil
		}
		evs := []Event{{Session: session, Message: msg}, {Session: session, Live: &LiveStep{End: true}}}
		// Claude Code runs the message's tool calls now: each is shown
		// running until its result comes.
		for _, c := range msg.ToolCalls() {
			evs = append(evs, Event{Session: session, Live: &LiveStep{Tool: &c}})
		}
		evs = append(evs, p.early...)
		p.early = nil
		return evs
	}
	return nil
}

// Flush implements Parser: a message cut short keeps its finished blocks.
func (p *claudeParser) Flush() []Event {
	msg := p.cur
	p.cur = nil
	if msg == nil || len(msg.Content) == 0 {
		evs := p.early
		p.early = nil
		return evs
	}
	msg.StopReason = llm.StopAborted
	evs := append([]Event{{Message: msg}, {Live: &LiveStep{End: true}}}, p.early...)
	p.early = nil
	return evs
}

// blockText is a tool result's content: a string, or text blocks.
func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out string
		for _, p := range parts {
			if p.Type == "text" {
				if out != "" {
					out += "\n"
				}
				out += p.Text
			}
		}
		return out
	}
	return string(raw)
}

// systemFile is the appended system prompt's file in the config
// directory.
const systemFile = "bonsai-system.md"
