package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// hookMark is the line that says a commit-msg hook is Bonsai's.
const hookMark = "# Installed by Bonsai: names the model on the agent's commits."

// modelsDir is the directory beside the clone's hooks that holds, for
// each ticket, the trailer its worktree's commits get: a file named after
// the ticket number, which is also the worktree directory's name.
const modelsDir = "bonsai-models"

// NameModel makes the commits in ticket n's worktree of project slug
// carry a "Co-authored-by: <model> <agent email>" trailer, so that
// history shows which model wrote a commit (docs/landing.md, "Commit
// identity"). The heartbeat calls it before each run with the run's
// model. The clone has one commit-msg hook, which finds the trailer of
// the worktree it runs in (by the worktree's directory name, the ticket
// number) in the hooks directory's bonsai-models/<n>: agents of one
// project running at once with different models (--max-agents, best of
// N) each get their own. The clone's hooks are read-only in the sandbox.
// A commit-msg hook that is not Bonsai's is left alone (and no trailer is
// added); an empty model removes the ticket's trailer.
func (p *Provider) NameModel(slug string, n int, model string) error {
	hooks := filepath.Join(p.ClonePath(slug), ".git", "hooks")
	path := filepath.Join(hooks, "commit-msg")
	old, err := os.ReadFile(path)
	switch {
	case err == nil && !bytes.Contains(old, []byte(hookMark)):
		return nil
	case err != nil && !os.IsNotExist(err):
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	email := p.opts.AgentIdentity.Email
	if email == "" {
		email = botEmail
	}
	trailer := fmt.Sprintf("Co-authored-by: %s <%s>", model, email)
	if model != "" && strings.ContainsAny(trailer, "\n\r\x00") {
		return fmt.Errorf("commit-msg hook: model %q cannot be named in a trailer", model)
	}
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	if err := writeTrailer(hooks, n, model, trailer); err != nil {
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	script := "#!/bin/sh\n" + hookMark + "\n# Rewritten before each run; docs/landing.md, \"Commit identity\".\n" +
		"# The trailer of ticket N's worktree is in " + modelsDir + "/N, beside this hook.\n" +
		"t=" + shellQuote(filepath.Join(hooks, modelsDir)) + "/\"$(basename \"$(git rev-parse --show-toplevel)\")\"\n" +
		"[ -f \"$t\" ] || exit 0\n" +
		"exec git interpret-trailers --in-place --if-exists addIfDifferent --trailer \"$(cat \"$t\")\" \"$1\"\n"
	if string(old) == script {
		return nil
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

// writeTrailer writes ticket n's trailer in the hooks directory's
// bonsai-models (removes it for no model), through an os.Root of the
// hooks directory, so that no link there (bonsai-models itself
// included) leads the write out of it.
func writeTrailer(hooks string, n int, model, trailer string) error {
	h, err := os.OpenRoot(hooks)
	if err != nil {
		return err
	}
	defer h.Close()
	if err := h.Mkdir(modelsDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	root, err := h.OpenRoot(modelsDir)
	if err != nil {
		return err
	}
	defer root.Close()
	name := strconv.Itoa(n)
	if model == "" {
		if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if b, err := root.ReadFile(name); err == nil && string(b) == trailer {
		return nil
	}
	if err := root.WriteFile(name+".tmp", []byte(trailer), 0o644); err != nil {
		return err
	}
	return root.Rename(name+".tmp", name)
}
