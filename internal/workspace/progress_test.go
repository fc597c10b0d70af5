package workspace_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/workspace"
)

// syncBuffer is a buffer git's stderr copier and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProvider_CloneProgress: with CloneProgress set, git's progress of
// the clone reaches it; the later fetches stay quiet.
func TestProvider_CloneProgress(t *testing.T) {
	t.Parallel()
	repo := newRepo(t)
	data := t.TempDir()
	rec := &recorder{}
	var progress syncBuffer
	p, err := workspace.New(workspace.Options{Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: rec.open, CloneProgress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	prepare(t, p, project(repo), ticket(1, "One"))
	if got := progress.String(); !strings.Contains(got, "Cloning into") {
		t.Errorf("no clone progress: %q", got)
	}
	clones := rec.find("clone")
	if len(clones) != 1 || !strings.Contains(strings.Join(clones[0].argv, " "), "clone --progress") {
		t.Errorf("clone calls: %+v", clones)
	}

	// Without it, the clone is quiet.
	q, rec2, _ := newProvider(t)
	prepare(t, q, project(repo), ticket(1, "One"))
	if c := rec2.find("clone"); len(c) != 1 || !strings.Contains(strings.Join(c[0].argv, " "), "clone --quiet") {
		t.Errorf("quiet clone calls: %+v", c)
	}
}
