package forgetest

import (
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/gittest"
)

// GitRepo creates owner/name with a bare git repository served over smart
// HTTP at URL/owner/name.git (git http-backend; pushes allowed without
// credentials), holding one commit on main with files. It returns the
// remote URL. Pull requests of a served repository take their head from
// the pushed branch.
func (s *Server) GitRepo(t testing.TB, owner, name string, files map[string]string) string {
	t.Helper()
	s.mu.Lock()
	if s.gitRoot == "" {
		s.gitRoot = t.TempDir()
	}
	root := s.gitRoot
	s.mu.Unlock()
	work := gittest.Repo(t, t.TempDir(), files)
	bare := filepath.Join(root, owner, name+".git")
	if err := os.MkdirAll(filepath.Dir(bare), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, "", "clone", "--quiet", "--bare", work, bare)
	gittest.Run(t, bare, "config", "http.receivepack", "true")
	s.AddRepo(owner, name)
	return s.URL + "/" + owner + "/" + name + ".git"
}

// BareDir is the bare repository behind a GitRepo.
func (s *Server) BareDir(owner, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return filepath.Join(s.gitRoot, owner, name+".git")
}

// branchHead returns the commit of branch in a served repository; for a
// repository without git it makes one up.
func (s *Server) branchHead(rp *repo, branch string) (string, bool) {
	if s.gitRoot == "" {
		return fakeSHA(rp.owner + rp.name + branch), true
	}
	bare := filepath.Join(s.gitRoot, rp.owner, rp.name+".git")
	if _, err := os.Stat(bare); err != nil {
		return fakeSHA(rp.owner + rp.name + branch), true
	}
	out, err := exec.Command("git", "-C", bare, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch).Output()
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(out)), true
}

// refresh moves the heads of a served repository's open pull requests to
// their branches, as the forges do on a push.
func (s *Server) refresh() {
	if s.gitRoot == "" {
		return
	}
	for _, rp := range s.repos {
		for _, p := range rp.pulls {
			if p.state != forge.Open {
				continue
			}
			if sha, ok := s.branchHead(rp, p.head); ok && sha != p.headSHA {
				p.headSHA, p.updated = sha, s.tick()
			}
		}
	}
}

// serveGit serves the bare repositories with git http-backend.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	root := s.gitRoot
	s.mu.Unlock()
	if root == "" || !strings.Contains(r.URL.Path, ".git/") {
		http.NotFound(w, r)
		return
	}
	h := &cgi.Handler{
		Path: "git", Args: []string{"http-backend"}, Dir: root,
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	if p, err := exec.LookPath("git"); err == nil {
		h.Path = p
	}
	h.ServeHTTP(w, r)
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
		s.mu.Lock()
		s.refresh()
		s.mu.Unlock()
	}
}
