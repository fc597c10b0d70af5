package workspace

import (
	"fmt"
	"strings"
)

// RepoError means the project's repository could not be used: the clone or
// the fetch failed, or it lacks the default branch. Retrying at once will
// most likely fail the same way, so callers back off until a person fixes
// the repository or the project's settings.
type RepoError struct {
	Repo string
	Err  error
}

// Error implements the error interface. Credentials in the repository's
// URL are redacted.
func (e *RepoError) Error() string { return Redact(e.Err.Error()) }

// Unwrap returns the underlying error.
func (e *RepoError) Unwrap() error { return e.Err }

// ConfigSetting is one setting of a clone's own git config.
type ConfigSetting struct {
	// Key is the key as git lists it, section and name lower-case.
	Key string
	// Scope is "local" (.git/config) or "worktree" (the main worktree's
	// .git/config.worktree).
	Scope string
	// Included reports whether the setting came from a file that
	// include.path or includeIf pulled in.
	Included bool
}

// maxShownSettings bounds the settings an UnsafeConfigError lists.
const maxShownSettings = 12

// UnsafeConfigError means the clone's own git config, which the agent can
// write from its worktree, has settings that could send the runtime's
// fetch or push elsewhere or make git run a program while it holds the
// runtime's credentials. Nothing was fetched or pushed. Its message, which
// reaches people as a comment on the ticket, names the settings (never
// their values) and says how to remove them.
type UnsafeConfigError struct {
	Slug     string
	Settings []ConfigSetting
}

// Error implements the error interface.
func (e *UnsafeConfigError) Error() string {
	var keys, cmds []string
	seen, included := map[string]bool{}, false
	for _, s := range e.Settings {
		if seen[s.Scope+" "+s.Key] {
			continue
		}
		seen[s.Scope+" "+s.Key] = true
		switch {
		case s.Included:
			included = true
			keys = append(keys, s.Key+" (from an included file)")
		case s.Scope == "worktree":
			keys = append(keys, s.Key+" (in config.worktree)")
			cmds = append(cmds, "git config --worktree --unset-all "+shellQuote(s.Key))
		default:
			keys = append(keys, s.Key)
			cmds = append(cmds, "git config --unset-all "+shellQuote(s.Key))
		}
	}
	if n := len(keys); n > maxShownSettings {
		keys = append(keys[:maxShownSettings], fmt.Sprintf("and %d more", n-maxShownSettings))
	}
	if len(cmds) > maxShownSettings {
		cmds = cmds[:maxShownSettings]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "refused: the git config of projects/%s sets %s, which can send the runtime's fetch and push elsewhere or make git run a program while it holds the runtime's credentials. ", e.Slug, strings.Join(keys, ", "))
	b.WriteString("The clone's config is shared with every ticket's worktree, so `git config` run there (by the agent or a tool) writes it. ")
	fmt.Fprintf(&b, "Nothing is fetched or pushed until they are removed; in projects/%s run:\n\n", e.Slug)
	for _, c := range cmds {
		b.WriteString("    " + c + "\n")
	}
	if included {
		b.WriteString("\nSettings from an included file go away with the include.path or includeIf key that pulls them in.\n")
	}
	b.WriteString("\nSettings the project really needs belong in your global git config (git config --global), which Bonsai does not check.")
	return Redact(b.String())
}

// shellQuote quotes s for a POSIX shell when it holds anything but letters,
// digits and "._-/:@+,=%".
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:@+,=%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
