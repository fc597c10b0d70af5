package land

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
)

// GitPerson is git's own answer for the project's repository: its
// config over the global one, the environment over both, and nothing when
// git has no identity configured (not a guess from the host name).
func TestGitIdentity_AsGitResolvesItForTheRepository(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	global := filepath.Join(home, "gitconfig")
	env := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + global, "PATH=" + os.Getenv("PATH")}
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), nil)
	const url = "https://example.com/acme/demo.git"

	if got := gitPersonEnv(repo, env); got != (Person{}) {
		t.Errorf("no identity anywhere: %+v, want none", got)
	}
	gittest.Run(t, home, "config", "--file", global, "user.name", "Global Person")
	gittest.Run(t, home, "config", "--file", global, "user.email", "global@example.com")
	want := Person{Name: "Global Person", Email: "global@example.com"}
	for _, r := range []string{repo, url, "file://" + repo} {
		if got := gitPersonEnv(r, env); got != want {
			t.Errorf("global identity, repo %s: %+v, want %+v", r, got, want)
		}
	}
	gittest.Run(t, repo, "config", "user.email", "repo@example.com")
	if got, want := gitPersonEnv(repo, env), (Person{Name: "Global Person", Email: "repo@example.com"}); got != want {
		t.Errorf("the repository's email: %+v, want %+v", got, want)
	}
	if got := gitPersonEnv(url, env); got.Email != "global@example.com" {
		t.Errorf("a URL's identity: %+v, want the global one", got)
	}
	envName := append(env, "GIT_AUTHOR_NAME=Env Person")
	if got := gitPersonEnv(repo, envName); got.Name != "Env Person" || got.Email != "repo@example.com" {
		t.Errorf("GIT_AUTHOR_NAME: %+v", got)
	}
}
