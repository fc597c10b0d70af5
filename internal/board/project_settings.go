package board

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SettingKind is the type of a project setting's value, as Go holds it.
type SettingKind int

// The kinds of setting.
const (
	KindText   SettingKind = iota // string
	KindInt                       // int64; 0 is the default
	KindUSD                       // float64 US dollars; 0 is the default
	KindBool                      // bool
	KindChoice                    // string, one of the setting's stored values
	KindList                      // []string
)

// Setting is one agent setting of a project, declared once in Settings.
// The flags of `bonsai project add|edit`, the fields of the API's project
// create and PATCH, the web settings form, `bonsai project show` and the
// stored settings JSON all derive from it.
type Setting struct {
	// Name is the setting's field in the API, the web form, the stored
	// JSON and the events that record a change: "budgetUsd".
	Name string
	// Flag is its flag on project add and edit, without dashes.
	Flag string
	// Label names it on the web form and in `project show`.
	Label string
	// Help says what it does and what its default (0, empty) means.
	Help string
	// Kind is its type.
	Kind SettingKind
	// Min and Max bound a KindInt value other than 0 (the default); a Max
	// of 0 means only "not negative".
	Min, Max int64
	// Unit follows a number in `project show`: "MiB".
	Unit string
	// Sep, for a list, separates its items in one flag value; empty means
	// one item per flag (the flag repeats).
	Sep string
	// Row, when set, is the `project show` row the setting is listed in
	// (with the others of the same row) and the web form's section where
	// an input made from this row sets it. Settings without one have rows
	// and inputs written by hand; a new setting sets Row.
	Row string
	// Note, when set, follows a value other than the default in
	// `project show`: what a person must know of it, such as a risk.
	Note string
	// ptr returns a pointer to the setting's field of a: *string (also for
	// choices), *int64, *float64, *bool or *[]string.
	ptr func(a *AgentSettings) any
	// choice reads and names a KindChoice value; check is an extra check
	// of a text value or of each list item.
	choice *choiceOps
	check  func(string) error
}

// choiceOps read a choice as a person types it and name a stored value.
type choiceOps struct {
	parse func(string) (string, error)
	name  func(string) string
}

// choiceOf adapts a choice type's parser and String method to choiceOps.
func choiceOf[T interface {
	~string
	String() string
}](parse func(string) (T, error)) *choiceOps {
	return &choiceOps{
		parse: func(s string) (string, error) {
			v, err := parse(s)
			return string(v), err
		},
		name: func(s string) string { return T(s).String() },
	}
}

