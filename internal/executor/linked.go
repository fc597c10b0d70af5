package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/beneath"
)

// maxGitFile bounds a worktree's .git file.
const maxGitFile = 4 << 10

// LinkedGitDir returns the git directory of the repository whose linked
// worktree cwd is, for a sandbox to bind; "" when cwd is none (a plain
// repository's .git is inside cwd). cwd/.git is the agent's to write (an
// earlier session may have rewritten it), so what it names is only a
// candidate, read without following a link: it is taken when it is a
// real repository whose own worktrees/*/gitdir names cwd (WorktreeMeta)
// and lies nowhere the sandbox lets commands write: not in cwd, not in
// the sandbox's writable dirs, not inside another git directory (whose
// objects, refs and logs the sandbox binds writable). A .git file that
// names anything else is an error.
func LinkedGitDir(cwd string, writable ...string) (string, error) {
	fi, err := os.Lstat(filepath.Join(cwd, ".git"))
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil // no worktree of another repository: nothing to bind
	}
	b, err := beneath.ReadFile(cwd, ".git", maxGitFile)
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(cwd, ".git"), err)
	}
	meta, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", nil
	}
	meta = strings.TrimSpace(meta)
	if !filepath.IsAbs(meta) {
		meta = filepath.Join(cwd, meta)
	}
	if filepath.Base(filepath.Dir(meta)) != "worktrees" {
		return "", fmt.Errorf("%s names %s, which is no worktree's metadata; "+notLinkedFix, filepath.Join(cwd, ".git"), meta)
	}
	gitDir, err := filepath.EvalSymlinks(filepath.Dir(filepath.Dir(meta)))
	if err != nil {
		return "", fmt.Errorf("the git directory of %s: %w; "+notLinkedFix, cwd, err)
	}
	if err := outsideWritable(gitDir, append([]string{cwd}, writable...)); err != nil {
		return "", fmt.Errorf("%s names %s: %w; "+notLinkedFix, filepath.Join(cwd, ".git"), gitDir, err)
	}
	if _, err := WorktreeMeta(cwd, gitDir); err != nil {
		return "", fmt.Errorf("%w; "+notLinkedFix, err)
	}
	return gitDir, nil
}

// notLinkedFix is what to do when a worktree's .git file names no
// repository the sandbox may bind.
const notLinkedFix = "if the worktree's .git file was rewritten, run `git worktree repair` in the main repository " +
	"(or recreate the worktree), or run without --sandbox"

// outsideWritable checks that the git directory gitDir (links resolved)
// is neither in one of the writable dirs nor below another git
// directory.
func outsideWritable(gitDir string, writable []string) error {
	for _, w := range writable {
		if real, err := filepath.EvalSymlinks(w); err == nil && Within(gitDir, real) {
			return fmt.Errorf("a directory in %s, which the sandbox's commands can write", w)
		}
	}
	for d := filepath.Dir(gitDir); ; d = filepath.Dir(d) {
		if isGitDir(d) {
			return fmt.Errorf("a directory inside the git directory %s, which the sandbox's commands can write", d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// isGitDir reports whether dir looks like a git directory: a HEAD file
// and an objects directory.
func isGitDir(dir string) bool {
	h, err := os.Lstat(filepath.Join(dir, "HEAD"))
	if err != nil || !h.Mode().IsRegular() {
		return false
	}
	o, err := os.Lstat(filepath.Join(dir, "objects"))
	return err == nil && o.IsDir()
}

// Within reports whether the host path p is dir or below it (no link
// resolved: both are compared as written).
func Within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
