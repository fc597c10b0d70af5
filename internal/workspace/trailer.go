package workspace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// hookMark is the line that says a commit-msg hook is Bonsai's.
const hookMark = "# Installed by Bonsai: names the model on the agent's commits."

// NameModel installs, in project slug's clone, the commit-msg hook that
// adds a "Co-authored-by: <model> <agent email>" trailer to every commit
// made in its worktrees, so that history shows which model wrote a commit
// (docs/landing.md, "Commit identity"). The heartbeat calls it before each
// run with the run's model; the hook is one per clone, so while several
// agents of a project run at once with different models (--max-agents,
// best of N) it names the model of the run started last (a known gap in
// docs/security.md; the run records name the right one). The clone's
// hooks are read-only in the sandbox. A commit-msg hook that is
// not Bonsai's is left alone (and no trailer is added); an empty model
// removes Bonsai's hook.
func (p *Provider) NameModel(slug, model string) error {
	hooks := filepath.Join(p.ClonePath(slug), ".git", "hooks")
	path := filepath.Join(hooks, "commit-msg")
	old, err := os.ReadFile(path)
	switch {
	case err == nil && !bytes.Contains(old, []byte(hookMark)):
		return nil
	case err != nil && !os.IsNotExist(err):
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	if model == "" {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("commit-msg hook: %w", err)
		}
		return nil
	}
	email := p.opts.AgentIdentity.Email
	if email == "" {
		email = botEmail
	}
	trailer := fmt.Sprintf("Co-authored-by: %s <%s>", model, email)
	if strings.ContainsAny(trailer, "\n\r\x00") {
		return fmt.Errorf("commit-msg hook: model %q cannot be named in a trailer", model)
	}
	script := "#!/bin/sh\n" + hookMark + "\n# Rewritten before each run; docs/landing.md, \"Commit identity\".\n" +
		"exec git interpret-trailers --in-place --if-exists addIfDifferent --trailer " + shellQuote(trailer) + " \"$1\"\n"
	if string(old) == script {
		return nil
	}
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	tmp := path + ".bonsai-tmp"
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	return nil
}
