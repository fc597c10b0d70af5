package workspace

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// remoteURL splits a project's repo into the URL the clone records as its
// remote, without credentials, and the environment that gives them back to
// the runtime's clone, fetch and push. The clone's .git/config is readable
// by the agent (`git remote -v` in its worktree), so a token written into
// the repo URL ("https://user:token@host/...") must not be stored there.
// git rewrites the bare URL to the full one through url.<full>.insteadOf,
// set with GIT_CONFIG_COUNT after any such settings already in env.
func remoteURL(repo string, env []string) (string, []string) {
	u, err := url.Parse(repo)
	if err != nil || u.User == nil || u.Host == "" {
		return repo, env
	}
	if _, pw := u.User.Password(); !pw && u.Scheme != "http" && u.Scheme != "https" {
		return repo, env // ssh://git@host: a user name, not a secret
	}
	u.User = nil
	bare := u.String()
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	i := strconv.Itoa(n)
	out := append(append([]string(nil), env...),
		"GIT_CONFIG_KEY_"+i+"=url."+repo+".insteadOf",
		"GIT_CONFIG_VALUE_"+i+"="+bare,
		"GIT_CONFIG_COUNT="+strconv.Itoa(n+1))
	return bare, out
}

// checkRepo refuses repos git would read as an option ("-u…" in set-url,
// which takes no "--") or as a remote helper that runs a command
// ("ext::sh -c …") or reads a file descriptor ("fd::3").
func checkRepo(repo string) error {
	switch {
	case repo == "":
		return fmt.Errorf("the project has no repo")
	case strings.HasPrefix(repo, "-"):
		return fmt.Errorf("repo %q starts with '-', which git would read as an option", repo)
	case strings.HasPrefix(strings.ToLower(repo), "ext::"), strings.HasPrefix(strings.ToLower(repo), "fd::"):
		return fmt.Errorf("repo %q uses a git transport that runs commands; use a path or a URL", Redact(repo))
	}
	return nil
}
