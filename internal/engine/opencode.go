package engine

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// OpenCode is OpenCode (`opencode run --format json`).
type OpenCode struct{}

// Name implements Engine.
func (OpenCode) Name() string { return "opencode" }

// Program implements Engine.
func (OpenCode) Program() string { return "opencode" }

// Install implements Engine.
func (OpenCode) Install() string { return "npm install -g opencode-ai" }

// MinVersion implements Engine: the oldest version tested; its flags,
// config keys and events change between releases.
func (OpenCode) MinVersion() string { return "1.18.0" }

// Command implements Engine. OpenCode reads its whole configuration from
// OPENCODE_CONFIG_CONTENT: the model server as a provider, the board
// server as a remote MCP server, the system prompt as an instructions
// file, and its permissions (openCodePermissions: the executor is the
// boundary).
func (OpenCode) Command(in Invocation) (Command, error) {
	provider, providers, err := openCodeProvider(in)
	if err != nil {
		return Command{}, err
	}
	model := map[string]any{"name": in.Endpoint.Model}
	if in.Thinking.Enabled() {
		// The model's options go to the AI SDK's provider as its
		// provider options.
		if provider == "anthropic" {
			model["options"] = map[string]any{"thinking": map[string]any{"type": "enabled", "budgetTokens": in.Thinking.ThinkingBudget()}}
		} else {
			model["options"] = map[string]any{"reasoningEffort": string(in.Thinking)}
		}
	}
	cfg := map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"autoupdate":  false,
		"share":       "disabled",
		"model":       provider + "/" + in.Endpoint.Model,
		"small_model": provider + "/" + in.Endpoint.Model,
		"permission":  openCodePermissions("allow"),
		// No title request: it would spend a model call per session.
		"agent": map[string]any{"title": map[string]any{"disable": true}},
	}
	if in.ReadOnly {
		cfg["permission"] = openCodePermissions("deny")
	}
	if providers != nil {
		providers[provider]["models"] = map[string]any{in.Endpoint.Model: model}
		cfg["provider"] = providers
	}
	// OpenCode's config directory (XDG_CONFIG_HOME/opencode) is the
	// runtime's, read-only in the sandbox: OpenCode writes these two
	// files there when they are missing, and stops when it cannot.
	files := map[string]string{
		"opencode/opencode.jsonc": "{\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n",
		"opencode/.gitignore":     "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n",
	}
	if in.System != "" {
		files[systemFile] = in.System
		cfg["instructions"] = []string{filepath.Join(in.ConfigDir, systemFile)}
	}
	if in.MCP.URL != "" {
		cfg["mcp"] = map[string]any{in.MCP.Name: map[string]any{"type": "remote", "url": in.MCP.URL,
			"headers": map[string]string{"Authorization": "Bearer " + in.MCP.Token}, "enabled": true}}
	}
	if in.MCP.Hook != "" {
		// The policy plugin asks the board server before each command.
		files[openCodePolicyFile] = openCodePolicy(in.MCP.Hook, in.MCP.Token)
		plugin := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(in.ConfigDir, openCodePolicyFile))}
		if !strings.HasPrefix(plugin.Path, "/") {
			plugin.Path = "/" + plugin.Path // a Windows drive letter
		}
		cfg["plugin"] = []string{plugin.String()}
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return Command{}, err
	}
	argv := []string{in.Bin, "run", "--format", "json", "-m", provider + "/" + in.Endpoint.Model}
	if in.Resume != "" {
		argv = append(argv, "--session", in.Resume)
	}
	for _, im := range in.Images {
		// One file an option, with "=": --file is an array, and would
		// take what follows it too.
		argv = append(argv, "--file="+im.Path)
	}
	env := []string{
		"OPENCODE_CONFIG_CONTENT=" + string(b),
		// Its database, logs and caches live in the ticket's home
		// directory, so a session resumes on the next beat.
		"XDG_DATA_HOME=" + filepath.Join(in.HomeDir, "data"),
		// Its config directory is the runtime's (read-only in the
		// sandbox, holding no opencode/ directory): one in the home would
		// load the plugins and settings the agent's commands put there.
		"XDG_CONFIG_HOME=" + in.ConfigDir,
		"XDG_CACHE_HOME=" + filepath.Join(in.HomeDir, "cache"),
		"XDG_STATE_HOME=" + filepath.Join(in.HomeDir, "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_CLAUDE_CODE=1", "OPENCODE_DISABLE_PROJECT_CONFIG=1",
	}
	if !in.Login {
		// Its built-in plugins log in to the providers' subscriptions:
		// with the gateway there is nothing to log in to.
		env = append(env, "OPENCODE_DISABLE_DEFAULT_PLUGINS=1")
	}
	return Command{Argv: argv, Env: env, Stdin: in.Prompt, Files: files, HomeFiles: loginMountPoint(OpenCode{}, in, nil)}, nil
}

