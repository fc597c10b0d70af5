package workspace

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// remoteRepo matches git URLs: scheme://… and scp-like user@host:path.
var remoteRepo = regexp.MustCompile(`^([a-z][a-z0-9+.-]*://|[^/@:]+@[^/:]+:)`)

// IsRemote reports whether repo is a git URL rather than a local path.
func IsRemote(repo string) bool { return remoteRepo.MatchString(repo) }

// IsGitRepo reports whether dir is a git repository's top directory, with
// a work tree or bare.
func IsGitRepo(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	head, err := os.Stat(filepath.Join(dir, "HEAD"))
	objects, err2 := os.Stat(filepath.Join(dir, "objects"))
	return err == nil && err2 == nil && !head.IsDir() && objects.IsDir()
}

// lsRemoteTimeout bounds reading a remote's branches when a project is
// added or edited.
const lsRemoteTimeout = 15 * time.Second

// DefaultBranch is the default branch of a project whose repository is
// repo, for `bonsai project add|edit` and the web's project forms alike:
//
//   - branch empty means detect it: the branch the repository's HEAD
//     names (a local repository's current branch; a remote's default
//     branch, read with `git ls-remote --symref`), or, with a local HEAD
//     detached, its only branch, else main or master when it has them;
//   - a branch given, or detected, must exist (in a local repository with
//     no commit yet, be the branch HEAD names): a missing one is an
//     EINVALID error naming the branches there are.
//
// A remote that cannot be read (offline, or credentials git cannot find
// without asking) keeps the branch given, else main: the first beat's
// clone says when the remote lacks it.
func DefaultBranch(ctx context.Context, repo, branch string) (string, error) {
	branch = strings.TrimSpace(branch)
	var have []string
	var head string
	if IsRemote(repo) {
		var ok bool
		if head, have, ok = remoteBranches(ctx, repo); !ok {
			if branch == "" {
				branch = "main"
			}
			return branch, nil
		}
	} else {
		if !IsGitRepo(repo) {
			return "", board.Errorf(board.EINVALID, "%s is not a git repository (no .git in it); run 'git init' there and commit, or give a repository's top directory or a URL", repo)
		}
		have = localBranches(ctx, repo)
		head = headBranch(ctx, repo)
	}
	if branch == "" {
		branch = detectBranch(head, have)
	}
	switch {
	case slices.Contains(have, branch):
		return branch, nil
	case len(have) == 0 && branch != "" && branch == head:
		// A repository with no commit yet: its first one will be on
		// the branch HEAD names.
		return branch, nil
	case branch == "":
		return "", board.Errorf(board.EINVALID, "%s has HEAD detached and several branches (%s); give one of them as the default branch", repo, strings.Join(have, ", "))
	case len(have) == 0:
		return "", board.Errorf(board.EINVALID, "branch %q not found in %s, which has no commit yet (HEAD is on %q); commit something first, or give that branch", branch, Redact(repo), head)
	}
	return "", board.Errorf(board.EINVALID, "branch %q not found in %s (its branches: %s); give one of them as the default branch", branch, Redact(repo), strings.Join(have, ", "))
}

// remoteBranches reads a remote's branches and the one its HEAD names;
// ok is false when the remote cannot be read. Git never prompts for
// credentials, runs no hook and no ext:: or fd:: transport.
func remoteBranches(ctx context.Context, url string) (head string, have []string, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, lsRemoteTimeout)
	defer cancel()
	args := append(slices.Clone(remoteSettings), "ls-remote", "--symref", "--", url, "HEAD", "refs/heads/*")
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GCM_INTERACTIVE=never")
	cmd.Stdin = nil
	out, err := cmd.Output()
	if err != nil {
		return "", nil, false
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if target, ok := strings.CutPrefix(line, "ref: "); ok {
			if ref, name, _ := strings.Cut(target, "\t"); name == "HEAD" {
				head = strings.TrimPrefix(ref, "refs/heads/")
			}
			continue
		}
		if _, ref, found := strings.Cut(line, "\t"); found {
			if b, isHead := strings.CutPrefix(ref, "refs/heads/"); isHead {
				have = append(have, b)
			}
		}
	}
	return head, have, true
}

// headBranch is the branch a local repository's HEAD is on, born or not;
// "" when HEAD is detached.
func headBranch(ctx context.Context, repo string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "symbolic-ref", "--quiet", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// detectBranch is the branch HEAD is on, or, when HEAD is detached, the
// repository's only branch, main or master; "" when none fits.
func detectBranch(head string, have []string) string {
	if head != "" {
		return head
	}
	if len(have) == 1 {
		return have[0]
	}
	for _, b := range []string{"main", "master"} {
		if slices.Contains(have, b) {
			return b
		}
	}
	return ""
}

// localBranches lists a local repository's branches.
func localBranches(ctx context.Context, repo string) []string {
	out, _ := exec.CommandContext(ctx, "git", "-C", repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/").Output()
	return strings.Fields(string(out))
}