// Settings are a project's agent settings, in the order forms and help
// list them. Adding a setting: a field of AgentSettings, a row here (with
// a Row), the code that uses it, and its line in docs/cli.md; the flags,
// the API, the web form, project show and the store follow.
var Settings = []Setting{
	{Name: "model", Flag: "model", Label: "Model", Kind: KindText, check: ValidateModelID,
		Help: "model for this project's agents, provider/model (empty: config.json's model)",
		ptr:  func(a *AgentSettings) any { return &a.Model }},
	{Name: "verify", Flag: "verify", Label: "Verify command", Kind: KindText,
		Help: "command that must pass before a ticket enters VERIFICATION, e.g. \"go test ./...\" (empty: none)",
		ptr:  func(a *AgentSettings) any { return &a.Verify }},
	{Name: "budgetUsd", Flag: "budget", Label: "Budget per ticket", Kind: KindUSD,
		Help: "spend cap per ticket in USD (0: config.json's budget.ticketUSD)",
		ptr:  func(a *AgentSettings) any { return &a.BudgetUSD }},
	{Name: "ticketTokens", Flag: "ticket-tokens", Label: "Tokens per ticket", Kind: KindInt,
		Help: "token cap per ticket (0: config.json's budget.ticketTokens)",
		ptr:  func(a *AgentSettings) any { return &a.TicketTokens }},
	{Name: "runBudgetUsd", Flag: "run-budget", Label: "Budget per run", Kind: KindUSD,
		Help: "spend cap per run in USD (0: config.json's budget.runUSD)",
		ptr:  func(a *AgentSettings) any { return &a.RunBudgetUSD }},
	{Name: "runTokens", Flag: "run-tokens", Label: "Tokens per run", Kind: KindInt,
		Help: "token cap per run (0: config.json's budget.runTokens)",
		ptr:  func(a *AgentSettings) any { return &a.RunTokens }},
	{Name: "dailyBudgetUsd", Flag: "daily-budget", Label: "Budget per day", Kind: KindUSD,
		Help: "spend cap per day for the project in USD (0: config.json's budget.projectDailyUSD)",
		ptr:  func(a *AgentSettings) any { return &a.DailyBudgetUSD }},
	{Name: "dailyTokens", Flag: "daily-tokens", Label: "Tokens per day", Kind: KindInt,
		Help: "token cap per day for the project (0: config.json's budget.projectDailyTokens)",
		ptr:  func(a *AgentSettings) any { return &a.DailyTokens }},
	{Name: "takeBacklog", Flag: "take-backlog", Label: "Take backlog", Kind: KindBool,
		Help: "let agents take BACKLOG tickets by themselves once nothing in RESEARCH or IN_PROGRESS waits",
		ptr:  func(a *AgentSettings) any { return &a.TakeBacklog }},
	{Name: "permissionMode", Flag: "permission-mode", Label: "Permission mode", Kind: KindChoice, choice: choiceOf(ParsePermissionMode),
		Help: "auto: agents implement the plans they save; plan: a person approves each plan first; " +
			"ask: a person approves each command not on the --allow list; read-only: agents research and plan only",
		ptr: func(a *AgentSettings) any { return (*string)(&a.PermissionMode) }},
	{Name: "allow", Flag: "allow", Label: "Allowed commands", Kind: KindList,
		Help: `command pattern agents may run without asking, e.g. "go test *" (repeatable; replaces the list)`,
		ptr:  func(a *AgentSettings) any { return &a.Allow }},
	{Name: "ask", Flag: "ask", Label: "Commands to ask about", Kind: KindList,
		Help: `command pattern that always waits for a person's approval, e.g. "git push *" (repeatable)`,
		ptr:  func(a *AgentSettings) any { return &a.Ask }},
	{Name: "sandbox", Flag: "sandbox", Label: "Sandbox", Kind: KindChoice, choice: choiceOf(ParseSandboxMode),
		Help: "required: agents' commands run in the sandbox or not at all (default); off: on the host as you",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.Sandbox) }},
	{Name: "network", Flag: "network", Label: "Network", Kind: KindChoice, choice: choiceOf(ParseNetworkMode),
		Help: "what sandboxed commands reach: proxy (package registries, the git remote and --allow-host, the default), none or all",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.Network) }},
	{Name: "allowHosts", Flag: "allow-host", Label: "Allowed hosts", Kind: KindList, check: ValidateHostPattern,
		Help: "host the proxy lets commands reach besides the registries, e.g. api.example.com or *.example.com (repeatable)",
		ptr:  func(a *AgentSettings) any { return &a.AllowHosts }},
	{Name: "land", Flag: "land", Label: "Land approved work", Kind: KindChoice, choice: choiceOf(ParseLandMode),
		Help: "how approved work reaches the default branch: auto (merge for a local repository, pr on a forge with a token; the default), merge, pr or none",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.Land) }},
	{Name: "landStyle", Flag: "land-style", Label: "Merge style", Kind: KindChoice, choice: choiceOf(ParseLandStyle),
		Help: "how --land merge joins the work: squash (one commit, the default), merge or rebase",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.LandStyle) }},
	{Name: "updateStyle", Flag: "update-style", Label: "Keep branches current", Kind: KindChoice, choice: choiceOf(ParseUpdateStyle),
		Help: "how the default branch is brought into a ticket branch before review and landing: merge (the default) or rebase",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.UpdateStyle) }},
	{Name: "engine", Flag: "engine", Label: "Engine", Kind: KindChoice, choice: choiceOf(ParseEngine),
		Help: "the agent that works the tickets: bonsai (the default), claude-code, codex or opencode",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.Engine) }},
	{Name: "thinking", Flag: "thinking", Label: "Thinking", Kind: KindChoice, choice: choiceOf(ParseThinking),
		Help: "how hard ticket runs think: default (config.json's agent.thinking), off, low, medium or high",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.Thinking) }},
	{Name: "engineAuth", Flag: "engine-auth", Label: "engine", Kind: KindChoice, choice: choiceOf(ParseEngineAuth), Row: "Credentials",
		Help: "whose credentials an engine CLI uses: gateway (Bonsai's key through the run's gateway, the default) or login " +
			"(the CLI's own login, e.g. a Claude or ChatGPT subscription: the agent's commands run beside it and can read and send it; docs/engines.md)",
		Note: "the agent's commands run beside your login's credential file and can read it and send it to the provider's hosts: docs/engines.md",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.EngineAuth) }},
	{Name: "mcpServers", Flag: "mcp", Label: "MCP servers", Kind: KindList, Sep: ",", check: ValidateMCPName,
		Help: `MCP servers of config.json's mcp.servers that ticket runs use, e.g. github,files (replaces the list; "" clears it)`,
		ptr:  func(a *AgentSettings) any { return &a.MCPServers }},
	{Name: "scheduleTools", Flag: "schedule-tools", Label: "Schedule tools", Kind: KindBool,
		Help: "give the agents the board tools that create, list and cancel the project's schedules",
		ptr:  func(a *AgentSettings) any { return &a.ScheduleTools }},
	{Name: "maxAgents", Flag: "max-agents", Label: "agents at once", Kind: KindInt, Min: 1, Max: MaxAgentsLimit, Row: "Concurrency",
		Help: fmt.Sprintf("tickets of the project worked at once, each in its own worktree, 1 to %d (0: %d)", MaxAgentsLimit, DefaultMaxAgents),
		ptr:  func(a *AgentSettings) any { return &a.MaxAgents }},
	limit("limitMemoryMib", "limit-memory-mib", "memory", "MiB of memory one run's sandbox may use", "memoryMiB", 64, 1<<20,
		func(a *AgentSettings) any { return &a.LimitMemoryMiB }),
	limit("limitProcesses", "limit-processes", "processes", "processes and threads one run's sandbox may have", "processes", 16, 1<<20,
		func(a *AgentSettings) any { return &a.LimitProcesses }),
	limit("limitTmpMib", "limit-tmp-mib", "tmp", "MiB of the sandbox's private /tmp", "tmpMiB", 1, 1<<20,
		func(a *AgentSettings) any { return &a.LimitTmpMiB }),
	limit("limitFileSizeMib", "limit-file-size-mib", "file size", "MiB of the largest file a sandboxed command may write", "fileSizeMiB", 1, 1<<30,
		func(a *AgentSettings) any { return &a.LimitFileSizeMiB }),
	limit("limitDiskGrowthMib", "limit-disk-growth-mib", "disk growth", "MiB the worktree and its .git may grow in one run", "diskGrowthMiB", 1, 1<<30,
		func(a *AgentSettings) any { return &a.LimitDiskGrowthMiB }),
}

