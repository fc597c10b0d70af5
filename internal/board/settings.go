package board

import (
	"strings"
)

// LandMode is how an approved ticket's work reaches the project's default
// branch (docs/landing.md).
type LandMode string

// The landing modes.
const (
	// LandAuto, the default, is resolved when the work lands: merge for a
	// repository that is a local path, pr when the remote is on a known
	// forge and a forge token is stored, none otherwise.
	LandAuto LandMode = ""
	// LandMerge merges the ticket branch into the default branch on
	// approval and pushes it when the project has a remote.
	LandMerge LandMode = "merge"
	// LandPR opens a pull request when the ticket reaches VERIFICATION and
	// merges it through the forge on approval.
	LandPR LandMode = "pr"
	// LandNone leaves the work on the ticket branch.
	LandNone LandMode = "none"
)

// LandStyle is how the merge mode joins the ticket branch to the default
// branch.
type LandStyle string

// The landing styles.
const (
	// LandSquash, the default, makes one commit whose message is built
	// from the ticket's title, number and criteria.
	LandSquash LandStyle = ""
	// LandMergeCommit fast-forwards when possible, else makes a merge
	// commit.
	LandMergeCommit LandStyle = "merge"
	// LandRebase replays the ticket's commits on the default branch.
	LandRebase LandStyle = "rebase"
)

// UpdateStyle is how the runtime brings the default branch into a ticket
// branch before VERIFICATION and before landing.
type UpdateStyle string

// The update styles.
const (
	// UpdateMerge, the default, merges the default branch in: the ticket
	// branch's history is never rewritten.
	UpdateMerge UpdateStyle = ""
	// UpdateRebase rebases the ticket branch on the default branch.
	UpdateRebase UpdateStyle = "rebase"
)

// Engine is the agent that works a project's tickets.
type Engine string

// The engines.
const (
	// EngineBonsai, the default, is Bonsai's own agent loop.
	EngineBonsai     Engine = ""
	EngineClaudeCode Engine = "claude-code"
	EngineCodex      Engine = "codex"
	EngineOpenCode   Engine = "opencode"
)

// EngineAuth is whose credentials an engine CLI talks to its model
// provider with.
type EngineAuth string

// The engine credentials.
const (
	// EngineAuthGateway, the default, gives the CLI a token of the run's
	// model gateway, which holds Bonsai's key.
	EngineAuthGateway EngineAuth = ""
	// EngineAuthLogin gives the CLI the person's own login (a Claude or
	// ChatGPT subscription): its credential file, bound into the sandbox.
	EngineAuthLogin EngineAuth = "login"
)

// Thinking is how much a model reasons before it answers.
type Thinking string

// The thinking levels.
const (
	// ThinkingDefault takes the configured level (agent.thinking and the
	// per-task defaults).
	ThinkingDefault Thinking = ""
	ThinkingOff     Thinking = "off"
	ThinkingLow     Thinking = "low"
	ThinkingMedium  Thinking = "medium"
	ThinkingHigh    Thinking = "high"
)

// enum describes the values of one setting: the value stored, and the
// names a person may type for it (the first is the one shown).
type enum[T ~string] struct {
	field string
	help  string
	names map[T][]string
}

// parse reads a value a person typed.
func (e enum[T]) parse(s string) (T, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for v, names := range e.names {
		for _, n := range names {
			if n == s {
				return v, nil
			}
		}
	}
	var zero T
	return zero, Errorf(EINVALID, "%s %q; %s", e.field, s, e.help)
}

// valid reports whether v is a stored value.
func (e enum[T]) valid(v T) bool {
	_, ok := e.names[v]
	return ok
}

// name returns the name shown for v.
func (e enum[T]) name(v T) string {
	if names, ok := e.names[v]; ok {
		return names[0]
	}
	return string(v)
}

var (
	landModes = enum[LandMode]{field: "land mode", help: "use auto (merge for a local repository, pr on a forge with a token), merge, pr or none",
		names: map[LandMode][]string{LandAuto: {"auto", ""}, LandMerge: {"merge"}, LandPR: {"pr"}, LandNone: {"none"}}}
	landStyles = enum[LandStyle]{field: "land style", help: "use squash (one commit), merge or rebase",
		names: map[LandStyle][]string{LandSquash: {"squash", ""}, LandMergeCommit: {"merge"}, LandRebase: {"rebase"}}}
	updateStyles = enum[UpdateStyle]{field: "update style", help: "use merge (the default branch merged in) or rebase",
		names: map[UpdateStyle][]string{UpdateMerge: {"merge", ""}, UpdateRebase: {"rebase"}}}
	engines = enum[Engine]{field: "engine", help: "use bonsai, claude-code, codex or opencode",
		names: map[Engine][]string{EngineBonsai: {"bonsai", ""}, EngineClaudeCode: {"claude-code"}, EngineCodex: {"codex"}, EngineOpenCode: {"opencode"}}}
	engineAuths = enum[EngineAuth]{field: "engine auth", help: "use gateway (Bonsai's key, through the run's gateway) or login (the CLI's own login)",
		names: map[EngineAuth][]string{EngineAuthGateway: {"gateway", ""}, EngineAuthLogin: {"login"}}}
	thinkings = enum[Thinking]{field: "thinking", help: "use default (the configured level), off, low, medium or high",
		names: map[Thinking][]string{ThinkingDefault: {"default", ""}, ThinkingOff: {"off"}, ThinkingLow: {"low"}, ThinkingMedium: {"medium"}, ThinkingHigh: {"high"}}}
)

