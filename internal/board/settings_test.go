package board

import (
	"strings"
	"testing"
)

func TestParseWorkSettings(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		err  string
		fn   func(string) (string, error)
	}{
		{"", "auto", "", wrap(ParseLandMode)}, {"PR", "pr", "", wrap(ParseLandMode)}, {"ship", "", "land mode", wrap(ParseLandMode)},
		{"squash", "squash", "", wrap(ParseLandStyle)}, {"rebase", "rebase", "", wrap(ParseLandStyle)}, {"ff", "", "land style", wrap(ParseLandStyle)},
		{"", "merge", "", wrap(ParseUpdateStyle)}, {"rebase", "rebase", "", wrap(ParseUpdateStyle)}, {"squash", "", "update style", wrap(ParseUpdateStyle)},
		{"bonsai", "bonsai", "", wrap(ParseEngine)}, {"claude-code", "claude-code", "", wrap(ParseEngine)}, {"aider", "", "claude-code, codex", wrap(ParseEngine)},
		{"default", "default", "", wrap(ParseThinking)}, {" High ", "high", "", wrap(ParseThinking)}, {"max", "", "thinking", wrap(ParseThinking)},
	} {
		got, err := c.fn(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || ErrorCode(err) != EINVALID {
				t.Errorf("parse %q = %q, %v; want an EINVALID error saying %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parse %q = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// wrap turns a parser of a setting into one of its name.
func wrap[T interface {
	~string
	String() string
}](parse func(string) (T, error)) func(string) (string, error) {
	return func(s string) (string, error) {
		v, err := parse(s)
		if err != nil {
			return "", err
		}
		return v.String(), nil
	}
}

func TestValidateWorkSettings(t *testing.T) {
	p := Project{Slug: "demo", Name: "demo", Repo: "/src/demo", DefaultBranch: "main"}
	for _, c := range []struct {
		a   AgentSettings
		err string
	}{
		{AgentSettings{Land: LandPR, LandStyle: LandRebase, Engine: EngineCodex, Thinking: ThinkingLow, MCPServers: []string{"github", "my_files-2"}}, ""},
		{AgentSettings{Land: "auto"}, "land mode"},
		{AgentSettings{Thinking: "max"}, "thinking"},
		{AgentSettings{MCPServers: []string{"GitHub"}}, "lower case"},
		{AgentSettings{MCPServers: []string{"1files"}}, "start with a letter"},
		{AgentSettings{MCPServers: []string{"a__b"}}, "two underscores"},
		{AgentSettings{MCPServers: []string{"files", "files"}}, "listed twice"},
		{AgentSettings{MCPServers: []string{"has space"}}, "has  "},
		{AgentSettings{MCPServers: []string{strings.Repeat("a", 41)}}, "too long"},
	} {
		p.Agent = c.a
		err := p.Validate()
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Validate(%+v) = %v; want %q", c.a, err, c.err)
		}
	}
}
