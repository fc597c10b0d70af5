package projectcmd

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// settingFlags are the flags of a project's agent settings on project add
// and edit, one per row of board.Settings.
type settingFlags map[string]any // the flag's variable by setting name

// patternSettings are the settings whose items are command patterns,
// whose syntax the policy checks before they are saved.
var patternSettings = map[string]bool{"allow": true, "ask": true}

// register adds a flag for each setting to f.
func (sf settingFlags) register(f *pflag.FlagSet) {
	for _, s := range board.Settings {
		switch s.Kind {
		case board.KindInt:
			sf[s.Name] = f.Int64(s.Flag, 0, s.Help)
		case board.KindUSD:
			sf[s.Name] = f.Float64(s.Flag, 0, s.Help)
		case board.KindBool:
			sf[s.Name] = f.Bool(s.Flag, false, s.Help)
		case board.KindList:
			if s.Sep != "" {
				sf[s.Name] = f.StringSlice(s.Flag, nil, s.Help)
			} else {
				sf[s.Name] = f.StringArray(s.Flag, nil, s.Help)
			}
		default:
			sf[s.Name] = f.String(s.Flag, "", s.Help)
		}
	}
}

// values returns the settings given on the command line by name, parsed
// and checked as board.ProjectPatch.Settings takes them. A list flag
// replaces the whole list; given once empty (--allow "") it clears it.
func (sf settingFlags) values(f *pflag.FlagSet) (map[string]any, error) {
	out := map[string]any{}
	for _, s := range board.Settings {
		if !f.Changed(s.Flag) {
			continue
		}
		v, err := sf.value(s)
		if err != nil {
			return nil, err
		}
		out[s.Name] = v
	}
	return out, nil
}

// value reads one setting's flag.
func (sf settingFlags) value(s board.Setting) (any, error) {
	switch p := sf[s.Name].(type) {
	case *int64:
		return *p, nil
	case *float64:
		return *p, nil
	case *bool:
		return *p, nil
	case *[]string:
		var list []string
		for _, it := range *p {
			if it = strings.TrimSpace(it); it == "" {
				continue
			}
			if patternSettings[s.Name] {
				if _, err := policy.ParsePattern(it); err != nil {
					return nil, cmdkit.Usagef("--%s %q: %v", s.Flag, it, err)
				}
			}
			list = append(list, it)
		}
		return list, s.Check(list)
	case *string:
		if s.Kind != board.KindChoice {
			return *p, nil
		}
		v, err := s.Parse(*p)
		if err != nil {
			return nil, cmdkit.Usagef("--%s: %v", s.Flag, err)
		}
		return v, nil
	}
	return nil, cmdkit.Usagef("--%s: no flag", s.Flag)
}

// flagNames lists the flags of the settings, for "nothing to change".
func (sf settingFlags) flagNames() string {
	names := make([]string, len(board.Settings))
	for i, s := range board.Settings {
		names[i] = "--" + s.Flag
	}
	return strings.Join(names, ", ")
}
