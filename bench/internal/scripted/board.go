package scripted

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// Board is a board to seed: Projects projects (p000, p001, …), each on a
// repository of its own under a directory's repos/ with one commit on
// main, each with Tickets IN_PROGRESS tickets.
type Board struct {
	Projects, Tickets int
	// Project holds the settings every project gets (its Agent); the
	// slug, name, repository and default branch are Board's.
	Project board.Project
	// Ticket is every ticket's title, description and plan; with more
	// than one ticket a project, each title ends with its number.
	Ticket board.Ticket
}

// Slug is the slug of project i.
func Slug(i int) string { return fmt.Sprintf("p%03d", i) }

// Write creates the board in the SQLite database at db, the projects'
// repositories under dir.
func (b Board) Write(db, dir string) error {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer s.Close()
	for i := range b.Projects {
		p := b.Project
		p.Slug, p.Name, p.DefaultBranch, p.Active = Slug(i), Slug(i), "main", true
		p.Repo = filepath.Join(dir, "repos", p.Slug)
		if err := GitRepo(p.Repo); err != nil {
			return err
		}
		if _, err := s.CreateProject(ctx, p); err != nil {
			return err
		}
		for n := range b.Tickets {
			t := b.Ticket
			t.ProjectSlug, t.State, t.Priority = p.Slug, board.InProgress, 2
			if b.Tickets > 1 {
				t.Title = fmt.Sprintf("%s %d", t.Title, n+1)
			}
			if _, err := s.CreateTicket(ctx, t, board.Human); err != nil {
				return err
			}
		}
	}
	return nil
}

// GitRepo makes dir a repository with one commit (a README) on main.
func GitRepo(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# bench\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "initial"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=b@example.com",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=b@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	return nil
}
