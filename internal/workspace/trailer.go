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
	h, err := openHooks(p.ClonePath(slug))
	if err != nil {
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	defer h.Close()
	old, err := h.ReadFile("commit-msg")
	switch {
	case err == nil && !bytes.Contains(old, []byte(hookMark)):
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
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
	if err := writeTrailer(h, n, model, trailer); err != nil {
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	hooks := filepath.Join(p.ClonePath(slug), ".git", "hooks") // in the script's text only
	script := "#!/bin/sh\n" + hookMark + "\n# Rewritten before each run; docs/landing.md, \"Commit identity\".\n" +
		"# The trailer of ticket N's worktree is in " + modelsDir + "/N, beside this hook.\n" +
		"t=" + shellQuote(filepath.Join(hooks, modelsDir)) + "/\"$(basename \"$(git rev-parse --show-toplevel)\")\"\n" +
		"[ -f \"$t\" ] || exit 0\n" +
		"exec git interpret-trailers --in-place --if-exists addIfDifferent --trailer \"$(cat \"$t\")\" \"$1\"\n"
	if string(old) == script {
		return nil
	}
	if err := h.WriteFile("commit-msg.bonsai-tmp", []byte(script), 0o755); err != nil {
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	if err := h.Rename("commit-msg.bonsai-tmp", "commit-msg"); err != nil {
		h.Remove("commit-msg.bonsai-tmp")
		return fmt.Errorf("commit-msg hook: %w", err)
	}
	return nil
}

// openHooks opens the clone's .git/hooks as an os.Root, making it when
// it is missing (a clone made without git's templates has none until
// the first run): a .git or a hooks that is a link (an agent without
// the sandbox can make one) is refused rather than followed, so the
// hook and the trailers are written in the clone or nowhere.
func openHooks(clone string) (*os.Root, error) {
	gitDir := filepath.Join(clone, ".git")
	fi, err := os.Lstat(gitDir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (%s), which Bonsai never makes", gitDir, fi.Mode().Type())
	}
	g, err := os.OpenRoot(gitDir)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	if err := g.Mkdir("hooks", 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	if fi, err := g.Lstat("hooks"); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("the clone's .git/hooks is not a directory (%s), which Bonsai never makes; delete it and the next run makes it again", fi.Mode().Type())
	}
	return g.OpenRoot("hooks")
}

// writeTrailer writes ticket n's trailer in the hooks directory's
// bonsai-models (removes it for no model), through h, an os.Root of the
// hooks directory, so that no link there (bonsai-models itself
// included) leads the write out of it.
func writeTrailer(h *os.Root, n int, model, trailer string) error {
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
