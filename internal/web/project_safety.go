package web

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/view"
)

// maxLineErrors is how many bad lines of one list a refusal names; the
// rest are counted.
const maxLineErrors = 5

// checkCommandPattern refuses a command pattern the policy cannot use,
// naming the pattern and the reason.
func checkCommandPattern(s string) error {
	if _, err := policy.ParsePattern(s); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "policy: "))
	}
	return nil
}

// cleanList trims each item of a pattern list, drops the empty ones (the
// blank lines of a textarea) and checks the others with check. The
// message names every bad item (up to maxLineErrors) by the list's name
// and its line, one a line; it is empty when all are good.
func cleanList(name string, items []string, check func(string) error) ([]string, string) {
	var out, bad []string
	n := 0
	for i, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		if err := check(it); err != nil {
			if n++; n <= maxLineErrors {
				bad = append(bad, fmt.Sprintf("%s, line %d: %v", name, i+1, err))
			}
			continue
		}
		out = append(out, it)
	}
	if n > maxLineErrors {
		bad = append(bad, fmt.Sprintf("%s: and %d more bad lines", name, n-maxLineErrors))
	}
	return out, strings.Join(bad, "\n")
}

// planSafety adds to u the command policy and sandbox settings of e that
// change cur, and to errs what is wrong with each of them; valid is
// planProjectEdit's check of one field's change against the project.
func planSafety(cur board.Project, e projectEdit, u *board.ProjectPatch, errs fieldErrors,
	valid func(field string, apply func(p *board.Project)) bool) {
	list := func(field string, v *[]string, old []string, check func(string) error,
		apply func(a *board.AgentSettings, l []string), dst **[]string) {
		if v == nil {
			return
		}
		l, msg := cleanList(field, *v, check)
		switch {
		case msg != "":
			errs[field] = msg
		case slices.Equal(l, old):
		case valid(field, func(p *board.Project) { apply(&p.Agent, l) }):
			*dst = &l
		}
	}
	list("allow", e.Allow, cur.Agent.Allow, checkCommandPattern,
		func(a *board.AgentSettings, l []string) { a.Allow = l }, &u.Allow)
	list("ask", e.Ask, cur.Agent.Ask, checkCommandPattern,
		func(a *board.AgentSettings, l []string) { a.Ask = l }, &u.Ask)
	list("allowHosts", e.AllowHosts, cur.Agent.AllowHosts, board.ValidateHostPattern,
		func(a *board.AgentSettings, l []string) { a.AllowHosts = l }, &u.AllowHosts)
	if e.Sandbox != nil {
		if m, err := board.ParseSandboxMode(string(*e.Sandbox)); err != nil {
			errs["sandbox"] = err.Error()
		} else if m != cur.Agent.Sandbox {
			u.Sandbox = &m
		}
	}
	if e.Network != nil {
		if m, err := board.ParseNetworkMode(string(*e.Network)); err != nil {
			errs["network"] = err.Error()
		} else if m != cur.Agent.Network {
			u.Network = &m
		}
	}
}

// newSafety reads the command policy and sandbox settings of a project
// being added (POST /api/projects) into a; empty values are the defaults.
func newSafety(in newProjectInput, a *board.AgentSettings) error {
	var err error
	if a.PermissionMode, err = board.ParsePermissionMode(in.PermissionMode); err != nil {
		return err
	}
	if a.Sandbox, err = board.ParseSandboxMode(in.Sandbox); err != nil {
		return err
	}
	if a.Network, err = board.ParseNetworkMode(in.Network); err != nil {
		return err
	}
	for _, l := range []struct {
		field string
		in    []string
		check func(string) error
		dst   *[]string
	}{
		{"allow", in.Allow, checkCommandPattern, &a.Allow},
		{"ask", in.Ask, checkCommandPattern, &a.Ask},
		{"allowHosts", in.AllowHosts, board.ValidateHostPattern, &a.AllowHosts},
	} {
		list, msg := cleanList(l.field, l.in, l.check)
		if msg != "" {
			return board.Errorf(board.EINVALID, "%s", msg)
		}
		*l.dst = list
	}
	return nil
}

// sandboxOffRisk is what the pages say about a project whose sandbox is
// off.
const sandboxOffRisk = view.SandboxOffRisk

// lines shows a list in a textarea, one item a line.
func lines(l []string) string { return strings.Join(l, "\n") }

// splitLines reads a textarea into its lines; parsing drops the blank ones.
func splitLines(s string) []string {
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// parseSafetyForm reads the command policy and sandbox fields of the
// project settings form; field gives a posted value and whether it was
// posted. A field that was not posted is kept; a posted empty textarea
// clears its list.
func parseSafetyForm(field func(name string) (string, bool), f *projectForm, e *projectEdit) {
	choice := func(name string, shown *string, set func(v string)) {
		if v, ok := field(name); ok {
			*shown = v
			set(v)
		}
	}
	choice("permissionMode", &f.Mode, func(v string) { m := board.PermissionMode(v); e.PermissionMode = &m })
	choice("sandbox", &f.Sandbox, func(v string) { m := board.SandboxMode(v); e.Sandbox = &m })
	choice("network", &f.Network, func(v string) { m := board.NetworkMode(v); e.Network = &m })
	choice("allow", &f.Allow, func(v string) { l := splitLines(v); e.Allow = &l })
	choice("ask", &f.Ask, func(v string) { l := splitLines(v); e.Ask = &l })
	choice("allowHosts", &f.AllowHosts, func(v string) { l := splitLines(v); e.AllowHosts = &l })
}
