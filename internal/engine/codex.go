package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Codex is OpenAI's Codex CLI (`codex exec --json`).
type Codex struct{}

// Name implements Engine.
func (Codex) Name() string { return "codex" }

// Program implements Engine.
func (Codex) Program() string { return "codex" }

// Install implements Engine.
func (Codex) Install() string { return "npm install -g @openai/codex" }

// stopsAtTurnEnd implements turnEnder: Codex reports usage only per
// turn, so a run a board tool ended stops once the model read the
// tool's result.
func (Codex) stopsAtTurnEnd() {}

// MinVersion implements Engine: the oldest version tested; its flags,
// config keys and events change between releases.
func (Codex) MinVersion() string { return "0.169.0" }

// codexKeyEnv carries the run's gateway token to Codex's provider.
const codexKeyEnv = "BONSAI_CODEX_KEY"

// codexMCPTokenEnv carries the board server's token.
const codexMCPTokenEnv = "BONSAI_MCP_TOKEN"

// Command implements Engine. Codex speaks the Responses API: the model
// server is a provider of its own (-c model_providers.bonsai…), the board
// server an MCP server, Bonsai's rules its developer instructions. Its
// own sandbox is off: Bonsai's executor is the boundary, and Codex's
// Landlock sandbox cannot start inside bubblewrap.
func (Codex) Command(in Invocation) (Command, error) {
	if !in.Endpoint.Responses {
		return Command{}, fmt.Errorf("codex speaks the OpenAI Responses API, which model provider %s does not (use an openai/… model)", in.Endpoint.Provider)
	}
	q := strconv.Quote
	argv := []string{in.Bin, "exec"}
	if in.Resume != "" {
		argv = append(argv, "resume")
	}
	argv = append(argv, "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"-m", in.Endpoint.Model)
	argv = append(argv, codexProvider(in)...)
	argv = append(argv, "-c", "check_for_update_on_startup=false",
		"-c", "analytics.enabled=false",
		// No hosted web search, and no plugin sync from GitHub or ChatGPT
		// apps at start-up: the sandbox decides what the agent reaches.
		"-c", `web_search="disabled"`, "--disable", "plugins", "--disable", "apps",
		// The commands the model runs get none of the run's tokens.
		"-c", `shell_environment_policy.exclude=["BONSAI_*"]`)
	files := map[string]string{}
	if in.System != "" {
		files[systemFile] = in.System
		argv = append(argv, "-c", "experimental_instructions_file="+q(filepath.Join(in.ConfigDir, systemFile)))
		b, _ := json.Marshal(in.System)
		argv = append(argv, "-c", "developer_instructions="+string(b))
	}
	env := []string{
		// CODEX_HOME is writable in the sandbox (sessions); its settings
		// files are the runtime's at every start (codexHomeFiles).
		"CODEX_HOME=" + in.HomeDir,
	}
	if !in.Login {
		env = append(env, codexKeyEnv+"="+in.Endpoint.Key)
	}
	if in.MCP.URL != "" {
		// Codex starts its first turn without waiting for an MCP server
		// unless it is required (and gives one 10 s): on a busy machine
		// the agent would work without its board. Required, the run
		// waits for it, up to two minutes, and ends with Codex's error if
		// it never answers; it is on loopback, so the wait costs nothing
		// unless the machine is that busy.
		argv = append(argv, "-c", "mcp_servers."+in.MCP.Name+".url="+q(in.MCP.URL),
			"-c", "mcp_servers."+in.MCP.Name+".bearer_token_env_var="+q(codexMCPTokenEnv),
			"-c", "mcp_servers."+in.MCP.Name+".required=true",
			"-c", "mcp_servers."+in.MCP.Name+".startup_timeout_sec=120")
		env = append(env, codexMCPTokenEnv+"="+in.MCP.Token)
	}
	if in.Thinking.Enabled() {
		// Codex's models always reason: off leaves Codex's own effort.
		argv = append(argv, "-c", "model_reasoning_effort="+q(string(in.Thinking)))
	}
	if in.MCP.Hook != "" {
		// Every shell command and patch is judged by the project's
		// policy first: a PreToolUse hook posts it to the board server
		// (codex_hook.mjs) and blocks it when that fails. Bonsai wrote
		// the hook, so it needs no trust review.
		files[codexHookFile] = codexHook(in.MCP.Hook, in.MCP.Token)
		argv = append(argv, "-c", "hooks="+codexPolicyHooks(in.ConfigDir), "--dangerously-bypass-hook-trust")
	}
	for _, im := range in.Images {
		// One file an option, with "=": --image takes several, and would
		// take the session id and "-" after it too.
		argv = append(argv, "--image="+im.Path)
	}
	if in.Resume != "" {
		argv = append(argv, in.Resume)
	}
	argv = append(argv, "-")
	return Command{Argv: argv, Env: env, Stdin: in.Prompt, Files: files, HomeFiles: loginMountPoint(Codex{}, in, codexHomeFiles)}, nil
}

// codexProvider is the model provider's part of the command line: the
// run's gateway as a provider of its own, or, with the person's login,
// Codex's own OpenAI provider with the login read from auth.json in
// CODEX_HOME (not the system's keyring, which the sandbox hides).
func codexProvider(in Invocation) []string {
	if in.Login {
		return []string{"-c", `cli_auth_credentials_store="file"`}
	}
	q := strconv.Quote
	return []string{"-c", "model_provider=\"bonsai\"",
		"-c", "model_providers.bonsai.name=\"bonsai\"",
		"-c", "model_providers.bonsai.base_url=" + q(in.Endpoint.BaseURL),
		"-c", "model_providers.bonsai.env_key=" + q(codexKeyEnv),
		"-c", "model_providers.bonsai.wire_api=\"responses\""}
}

// codexHomeFiles replace, before every start, the files of CODEX_HOME
// that Codex reads its settings and hooks from: one an agent's command
// wrote there ("[features] codex_hooks = false", hooks of its own, a
// trusted project whose .codex/config.toml then applies) would hold on
// the next start. The run's settings are all on the command line.
var codexHomeFiles = map[string]string{
	"config.toml": "# Written by Bonsai before every start: the run's settings are on Codex's command line.\n",
	"hooks.json":  `{"hooks":{}}` + "\n",
}

// NewParser implements Engine.
func (Codex) NewParser() Parser { return &codexParser{} }

// codexParser reads `exec --json`: thread.started (the session id),
// turn.started, item.started/updated/completed (agent messages, commands,
// file changes, MCP tool calls, reasoning), turn.completed (usage),
// turn.failed and error.
type codexParser struct {
	text string
}

type codexLine struct {
	Type   string    `json:"type"`
	Thread string    `json:"thread_id"`
	Item   codexItem `json:"item"`
	Usage  *struct {
		Input     int64 `json:"input_tokens"`
		Cached    int64 `json:"cached_input_tokens"`
		Output    int64 `json:"output_tokens"`
		Reasoning int64 `json:"reasoning_output_tokens"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
}

// codexItem is the item of an item.started, .updated or .completed
// event.
type codexItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Text             string          `json:"text"`
	Command          string          `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Status           string          `json:"status"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           json.RawMessage `json:"result"`
	Error            json.RawMessage `json:"error"`
	Changes          json.RawMessage `json:"changes"`
}

// Line implements Parser.
func (p *codexParser) Line(b []byte) ([]Event, error) {
	var l codexLine
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("not a codex json event: %w", err)
	}
	switch l.Type {
	case "thread.started":
		return []Event{{Session: l.Thread}}, nil
	case "item.started":
		// A command, MCP call or patch starts: shown running until its
		// item completes.
		if c, ok := codexCall(l.Item); ok {
			return []Event{{Live: &LiveStep{Tool: &c}}, {}}, nil
		}
		return []Event{{}}, nil
	case "item.completed":
		it := l.Item
		if it.Type == "agent_message" {
			p.text = it.Text
			m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text(it.Text)}, StopReason: llm.StopEnd}
			return []Event{{Message: &m}}, nil
		}
		c, ok := codexCall(it)
		if !ok {
			return nil, nil
		}
		switch it.Type {
		case "command_execution":
			return callAndResult(c, it.AggregatedOutput, it.ExitCode != nil && *it.ExitCode != 0 || it.Status == "failed"), nil
		case "mcp_tool_call":
			out := string(it.Result)
			isErr := len(it.Error) > 0 && string(it.Error) != "null"
			if isErr {
				out = string(it.Error)
			}
			return callAndResult(c, out, isErr), nil
		}
		return callAndResult(c, it.Status, it.Status == "failed"), nil
	case "turn.completed":
		// Codex reports usage only here, per turn: a run a board tool
		// ended stops at the end of its turn, whose usage this is. The
		// usage is the thread's total, resumed turns included.
		d := &Done{Text: p.text, Cumulative: true}
		if l.Usage != nil {
			d.Usage = llm.Usage{Input: l.Usage.Input - l.Usage.Cached, CacheRead: l.Usage.Cached, Output: l.Usage.Output}
		}
		return []Event{{Done: d, StepEnd: true}}, nil
	case "turn.failed", "error":
		msg := l.Message
		if len(l.Error) > 0 {
			var e struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(l.Error, &e) == nil && e.Message != "" {
				msg = e.Message
			}
		}
		return []Event{{Done: &Done{Text: p.text, Error: msg}}}, nil
	}
	return []Event{{}}, nil
}

// codexCall is the tool call of an item that is one: a command, an MCP
// tool call or a file change.
func codexCall(it codexItem) (llm.Part, bool) {
	switch it.Type {
	case "command_execution":
		args, _ := json.Marshal(map[string]string{"command": it.Command})
		return llm.ToolCall(it.ID, "shell", args), true
	case "mcp_tool_call":
		return llm.ToolCall(it.ID, "mcp__"+it.Server+"__"+it.Tool, it.Arguments), true
	case "file_change":
		return llm.ToolCall(it.ID, "apply_patch", it.Changes), true
	}
	return llm.Part{}, false
}

// callAndResult is a finished tool call as the transcript's pair of
// entries.
func callAndResult(c llm.Part, output string, isErr bool) []Event {
	call := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{c}, StopReason: llm.StopToolUse}
	res := llm.ToolResultText(c.ID, c.Name, output, isErr)
	return []Event{{Message: &call}, {Message: &res}}
}

// Flush implements Parser: every event is complete.
func (p *codexParser) Flush() []Event { return nil }
