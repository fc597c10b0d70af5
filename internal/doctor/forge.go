package doctor

import (
	"fmt"
	"strings"
)

// ForgeProbe is what the CLI found of the token a project's pull
// requests use: forge.CheckToken's report, or why there is none.
type ForgeProbe struct {
	// Name is the check's name ("forge demo").
	Name string
	// Where is the forge and repository ("gitea acme/widget on git.lan").
	Where string
	// Scopes are the token's scopes, when the forge says them.
	Scopes []string
	// Missing is what the token lacks.
	Missing []string
	// Unchecked is what the probe could not see.
	Unchecked string
	// Requests is how many requests the probe made.
	Requests int
	// Err is the refusal (no token, 401, 404, the forge down) and ErrFix
	// its fix.
	Err    error
	ErrFix string
	// Transient reports an Err that is the forge being down or asking
	// to wait: a warning, not a failure.
	Transient bool
	// Need names the scopes docs/forges.md lists for the forge.
	Need string
}

// ForgeToken is the check of one forge token: fail when it is missing,
// refused, or lacks a scope (reviews would never reach the agent); warn
// when the forge did not answer or a part could not be seen.
func ForgeToken(p ForgeProbe) Check {
	c := Check{Name: p.Name}
	switch {
	case p.Err != nil:
		c.Status, c.Detail, c.Fix = Fail, p.Where+": "+p.Err.Error(), p.ErrFix
		if p.Transient {
			c.Status = Warn
		}
	case len(p.Missing) > 0:
		c.Status, c.Detail = Fail, fmt.Sprintf("%s: the token lacks %s", p.Where, strings.Join(p.Missing, ", "))
		c.Fix = "give the token " + p.Need + " (docs/forges.md, \"Tokens and scopes\"), then store it again with `bonsai credentials set`"
	case p.Unchecked != "":
		c.Status, c.Detail = Warn, fmt.Sprintf("%s: the token is accepted; %s", p.Where, p.Unchecked)
		c.Fix = "make sure the token has " + p.Need
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("%s: the token is accepted and has what pull requests need", p.Where)
		if len(p.Scopes) > 0 {
			c.Detail += " (" + strings.Join(p.Scopes, ", ") + ")"
		}
	}
	c.Detail += fmt.Sprintf("; %d request(s), no change", p.Requests)
	return c
}
