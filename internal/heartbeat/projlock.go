package heartbeat

import (
	"context"
	"sync"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// serialWorkspaces runs the runtime's git work on one project's clone one
// call at a time: the runs of a project whose agents work several
// tickets at once (many.go) share its clone, and two git commands
// updating its refs, index or config at once fail on each other's lock
// files. Runs of different projects never wait on each other, and the
// agents' own commands, each in its ticket's worktree, are not held.
type serialWorkspaces struct {
	Workspaces
	mu    sync.Mutex
	locks map[string]*sync.Mutex // by project slug
}

// newSerialWorkspaces wraps w.
func newSerialWorkspaces(w Workspaces) *serialWorkspaces {
	return &serialWorkspaces{Workspaces: w, locks: map[string]*sync.Mutex{}}
}

// lock takes the lock of project slug and returns its unlock.
func (s *serialWorkspaces) lock(slug string) func() {
	s.mu.Lock()
	l, ok := s.locks[slug]
	if !ok {
		l = &sync.Mutex{}
		s.locks[slug] = l
	}
	s.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// Prepare is Workspaces.Prepare, one at a time per project.
func (s *serialWorkspaces) Prepare(ctx context.Context, p board.Project, t board.Ticket) (*workspace.Workspace, error) {
	defer s.lock(p.Slug)()
	return s.Workspaces.Prepare(ctx, p, t)
}

// Push is Workspaces.Push, one at a time per project.
func (s *serialWorkspaces) Push(ctx context.Context, p board.Project, ws *workspace.Workspace) (bool, error) {
	defer s.lock(p.Slug)()
	return s.Workspaces.Push(ctx, p, ws)
}

// Head is Workspaces.Head, one at a time per project.
func (s *serialWorkspaces) Head(ctx context.Context, p board.Project, branch string) (string, error) {
	defer s.lock(p.Slug)()
	return s.Workspaces.Head(ctx, p, branch)
}

// Review is Workspaces.Review, one at a time per project.
func (s *serialWorkspaces) Review(ctx context.Context, p board.Project, number int, branch string) (workspace.Review, error) {
	defer s.lock(p.Slug)()
	return s.Workspaces.Review(ctx, p, number, branch)
}

// ForgetReview is Workspaces.ForgetReview, one at a time per project.
func (s *serialWorkspaces) ForgetReview(ctx context.Context, slug string, number int, branch string) error {
	defer s.lock(slug)()
	return s.Workspaces.ForgetReview(ctx, slug, number, branch)
}

// Remove is Workspaces.Remove, one at a time per project.
func (s *serialWorkspaces) Remove(ctx context.Context, slug string, n int) error {
	defer s.lock(slug)()
	return s.Workspaces.Remove(ctx, slug, n)
}

// Checkout is Workspaces.Checkout, one at a time per project.
func (s *serialWorkspaces) Checkout(ctx context.Context, p board.Project) (*workspace.Workspace, error) {
	defer s.lock(p.Slug)()
	return s.Workspaces.Checkout(ctx, p)
}

// NameModel is the wrapped workspaces' modelNamer, when they have one.
func (s *serialWorkspaces) NameModel(slug string, n int, model string) error {
	nm, ok := s.Workspaces.(modelNamer)
	if !ok {
		return nil
	}
	defer s.lock(slug)()
	return nm.NameModel(slug, n, model)
}
