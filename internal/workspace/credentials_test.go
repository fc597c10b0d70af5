package workspace_test

import (
	"context"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// gitHTTPServer serves the bare repositories under root over git's smart
// HTTP protocol (git http-backend as a CGI program), to callers that send
// the basic-auth user and password given.
func gitHTTPServer(t *testing.T, root, user, pass string) *httptest.Server {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("no git-http-backend: %v", err)
	}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		r.Header.Set("Remote-User", u)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestProvider_CredentialsStayOutOfTheClone clones, fetches and pushes a
// repository whose URL carries a token, from a server that requires it:
// all three work, and the clone's config, which the agent can read with
// `git remote -v` in its worktree, never holds the token.
func TestProvider_CredentialsStayOutOfTheClone(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	root := t.TempDir()
	gittest.Run(t, root, "clone", "-q", "--bare", src, filepath.Join(root, "repo.git"))
	gittest.Run(t, filepath.Join(root, "repo.git"), "config", "http.receivepack", "true")
	srv := gitHTTPServer(t, root, "x-access-token", "tok-SECRET-77")
	repo := strings.Replace(srv.URL, "http://", "http://x-access-token:tok-SECRET-77@", 1) + "/repo.git"

	p, _, _ := newProvider(t)
	proj := project(repo)
	ws := prepare(t, p, proj, ticket(3, "Feature"))
	os.WriteFile(filepath.Join(ws.Root, "feature.txt"), []byte("done\n"), 0o644)
	gittest.Run(t, ws.Root, "add", ".")
	gittest.Run(t, ws.Root, "commit", "-q", "-m", "add feature")
	if pushed, err := p.Push(context.Background(), proj, ws); err != nil || !pushed {
		t.Fatalf("Push = %v, %v; want true, nil", pushed, err)
	}
	prepare(t, p, proj, ticket(3, "Feature")) // fetches again

	if got := gittest.Run(t, ws.Root, "remote", "-v"); strings.Contains(got, "SECRET") || !strings.Contains(got, srv.URL+"/repo.git") {
		t.Errorf("git remote -v in the worktree:\n%s", got)
	}
	cfg, _ := os.ReadFile(filepath.Join(p.ClonePath("demo"), ".git", "config"))
	if strings.Contains(string(cfg), "SECRET") {
		t.Errorf("the clone's config holds the token:\n%s", cfg)
	}
	if got := gittest.Run(t, filepath.Join(root, "repo.git"), "rev-parse", ws.Branch); got != gittest.Run(t, ws.Root, "rev-parse", "HEAD") {
		t.Errorf("the push did not reach the server")
	}
}

// TestProvider_RefusesCommandTransports gives repos that would make git run
// a command: the ext:: remote helper, allowed here by git configuration
// in the runtime's environment (as a user's global protocol.allow=always
// would), and an option where set-url expects the URL. None may run: the
// marker file must not appear.
func TestProvider_RefusesCommandTransports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "pwned")
	for _, repo := range []string{
		"ext::sh -c touch% " + marker,
		"EXT::sh -c touch% " + marker,
		"--upload-pack=touch " + marker,
	} {
		t.Run(repo[:6], func(t *testing.T) {
			data := t.TempDir()
			p, err := workspace.New(workspace.Options{
				Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
				Open:      (&recorder{}).open,
				RemoteEnv: []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.allow", "GIT_CONFIG_VALUE_0=always"},
			})
			if err != nil {
				t.Fatal(err)
			}
			// Clone once, so the repo also goes through set-url and fetch.
			if _, err := p.Prepare(ctx, project(newRepo(t)), ticket(1, "x")); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Prepare(ctx, project(repo), ticket(2, "y")); err == nil {
				t.Errorf("Prepare(%q) succeeded", repo)
			}
			if _, err := os.Stat(marker); err == nil {
				os.Remove(marker)
				t.Fatalf("git ran the command of repo %q", repo)
			}
		})
	}
}

// TestProvider_PushRunsNoRepositoryHooks points core.hooksPath at a
// pre-push hook committed in the worktree, with `git config` in the
// agent's worktree (husky does the same on npm install, with a relative
// path that resolves in the clone's checkout of the default branch, which
// is repository code too): the runtime's push, which holds the
// credentials, must not run it.
func TestProvider_PushRunsNoRepositoryHooks(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.Run(t, filepath.Dir(bare), "clone", "-q", "--bare", src, bare)
	p, _, _ := newProvider(t)
	proj := project("file://" + bare)
	ws := prepare(t, p, proj, ticket(5, "Hooks"))
	leak := filepath.Join(t.TempDir(), "leak")
	os.MkdirAll(filepath.Join(ws.Root, ".hooks"), 0o755)
	os.WriteFile(filepath.Join(ws.Root, ".hooks", "pre-push"), []byte("#!/bin/sh\nenv > "+leak+"\n"), 0o755)
	gittest.Run(t, ws.Root, "add", ".")
	gittest.Run(t, ws.Root, "commit", "-q", "-m", "add hooks")
	gittest.Run(t, ws.Root, "config", "core.hooksPath", filepath.Join(ws.Root, ".hooks"))
	if pushed, err := p.Push(context.Background(), proj, ws); err != nil || !pushed {
		t.Fatalf("Push = %v, %v; want true, nil", pushed, err)
	}
	if b, err := os.ReadFile(leak); err == nil {
		t.Errorf("the push ran the repository's pre-push hook (credential in its env: %v)", strings.Contains(string(b), "BONSAI_TEST_CREDENTIAL"))
	}
}