// openCodeProvider is the provider OpenCode's model is named by, and the
// config's providers: the run's gateway as Anthropic's or an OpenAI
// compatible provider, or, with the person's login, none: OpenCode's own
// provider of that name with the login of its auth.json.
func openCodeProvider(in Invocation) (string, map[string]map[string]any, error) {
	if in.Login {
		switch in.Endpoint.Provider {
		case "anthropic", "openai":
			return in.Endpoint.Provider, nil, nil
		}
		return "", nil, fmt.Errorf("opencode logs in to anthropic and openai only, not to model provider %s: use --engine-auth gateway", in.Endpoint.Provider)
	}
	base := in.Endpoint.BaseURL
	var provider, npm string
	switch in.Endpoint.Wire {
	case llm.WireAnthropicMessages:
		provider, npm, base = "anthropic", "@ai-sdk/anthropic", strings.TrimSuffix(base, "/")+"/v1"
	case llm.WireOpenAIChat:
		provider, npm = "bonsai", "@ai-sdk/openai-compatible"
	default:
		return "", nil, fmt.Errorf("opencode cannot speak %s (model provider %s)", in.Endpoint.Wire, in.Endpoint.Provider)
	}
	return provider, map[string]map[string]any{provider: {"npm": npm, "name": in.Endpoint.Provider,
		"options": map[string]any{"baseURL": base, "apiKey": in.Endpoint.Key}}}, nil
}

// openCodePermissions are a run's permissions: nothing is asked (no one
// can answer in `opencode run`, which then gives up): commands, paths
// outside the worktree (the sandbox bounds them) and repeated calls are
// allowed, edits as given, the web refused.
func openCodePermissions(edit string) map[string]any {
	return map[string]any{"edit": edit, "bash": "allow", "external_directory": "allow", "doom_loop": "allow",
		"webfetch": "deny", "websearch": "deny", "codesearch": "deny"}
}

// NewParser implements Engine.
func (OpenCode) NewParser() Parser { return &openCodeParser{} }

// openCodeParser reads `run --format json`: step_start, text, tool_use
// (a finished tool call with its output), step_finish (tokens and cost
// of one model request) and error events, each naming the session.
type openCodeParser struct {
	usage llm.Usage
	text  string
	err   string
}

type openCodeLine struct {
	Type    string `json:"type"`
	Session string `json:"sessionID"`
	Part    struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		CallID string `json:"callID"`
		Tool   string `json:"tool"`
		State  struct {
			Status string          `json:"status"`
			Input  json.RawMessage `json:"input"`
			Output string          `json:"output"`
			Error  string          `json:"error"`
		} `json:"state"`
		Reason string  `json:"reason"`
		Cost   float64 `json:"cost"`
		Tokens struct {
			Input     int64 `json:"input"`
			Output    int64 `json:"output"`
			Reasoning int64 `json:"reasoning"`
			Cache     struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
	} `json:"part"`
	Error json.RawMessage `json:"error"`
}

// Line implements Parser.
func (p *openCodeParser) Line(b []byte) ([]Event, error) {
	var l openCodeLine
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("not an opencode json event: %w", err)
	}
	switch l.Type {
	case "text":
		p.text = l.Part.Text
		m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text(l.Part.Text)}, StopReason: llm.StopEnd}
		return []Event{{Session: l.Session, Message: &m}}, nil
	case "tool_use":
		call := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.ToolCall(l.Part.CallID, l.Part.Tool, l.Part.State.Input)}, StopReason: llm.StopToolUse}
		out, isErr := l.Part.State.Output, l.Part.State.Status == "error"
		if isErr && out == "" {
			out = l.Part.State.Error
		}
		res := llm.ToolResultText(l.Part.CallID, l.Part.Tool, out, isErr)
		return []Event{{Session: l.Session, Message: &call}, {Session: l.Session, Message: &res}}, nil
	case "step_finish":
		t := l.Part.Tokens
		u := llm.Usage{Input: t.Input, Output: t.Output + t.Reasoning, CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write, Cost: l.Part.Cost}
		p.usage = p.usage.Add(u)
		// The step's usage is its own assistant entry, so the transcript
		// (and a dead run's charge) counts every request.
		m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{}, Usage: &u, StopReason: llm.StopEnd}
		ev := Event{Session: l.Session, Message: &m, StepEnd: true}
		if l.Part.Reason != "tool-calls" {
			return []Event{ev, {Session: l.Session, Done: &Done{Usage: p.usage, Text: p.text, Error: p.err}}}, nil
		}
		return []Event{ev}, nil
	case "error":
		p.err = strings.TrimSpace(string(l.Error))
		return []Event{{Session: l.Session, Done: &Done{Usage: p.usage, Text: p.text, Error: p.err}}}, nil
	}
	return []Event{{Session: l.Session}}, nil
}

// Flush implements Parser: every event is complete.
func (p *openCodeParser) Flush() []Event { return nil }

// openCodePolicyFile is the policy plugin's file in the engine's config
// directory.
const openCodePolicyFile = "bonsai-policy.js"

//go:embed opencode_policy.js
var openCodePolicyJS string

// openCodePolicy is the plugin that has the board server at hook judge
// each bash command (opencode_policy.js).
func openCodePolicy(hook, token string) string {
	h, _ := json.Marshal(hook)
	t, _ := json.Marshal(token)
	return strings.NewReplacer("__HOOK__", string(h), "__TOKEN__", string(t)).Replace(openCodePolicyJS)
}
