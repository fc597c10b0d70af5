package seatbelt

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// TestSetup runs what New does after the macOS check, on a real clone and
// worktree, on any system: the private directory, the cache links the
// variables name, the proxy variables, the worktree metadata read from
// root/.git and the profile naming real paths.
func TestSetup(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	clone, root := filepath.Join(base, "data", "repos", "r"), filepath.Join(base, "data", "workspaces", "w")
	must(t, os.MkdirAll(clone, 0o755))
	must(t, os.WriteFile(filepath.Join(clone, "README"), []byte("readme\n"), 0o644))
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "first"}, {"worktree", "add", "-q", "-b", "w", root}} {
		runGit(t, clone, args...)
	}
	must(t, os.RemoveAll(filepath.Join(clone, ".git", "logs")))
	// The workspace is reached through a symlink, as a Mac's /tmp is.
	link := filepath.Join(base, "link")
	must(t, os.Symlink(root, link))

	l, err := local.New(link, local.Options{})
	must(t, err)
	s := &Executor{Executor: l}
	cache := filepath.Join(base, "data", "cache", "go")
	must(t, s.setup(Options{
		Home: filepath.Join(base, "home"), DataDir: filepath.Join(base, "data"),
		GitDir: filepath.Join(clone, ".git"), Caches: map[string]string{"GOCACHE": cache},
		Network: NetworkProxy, ProxyPort: 3128,
	}))
	tmp := s.opts.TmpDir
	home := filepath.Join(tmp, "home")
	env := strings.Join(s.env, "\n") + "\n"
	for _, want := range []string{"HOME=" + home + "\n", "TMPDIR=" + filepath.Join(tmp, "tmp") + "\n",
		"GOCACHE=" + home + "/.cache/bonsai/gocache\n", "HTTPS_PROXY=http://127.0.0.1:3128\n", "http_proxy=http://127.0.0.1:3128\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("missing %q in:\n%s", want, env)
		}
	}
	if to, err := filepath.EvalSymlinks(filepath.Join(home, ".cache", "bonsai", "gocache")); err != nil || to != cache {
		t.Errorf("the GOCACHE link goes to %q (%v), want %q", to, err, cache)
	}
	if fi, err := os.Stat(filepath.Join(clone, ".git", "logs")); err != nil || !fi.IsDir() {
		t.Errorf("logs/ was not created in the clone: %v", err)
	}
	for _, want := range []string{
		`(subpath "` + realish(root) + `")`,
		`(subpath "` + realish(filepath.Join(clone, ".git", "worktrees", "w")) + `")`,
		`(subpath "` + realish(cache) + `")`,
		`(subpath "` + realish(tmp) + `")`,
		`(subpath "` + realish(os.TempDir()) + `")`,
		`(remote tcp "localhost:3128")`,
	} {
		if !strings.Contains(s.Profile(), want) {
			t.Errorf("the profile lacks %s:\n%s", want, s.Profile())
		}
	}
	must(t, s.Close())
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("Close left the private directory: %v", err)
	}
}

// realish is Real with RealPath, failing nothing: what the profile names.
func realish(p string) string {
	r, _ := Real(p, RealPath)
	return r
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
