package web

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/bonsai-run/bonsai/internal/board"
)

// newProjectInput is what a person gives to add a project, as
// `bonsai project add` takes it. The API's JSON gives the slug, name,
// repo and branch here and every setting of board.Settings in Settings
// (splitSettings); the overview's form gives the typed fields below it.
type newProjectInput struct {
	Slug      string  `json:"slug"`
	Name      string  `json:"name"`
	Repo      string  `json:"repo"`
	Branch    string  `json:"defaultBranch"`
	Model     string  `json:"-"`
	Verify    string  `json:"-"`
	BudgetUSD float64 `json:"-"`
	// The command policy and sandbox settings, as PATCH takes them;
	// empty means the default (auto, required, proxy, no patterns).
	PermissionMode string   `json:"-"`
	Allow          []string `json:"-"`
	Ask            []string `json:"-"`
	Sandbox        string   `json:"-"`
	Network        string   `json:"-"`
	AllowHosts     []string `json:"-"`
	// How work lands, the engine, thinking, MCP servers and schedule
	// tools, as PATCH takes them; empty means the default.
	Land          string   `json:"-"`
	LandStyle     string   `json:"-"`
	UpdateStyle   string   `json:"-"`
	Engine        string   `json:"-"`
	Thinking      string   `json:"-"`
	MCPServers    []string `json:"-"`
	ScheduleTools bool     `json:"-"`
	// Settings are the other settings of board.Settings, by name, as
	// splitSettings decodes them; absent ones take their defaults.
	Settings map[string]any `json:"-"`
}

// remoteRepo matches git URLs: scheme://… and scp-like user@host:path. It
// is compiled on first use, not at package initialisation.
var remoteRepo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([a-z][a-z0-9+.-]*://|[^/@:]+@[^/:]+:)`)
})

// createProject validates in and adds the project.
func (s *Server) createProject(ctx context.Context, in newProjectInput) (board.Project, error) {
	repo, err := s.checkRepo(in.Repo)
	if err != nil {
		return board.Project{}, err
	}
	p := board.Project{
		Slug: strings.TrimSpace(in.Slug), Name: strings.TrimSpace(in.Name), Repo: repo,
		DefaultBranch: strings.TrimSpace(in.Branch), Active: true,
		Agent: board.AgentSettings{Model: strings.TrimSpace(in.Model), Verify: strings.TrimSpace(in.Verify), BudgetUSD: in.BudgetUSD},
	}
	if err := newSafety(in, &p.Agent); err != nil {
		return board.Project{}, err
	}
	if err := newWork(in, &p.Agent); err != nil {
		return board.Project{}, err
	}
	errs := fieldErrors{}
	if _, err := board.SetSettings(&p.Agent, s.cleanSettings(in.Settings, errs)); err != nil {
		return board.Project{}, err
	}
	if err := errs.err(); err != nil {
		return board.Project{}, err
	}
	if p.Name == "" {
		p.Name = p.Slug
	}
	if p.DefaultBranch, err = s.branch(ctx, repo, p.DefaultBranch); err != nil {
		return board.Project{}, err
	}
	if err := p.Validate(); err != nil {
		return board.Project{}, err
	}
	return s.store.CreateProject(ctx, p)
}

// checkRepo is checkRepo, refusing a local path when the board is shared
// by several machines (Options.SharedBoard).
func (s *Server) checkRepo(repo string) (string, error) {
	if !s.opts.SharedBoard {
		return checkRepo(repo)
	}
	if err := board.CheckSharedRepo(strings.TrimSpace(repo)); err != nil {
		return "", err
	}
	r, err := checkRepo(repo)
	if err != nil {
		return "", err
	}
	if err := board.CheckSharedRepo(r); err != nil {
		return "", err
	}
	return r, nil
}

// checkRepo keeps a git URL as it is and requires a local repository to be
// an absolute path to a directory on the server's machine.
func checkRepo(repo string) (string, error) {
	repo = strings.TrimSpace(repo)
	if repo == "" {
		return "", board.Errorf(board.EINVALID, "repo is required: a local path or a git URL")
	}
	if remoteRepo().MatchString(repo) {
		return repo, nil
	}
	if strings.HasPrefix(repo, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			repo = filepath.Join(home, repo[2:])
		}
	}
	if !filepath.IsAbs(repo) {
		return "", board.Errorf(board.EINVALID, "repository %q must be an absolute path on the server or a git URL", repo)
	}
	repo = filepath.Clean(repo)
	if fi, err := os.Stat(repo); err != nil || !fi.IsDir() {
		return "", board.Errorf(board.EINVALID, "repository %s is not a directory; give a local git repository or a URL", repo)
	}
	return repo, nil
}

// branch is Options.Branch: the project's default branch, detected when
// empty and checked against a local repository; without it, the one
// given, else main.
func (s *Server) branch(ctx context.Context, repo, branch string) (string, error) {
	if s.opts.Branch != nil {
		return s.opts.Branch(ctx, repo, branch)
	}
	if branch = strings.TrimSpace(branch); branch == "" {
		branch = "main"
	}
	return branch, nil
}
