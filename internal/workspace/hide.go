package workspace

import (
	"errors"
	"path/filepath"
	"strings"
)

// shownError is an error whose message was rewritten for the people and the
// agent who read it, keeping the original for errors.Is and errors.As.
type shownError struct {
	msg string
	err error
}

func (e *shownError) Error() string { return e.msg }
func (e *shownError) Unwrap() error { return e.err }

// hidePaths rewrites the host paths of the data directory's projects and
// worktrees in err's message as "projects" and "worktrees". Prepare's
// errors become the run's error and a comment on the ticket, which the
// agent reads in its next prompt, and the agent is never shown a host path
// (docs/design.md §2). A *RepoError stays one.
func (p *Provider) hidePaths(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, d := range []struct{ dir, shown string }{{p.opts.Worktrees, "worktrees"}, {p.opts.Projects, "projects"}} {
		for _, form := range hostForms(d.dir) {
			msg = strings.ReplaceAll(msg, form, d.shown)
		}
	}
	if msg == err.Error() {
		return err
	}
	var re *RepoError
	if errors.As(err, &re) {
		return &RepoError{Repo: re.Repo, Err: &shownError{msg: msg, err: re.Err}}
	}
	return &shownError{msg: msg, err: err}
}

// hostForms returns the ways a directory may appear in a message: as
// given, absolute, and with symlinks resolved (git prints the latter).
func hostForms(dir string) []string {
	var out []string
	add := func(s string) {
		if s != "" && s != "." && s != string(filepath.Separator) {
			out = append(out, s)
		}
	}
	add(dir)
	if abs, err := filepath.Abs(dir); err == nil {
		add(abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			add(real)
		}
	}
	return out
}
