package cli

import (
	"github.com/spf13/pflag"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// safetyFlags are a project's command policy and sandbox settings, on
// project add and edit. A list flag replaces the whole list; given once
// with an empty value (--allow "") it clears it.
type safetyFlags struct {
	allow, ask, hosts []string
	sandbox, network  string
}

func (s *safetyFlags) register(f *pflag.FlagSet) {
	f.StringArrayVar(&s.allow, "allow", nil, `command pattern agents may run without asking, e.g. "go test *" (repeatable; replaces the list)`)
	f.StringArrayVar(&s.ask, "ask", nil, `command pattern that always waits for a person's approval, e.g. "git push *" (repeatable)`)
	f.StringVar(&s.sandbox, "sandbox", "", "required: agents' commands run in the sandbox or not at all (default); off: on the host as you")
	f.StringVar(&s.network, "network", "", "what sandboxed commands reach: proxy (package registries, the git remote and --allow-host, the default), none or all")
	f.StringArrayVar(&s.hosts, "allow-host", nil, "host the proxy lets commands reach besides the registries, e.g. api.example.com or *.example.com (repeatable)")
}

// update sets in u the settings given on the command line, checking the
// patterns' syntax.
func (s *safetyFlags) update(f *pflag.FlagSet, u *board.ProjectPatch) error {
	lists := []struct {
		flag string
		val  []string
		dst  **[]string
	}{{"allow", s.allow, &u.Allow}, {"ask", s.ask, &u.Ask}, {"allow-host", s.hosts, &u.AllowHosts}}
	for _, l := range lists {
		if !f.Changed(l.flag) {
			continue
		}
		var list []string
		for _, v := range l.val {
			if v == "" {
				continue
			}
			if l.flag != "allow-host" {
				if _, err := policy.ParsePattern(v); err != nil {
					return usagef("--%s %q: %v", l.flag, v, err)
				}
			}
			list = append(list, v)
		}
		*l.dst = &list
	}
	if f.Changed("sandbox") {
		m, err := board.ParseSandboxMode(s.sandbox)
		if err != nil {
			return err
		}
		u.Sandbox = &m
	}
	if f.Changed("network") {
		m, err := board.ParseNetworkMode(s.network)
		if err != nil {
			return err
		}
		u.Network = &m
	}
	return nil
}

// apply sets the settings of a new project; CreateProject validates them.
func (s *safetyFlags) apply(f *pflag.FlagSet, a *board.AgentSettings) error {
	var u board.ProjectPatch
	if err := s.update(f, &u); err != nil {
		return err
	}
	for _, c := range []struct{ src, dst *[]string }{{u.Allow, &a.Allow}, {u.Ask, &a.Ask}, {u.AllowHosts, &a.AllowHosts}} {
		if c.src != nil {
			*c.dst = *c.src
		}
	}
	if u.Sandbox != nil {
		a.Sandbox = *u.Sandbox
	}
	if u.Network != nil {
		a.Network = *u.Network
	}
	return nil
}