func init() { Settings = append(Settings, trackerSettings...) }

// DefaultMaxAgents is how many tickets of a project run at once when its
// max-agents setting is 0, and MaxAgentsLimit the most it may set
// (docs/heartbeat.md, "Many agents per project").
const (
	DefaultMaxAgents = 1
	MaxAgentsLimit   = 64
)

// Agents is how many of the project's tickets may be worked at once: its
// MaxAgents, or DefaultMaxAgents when that is 0.
func (a AgentSettings) Agents() int {
	if a.MaxAgents <= 0 {
		return DefaultMaxAgents
	}
	return int(min(a.MaxAgents, MaxAgentsLimit))
}

// limit declares one of the sandbox limits of a project, listed in the
// row "Limits" of project show and defaulting to config.json's
// limits.<key>.
func limit(name, flag, label, help, key string, lo, hi int64, ptr func(a *AgentSettings) any) Setting {
	unit := ""
	if strings.HasSuffix(flag, "-mib") {
		unit = "MiB"
	}
	return Setting{Name: name, Flag: flag, Label: label, Kind: KindInt, Min: lo, Max: hi, Unit: unit, Row: "Limits", ptr: ptr,
		Help: fmt.Sprintf("%s, %d to %d (0: config.json's limits.%s)", help, lo, hi, key)}
}

// LookupSetting returns the setting named name (Setting.Name).
func LookupSetting(name string) (Setting, bool) {
	for _, s := range Settings {
		if s.Name == name {
			return s, true
		}
	}
	return Setting{}, false
}

// Get returns the setting's value in a: a string (for a choice, the stored
// value), int64, float64, bool or []string.
func (s Setting) Get(a AgentSettings) any {
	switch p := s.ptr(&a).(type) {
	case *string:
		return *p
	case *int64:
		return *p
	case *float64:
		return *p
	case *bool:
		return *p
	case *[]string:
		return *p
	}
	panic("board: setting " + s.Name + " has no field")
}

// IsDefault reports whether the setting has its default (zero) value in a.
func (s Setting) IsDefault(a AgentSettings) bool {
	switch v := s.Get(a).(type) {
	case []string:
		return len(v) == 0
	default:
		return v == zeroOf(s.Kind)
	}
}

// zeroOf is the zero value of a kind's Go type.
func zeroOf(k SettingKind) any {
	switch k {
	case KindInt:
		return int64(0)
	case KindUSD:
		return float64(0)
	case KindBool:
		return false
	}
	return ""
}

