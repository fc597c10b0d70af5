package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// Config is the content of config.json.
type Config struct {
	// Model is the default "provider/model" for agents.
	Model     string    `json:"model"`
	Heartbeat Heartbeat `json:"heartbeat"`
	Agent     Agent     `json:"agent"`
	Budget    Budget    `json:"budget"`
	// Policy holds command patterns for every project, beside each
	// project's own (docs/policy.md).
	Policy Policy `json:"policy,omitzero"`
	// Network configures the sandbox's proxy for every project.
	Network Network `json:"network,omitzero"`
	// Limits bounds what one run's sandbox takes of the machine.
	Limits Limits `json:"limits,omitzero"`
	// Models overrides the model catalog, by "provider/model" id.
	Models map[string]ModelSettings `json:"models,omitempty"`
	// Providers configures model providers by name (their base URLs).
	Providers map[string]ProviderSettings `json:"providers,omitempty"`
	// Forge names the self-hosted forges (docs/forges.md).
	Forge Forge `json:"forge,omitzero"`
	// Git names who Bonsai's commits are by (git.go).
	Git Git `json:"git,omitzero"`
	// MCP configures the MCP servers of Bonsai's own agent (mcp.go).
	MCP MCP `json:"mcp,omitzero"`
	// Store chooses the board's database (issue 18, store.go).
	Store Store `json:"store,omitzero"`
	// Attachments bounds the files on tickets (attachments.go).
	Attachments Attachments `json:"attachments,omitzero"`
}

// Heartbeat configures the heartbeat.
type Heartbeat struct {
	IntervalSec    int `json:"intervalSec"`
	MaxDurationSec int `json:"maxDurationSec"`
	// MaxConcurrentAgents caps agents running at once; 0 means "auto":
	// eight per core, 4 to 64, at most one per 512 MiB of available
	// memory (heartbeat.AutoConcurrency).
	MaxConcurrentAgents AutoInt `json:"maxConcurrentAgents"`
}

// Agent configures every agent.
type Agent struct {
	// Env names extra environment variables passed to the agent's commands,
	// beside the built-in allowlist. Secrets are never passed, whatever the
	// name.
	Env []string `json:"env"`
	// Thinking is the thinking level of every agent ("off", "low",
	// "medium", "high"); "" leaves each ticket task its own default
	// (see thinking.go).
	Thinking string `json:"thinking,omitempty"`
	// TaskThinking sets the level of ticket runs per task, over Thinking.
	TaskThinking TaskThinking `json:"taskThinking,omitzero"`
	// ReasoningSummary is "auto" (or "", the default) to ask OpenAI's
	// reasoning models for summaries of their reasoning, "off" not to:
	// OpenAI gives them only to verified organisations.
	ReasoningSummary string `json:"reasoningSummary,omitempty"`
}

// Policy holds the command patterns every project's policy uses, beside
// its own: Allow runs without asking, Ask waits for a person.
type Policy struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
}

// Network configures the proxy of sandboxes in the proxy network mode.
type Network struct {
	// AllowHosts are hosts every project's commands may reach, beside
	// the package registries, the project's git remote and the project's
	// own allowed hosts.
	AllowHosts []string `json:"allowHosts,omitempty"`
}

// Budget caps what agents spend, for every project; a project's own
// settings override each cap. Zero means no cap. Tokens count input,
// output and cached tokens alike.
type Budget struct {
	// RunTokens and RunUSD cap one run of an agent.
	RunTokens int     `json:"runTokens"`
	RunUSD    float64 `json:"runUSD"`
	// TicketTokens and TicketUSD cap all the runs of one ticket.
	TicketTokens int     `json:"ticketTokens"`
	TicketUSD    float64 `json:"ticketUSD"`
	// ProjectDailyTokens and ProjectDailyUSD cap all the runs of one
	// project started since midnight (local time).
	ProjectDailyTokens int     `json:"projectDailyTokens"`
	ProjectDailyUSD    float64 `json:"projectDailyUSD"`
}

// Limits bounds what the commands of one run (one sandbox) take of the
// machine, for every project (docs/sandbox.md, "Limits"). 0, written
// "auto", is the default of SandboxLimits.
type Limits struct {
	// MemoryMiB bounds the sandbox's memory (its processes together
	// when the runtime has a cgroup, each process always).
	MemoryMiB AutoInt `json:"memoryMiB,omitzero"`
	// Processes bounds the sandbox's processes and threads.
	Processes AutoInt `json:"processes,omitzero"`
	// TmpMiB is the size of the sandbox's private /tmp.
	TmpMiB AutoInt `json:"tmpMiB,omitzero"`
	// FileSizeMiB is the largest file a command may write.
	FileSizeMiB AutoInt `json:"fileSizeMiB,omitzero"`
	// DiskGrowthMiB bounds how much the worktree and the clone's .git
	// may grow during one run.
	DiskGrowthMiB AutoInt `json:"diskGrowthMiB,omitzero"`
}

// The defaults of Limits: a runaway command cannot take a 2-core, 8 GB
// machine down, and builds and test suites of ordinary projects fit.
const (
	DefaultMemoryMiB     = 2048
	DefaultProcesses     = 1024
	DefaultTmpMiB        = 1024
	DefaultFileSizeMiB   = 4096
	DefaultDiskGrowthMiB = 8192
)