// ParseLandMode reads "auto" (or ""), "merge", "pr" or "none".
func ParseLandMode(s string) (LandMode, error) { return landModes.parse(s) }

// String returns the mode's name: "auto", "merge", "pr" or "none".
func (m LandMode) String() string { return landModes.name(m) }

// ParseLandStyle reads "squash" (or ""), "merge" or "rebase".
func ParseLandStyle(s string) (LandStyle, error) { return landStyles.parse(s) }

// String returns the style's name: "squash", "merge" or "rebase".
func (s LandStyle) String() string { return landStyles.name(s) }

// ParseUpdateStyle reads "merge" (or "") or "rebase".
func ParseUpdateStyle(s string) (UpdateStyle, error) { return updateStyles.parse(s) }

// String returns the style's name: "merge" or "rebase".
func (s UpdateStyle) String() string { return updateStyles.name(s) }

// ParseEngine reads "bonsai" (or ""), "claude-code", "codex" or "opencode".
func ParseEngine(s string) (Engine, error) { return engines.parse(s) }

// String returns the engine's name.
func (e Engine) String() string { return engines.name(e) }

// ParseEngineAuth reads "gateway" (or "") or "login".
func ParseEngineAuth(s string) (EngineAuth, error) { return engineAuths.parse(s) }

// String returns the credentials' name: "gateway" or "login".
func (a EngineAuth) String() string { return engineAuths.name(a) }

// ParseThinking reads "default" (or ""), "off", "low", "medium" or "high".
func ParseThinking(s string) (Thinking, error) { return thinkings.parse(s) }

// String returns the level's name.
func (t Thinking) String() string { return thinkings.name(t) }

// MaxMCPServers caps a project's list of MCP servers.
const MaxMCPServers = 50

// ValidateMCPName reports what is wrong with the name of an MCP server as
// config.json's mcp.servers names it: 1-40 characters of a-z, 0-9, - and
// _, starting with a letter, so that its tools' names
// (mcp__<server>__<tool>) stay readable and unambiguous.
func ValidateMCPName(name string) error {
	bad := func(why string) error {
		return Errorf(EINVALID, "MCP server name %q: %s; use 1-40 characters of a-z, 0-9, - and _, starting with a letter, such as github or files", name, why)
	}
	switch {
	case name == "":
		return bad("empty")
	case len(name) > 40:
		return bad("too long")
	case strings.ToLower(name) != name:
		return bad("names are lower case")
	case name[0] < 'a' || name[0] > 'z':
		return bad("it must start with a letter")
	case strings.Contains(name, "__"):
		return bad("two underscores in a row separate the parts of a tool name")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return bad("it has " + string(r))
		}
	}
	return nil
}

// validateWork checks the landing, engine, thinking and MCP settings.
func (a AgentSettings) validateWork() error {
	for _, c := range []struct {
		ok    bool
		field string
		v     string
		help  string
	}{
		{landModes.valid(a.Land), "land mode", string(a.Land), landModes.help},
		{landStyles.valid(a.LandStyle), "land style", string(a.LandStyle), landStyles.help},
		{updateStyles.valid(a.UpdateStyle), "update style", string(a.UpdateStyle), updateStyles.help},
		{engines.valid(a.Engine), "engine", string(a.Engine), engines.help},
		{thinkings.valid(a.Thinking), "thinking", string(a.Thinking), thinkings.help},
		{engineAuths.valid(a.EngineAuth), "engine auth", string(a.EngineAuth), engineAuths.help},
	} {
		if !c.ok {
			return Errorf(EINVALID, "%s %q; %s", c.field, c.v, c.help)
		}
	}
	if len(a.MCPServers) > MaxMCPServers {
		return Errorf(EINVALID, "%d MCP servers; the limit is %d", len(a.MCPServers), MaxMCPServers)
	}
	seen := map[string]bool{}
	for _, n := range a.MCPServers {
		if err := ValidateMCPName(n); err != nil {
			return err
		}
		if seen[n] {
			return Errorf(EINVALID, "MCP server %q is listed twice", n)
		}
		seen[n] = true
	}
	return nil
}