// Parse reads a value as a person types it on a command line or a form:
// a number, true or false, a choice's name, or a list's items separated
// by Sep (by lines when Sep is empty). It returns what Get returns.
func (s Setting) Parse(text string) (any, error) {
	t := strings.TrimSpace(text)
	switch s.Kind {
	case KindInt:
		if t == "" {
			return int64(0), nil
		}
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, Errorf(EINVALID, "%s must be a whole number, got %q", s.Label, text)
		}
		return n, nil
	case KindUSD:
		if t == "" {
			return float64(0), nil
		}
		f, err := strconv.ParseFloat(strings.TrimPrefix(t, "$"), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, Errorf(EINVALID, "%s must be a number of dollars, e.g. 2.50, got %q", s.Label, text)
		}
		return f, nil
	case KindBool:
		b, err := strconv.ParseBool(t)
		if err != nil {
			return nil, Errorf(EINVALID, "%s must be true or false, got %q", s.Label, text)
		}
		return b, nil
	case KindChoice:
		return s.choice.parse(t)
	case KindList:
		sep := s.Sep
		if sep == "" {
			sep = "\n"
		}
		return s.cleanList(strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), sep))
	}
	return t, nil
}

// cleanList trims a list's items, drops the empty ones and checks the
// others.
func (s Setting) cleanList(items []string) ([]string, error) {
	var out []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it == "" {
			continue
		}
		if s.check != nil {
			if err := s.check(it); err != nil {
				return nil, err
			}
		}
		out = append(out, it)
	}
	return out, nil
}

// Check checks a value as Get returns it: its type, a choice's value, a
// number's range and the setting's own check of a text or of each item.
// The policy checks command patterns' syntax before they are saved.
func (s Setting) Check(v any) error {
	var probe AgentSettings
	if err := s.set(&probe, v); err != nil {
		return err
	}
	return s.checkIn(probe)
}

// checkIn checks the setting's value in a.
func (s Setting) checkIn(a AgentSettings) error {
	switch v := s.Get(a).(type) {
	case int64:
		if v < 0 || v != 0 && s.Max > 0 && (v < s.Min || v > s.Max) {
			return s.rangeError(v)
		}
	case float64:
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return Errorf(EINVALID, "%s must be 0 or more dollars, got %g", s.Label, v)
		}
	case string:
		if s.Kind == KindChoice {
			if got, err := s.choice.parse(v); err != nil || got != v {
				return Errorf(EINVALID, "%s %q is not a stored value", s.Label, v)
			}
		} else if s.check != nil {
			return s.check(v)
		}
	case []string:
		if s.check != nil {
			for _, it := range v {
				if err := s.check(it); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// rangeError says a number is out of the setting's range.
func (s Setting) rangeError(v int64) error {
	if s.Max == 0 {
		return Errorf(EINVALID, "%s must be 0 (the default) or more, got %d", s.Label, v)
	}
	return Errorf(EINVALID, "%s must be 0 (the default) or from %d to %d, got %d", s.Label, s.Min, s.Max, v)
}

// set sets the setting's field of a to v, a value of the type Get
// returns; an empty list is stored as nil.
func (s Setting) set(a *AgentSettings, v any) error {
	ok := false
	switch p := s.ptr(a).(type) {
	case *string:
		*p, ok = v.(string)
	case *int64:
		*p, ok = v.(int64)
	case *float64:
		*p, ok = v.(float64)
	case *bool:
		*p, ok = v.(bool)
	case *[]string:
		*p, ok = v.([]string)
		if len(*p) == 0 {
			*p = nil
		}
	}
	if !ok {
		return Errorf(EINVALID, "setting %s: a %T is not a value of this setting", s.Name, v)
	}
	return nil
}

// SetSettings sets the named settings of a (Setting.Name to a value of
// the type Get returns), in table order, and returns the names of those
// that changed. On error a is left as it was; the caller validates the
// project.
func SetSettings(a *AgentSettings, values map[string]any) ([]string, error) {
	for name := range values {
		if _, ok := LookupSetting(name); !ok {
			return nil, Errorf(EINVALID, "unknown project setting %q", name)
		}
	}
	next := *a
	var changed []string
	for _, s := range Settings {
		v, ok := values[s.Name]
		if !ok {
			continue
		}
		before := s.Get(next)
		if err := s.set(&next, v); err != nil {
			return nil, err
		}
		if !sameValue(before, s.Get(next)) {
			changed = append(changed, s.Name)
		}
	}
	*a = next
	return changed, nil
}

// sameValue reports whether two values of one setting are equal.
func sameValue(a, b any) bool {
	if l, ok := a.([]string); ok {
		return slices.Equal(l, b.([]string))
	}
	return a == b
}

// Format shows the setting's value in a as a person types it: a choice by
// its name, a list one item a line (or joined by Sep), 0 and false as
// such.
func (s Setting) Format(a AgentSettings) string {
	switch v := s.Get(a).(type) {
	case string:
		if s.Kind == KindChoice {
			return s.choice.name(v)
		}
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case []string:
		sep := s.Sep
		if sep == "" {
			sep = "\n"
		}
		return strings.Join(v, sep)
	}
	return ""
}
