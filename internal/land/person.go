package land

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// GitPerson is the person's git identity as git resolves it for the
// project's repository: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, else the
// repository's own config (author.* and user.*, with the global and
// system config under it), for a repository on this machine; for a
// remote one, the same outside any repository. It is empty when git has
// no identity configured: git is told not to guess one from the host
// name (user.useConfigOnly), which would land commits as root@host.
//
// The repository read is the person's own (the project's repo path), never
// the project's clone, whose config the agent can write.
func GitPerson(repo string) Person { return gitPersonEnv(repo, os.Environ()) }

// gitPersonEnv is GitPerson with git's environment env.
func gitPersonEnv(repo string, env []string) Person {
	dir, cleanup := identityDir(repo)
	defer cleanup()
	cmd := exec.Command("git", "-c", "user.useConfigOnly=true", "var", "GIT_AUTHOR_IDENT")
	cmd.Dir = dir
	cmd.Env = env
	if dir != repoPath(repo) {
		// Outside every repository: stop git's discovery at the empty
		// directory, so the config of a repository around it is not read.
		cmd.Env = append(cmd.Env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	}
	out, err := cmd.Output()
	if err != nil {
		return Person{}
	}
	return parseIdent(strings.TrimSpace(string(out)))
}

// identityDir returns where to ask git for the identity: the project's
// repository when it is a directory on this machine, else an empty
// directory of its own, removed by cleanup.
func identityDir(repo string) (dir string, cleanup func()) {
	if p := repoPath(repo); p != "" {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p, func() {}
		}
	}
	tmp, err := os.MkdirTemp("", "bonsai-ident-")
	if err != nil {
		return os.TempDir(), func() {}
	}
	return tmp, func() { os.Remove(tmp) }
}

// repoPath is the directory of a repository on this machine, "" for a
// remote one.
func repoPath(repo string) string {
	if repo == "" || !board.IsLocalRepo(repo) {
		return ""
	}
	return strings.TrimPrefix(repo, "file://")
}

// parseIdent reads "Name <email> 1700000000 +0000", git var's answer.
func parseIdent(s string) Person {
	lt, gt := strings.Index(s, " <"), strings.LastIndex(s, ">")
	if lt < 0 || gt < lt {
		return Person{}
	}
	return Person{Name: strings.TrimSpace(s[:lt]), Email: s[lt+2 : gt]}
}

// PersonFor is who lands a person's approval in project p: the fields of
// configured (config.json's git.personName and git.personEmail) that are
// set, the rest from their git identity for the project's repository
// (GitPerson). With neither, the Person is incomplete and the Lander
// refuses to make a commit, with a failure saying how to set one.
func PersonFor(configured Person, p board.Project) Person {
	if configured.Name != "" && configured.Email != "" {
		return configured
	}
	g := GitPerson(p.Repo)
	if configured.Name == "" {
		configured.Name = g.Name
	}
	if configured.Email == "" {
		configured.Email = g.Email
	}
	return configured
}
