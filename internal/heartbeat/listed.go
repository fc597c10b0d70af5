package heartbeat

import (
	"context"
	"sync"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// ListedProjects is a beat's store with one listing of every project
// (archived ones too) made up front: the log redactor needs the passwords
// in the projects' repository URLs before the beat starts, and the beat's
// first such listing (the worktrees of done tickets) is then served from
// it instead of asking the store again, one statement fewer for an idle
// beat. Later listings, and everything else, go to the store.
type ListedProjects struct {
	store.Store
	all []board.Project // the listing made up front; nil when it failed

	mu     sync.Mutex
	served bool
}

// ListProjects lists st's projects for the redactor and the beat; a
// listing that fails is left to the beat to make again, and report.
func ListProjects(ctx context.Context, st store.Store) *ListedProjects {
	all, err := st.Projects(ctx, store.ProjectFilter{IncludeArchived: true})
	if err != nil {
		all = nil
	} else if all == nil {
		all = []board.Project{}
	}
	return &ListedProjects{Store: st, all: all}
}

// All is the listing made up front, nil when it failed.
func (s *ListedProjects) All() []board.Project { return s.all }

// Projects serves the first listing of every project from the one made
// up front, and any other from the store.
func (s *ListedProjects) Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error) {
	if f == (store.ProjectFilter{IncludeArchived: true}) && s.all != nil {
		s.mu.Lock()
		first := !s.served
		s.served = true
		s.mu.Unlock()
		if first {
			return s.all, nil
		}
	}
	return s.Store.Projects(ctx, f)
}

// CheckActive refuses a beat limited to project slug when the project is
// archived: a beat never picks its tickets, and saying "Nothing to do"
// would hide why. "" (every project) passes.
func (s *ListedProjects) CheckActive(ctx context.Context, slug string) error {
	if slug == "" {
		return nil
	}
	p, err := s.Store.Project(ctx, slug)
	if err != nil {
		return err
	}
	if !p.Active {
		return board.Errorf(board.EREFUSED, "project %s is archived; its tickets are not worked", slug)
	}
	return nil
}