// Resolved returns l with every "auto" replaced by its default.
func (l Limits) Resolved() Limits {
	pick := func(v AutoInt, def int) AutoInt {
		if v == 0 {
			return AutoInt(def)
		}
		return v
	}
	return Limits{
		MemoryMiB: pick(l.MemoryMiB, DefaultMemoryMiB), Processes: pick(l.Processes, DefaultProcesses),
		TmpMiB: pick(l.TmpMiB, DefaultTmpMiB), FileSizeMiB: pick(l.FileSizeMiB, DefaultFileSizeMiB),
		DiskGrowthMiB: pick(l.DiskGrowthMiB, DefaultDiskGrowthMiB),
	}
}

// AutoInt is a positive number, or 0 written as "auto".
type AutoInt int

// MarshalJSON writes 0 as "auto".
func (a AutoInt) MarshalJSON() ([]byte, error) {
	if a == 0 {
		return []byte(`"auto"`), nil
	}
	return []byte(strconv.Itoa(int(a))), nil
}

// String returns "auto" or the number.
func (a AutoInt) String() string {
	if a == 0 {
		return "auto"
	}
	return strconv.Itoa(int(a))
}

// DefaultModel is the model used when neither the project nor config.json
// names one.
const DefaultModel = "anthropic/claude-sonnet-4-5"

// The caps a new data directory starts with (docs/configuration.md): a
// model that keeps failing, or an agent that loops, stops within a few
// dollars a ticket and a day, until a person lifts them. A run of the
// default model costs cents to a dollar or two, so ordinary work stays
// far below them.
const (
	DefaultTicketUSD       = 10.0
	DefaultProjectDailyUSD = 25.0
)

// Default returns the configuration of a fresh data directory, which Init
// writes to its config.json, with the default budget caps.
func Default() Config {
	c := unset()
	c.Budget = Budget{TicketUSD: DefaultTicketUSD, ProjectDailyUSD: DefaultProjectDailyUSD}
	return c
}

// unset is what a key a config.json does not hold means: the defaults,
// except the budget caps, which are absent (no cap). The caps are written
// into a new data directory's config.json; a file written before they
// existed, or by hand without them, keeps meaning no cap.
func unset() Config {
	return Config{
		Model: DefaultModel,
		Heartbeat: Heartbeat{
			IntervalSec:    60,
			MaxDurationSec: 1800,
		},
		Agent: Agent{Env: []string{}},
	}
}

// MarshalFile returns c as config.json writes it: indented, keys in a fixed
// order, with a trailing newline.
func (c Config) MarshalFile() ([]byte, error) {
	if c.Agent.Env == nil {
		c.Agent.Env = []string{}
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// FileError is a problem in config.json: the file, the key (dotted, empty
// when the whole file is wrong) and what is wrong.
type FileError struct {
	File string
	Key  string
	Err  error
}

// Error implements the error interface.
func (e *FileError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.File, e.Key, e.Err)
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// Load reads and validates config.json. A missing file gives the defaults.
func Load(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Config{}, err
	}
	return Parse(path, b)
}

// Parse validates the contents of a config file named path (used in
// errors). Keys not present keep their defaults, except the budget caps,
// which are 0 (no cap) unless the file sets them.
func Parse(path string, b []byte) (Config, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return Config{}, &FileError{File: path, Err: errors.New("is empty; it must be a JSON object of settings")}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return Config{}, &FileError{File: path, Err: fmt.Errorf("not valid JSON: %v", err)}
	}
	if raw == nil {
		// JSON null decodes to no map at all: not "every default".
		return Config{}, &FileError{File: path, Err: errors.New("must be a JSON object of settings, got null")}
	}
	if dec.More() {
		return Config{}, &FileError{File: path, Err: errors.New("not valid JSON: extra data after the top-level object")}
	}
	c := unset()
	if err := apply(&c, "", raw); err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.File = path
		}
		return Config{}, err
	}
	return c, nil
}

// apply walks a decoded JSON object, setting every known key of c.
func apply(c *Config, prefix string, obj map[string]any) error {
	for name, v := range obj {
		full := name
		if prefix != "" {
			full = prefix + "." + name
		}
		if k, ok := lookup(full); ok {
			if err := k.setJSON(c, v); err != nil {
				return &FileError{Key: full, Err: err}
			}
			continue
		}
		if full == modelsKey {
			if err := applyModels(c, v); err != nil {
				return err
			}
			continue
		}
		if full == providersKey {
			if err := applyProviders(c, v); err != nil {
				return err
			}
			continue
		}
		if full == "mcp" {
			if err := applyMCP(c, v); err != nil {
				return err
			}
			continue
		}
		if full == forgeHostsKey {
			if err := applyForgeHosts(c, v); err != nil {
				return err
			}
			continue
		}
		if isSection(full) || full == "forge" {
			sub, ok := v.(map[string]any)
			if !ok {
				return &FileError{Key: full, Err: fmt.Errorf("must be an object")}
			}
			if err := apply(c, full, sub); err != nil {
				return err
			}
			continue
		}
		return &FileError{Key: full, Err: fmt.Errorf("unknown key%s; known keys are %s, %s, %s, %s, %s", didYouMean(full), knownKeys(), modelKeyHelp(), providerKeyHelp(), forgeKeyHelp(), mcpKeyHelp())}
	}
	return nil
}

// Save validates c and writes it to path atomically.
func Save(path string, c Config) error {
	for _, k := range keys {
		if err := k.validate(c); err != nil {
			return &FileError{File: path, Key: k.name, Err: err}
		}
	}
	b, err := c.MarshalFile()
	if err != nil {
		return err
	}
	return writeAtomic(path, b, FileMode)
}
