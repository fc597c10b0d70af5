package board

import (
	"fmt"
	"strings"
)

// IsLocalRepo reports whether a project's repo names a repository on this
// machine: a path or a file:// URL, not a URL or an scp-like "host:path".
func IsLocalRepo(repo string) bool {
	if strings.HasPrefix(repo, "file://") {
		return true
	}
	if strings.Contains(repo, "://") {
		return false
	}
	// host:path is ssh, unless the colon comes after a slash or is a
	// Windows drive letter (C:\ or C:/).
	i := strings.IndexByte(repo, ':')
	return i < 0 || strings.ContainsAny(repo[:i], `/\`) || (i == 1 && len(repo) > 2 && (repo[2] == '\\' || repo[2] == '/'))
}

// CheckSharedRepo refuses a local repository for a project on a board
// several machines share (the Postgres store): a path names a directory on
// one machine, which the others cannot clone. The error says so and asks
// for a git URL every machine can clone.
func CheckSharedRepo(repo string) error {
	if !IsLocalRepo(repo) {
		return nil
	}
	return Errorf(EINVALID, "%s", SharedRepoReason(repo))
}

// SharedRepoReason is why a project whose repository is the local path
// repo cannot be worked on a shared board, and the fix.
func SharedRepoReason(repo string) string {
	return fmt.Sprintf("repository %s is a local path, but the board is on Postgres, shared by several machines, "+
		"and the others cannot clone a path on this one; give a git URL every machine can clone "+
		"(e.g. https://git.example.com/team/repo.git or git@git.example.com:team/repo.git)", repo)
}
