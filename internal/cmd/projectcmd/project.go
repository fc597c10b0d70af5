// Package projectcmd holds `bonsai project`: projects added (their
// repository and default branch checked), listed, shown, edited through
// the settings table (board.Settings), archived and unarchived.
package projectcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// NewCmd returns `bonsai project` and its subcommands.
func NewCmd(a *cmdkit.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "project",
		Short: "Add, list, show, edit, archive and unarchive projects",
	}
	cmd.AddCommand(newProjectAddCmd(a), newProjectListCmd(a), newProjectShowCmd(a), newProjectEditCmd(a), newProjectArchiveCmd(a), newProjectUnarchiveCmd(a))
	return cmd
}

type projectAddOptions struct {
	slug, repo, name, branch string
	settings                 settingFlags
}

func newProjectAddCmd(a *cmdkit.App) *cobra.Command {
	o := projectAddOptions{settings: settingFlags{}}
	cmd := &cobra.Command{
		Use:   "add <slug> --repo <path-or-url>",
		Short: "Add a project for agents to work on",
		Long: `Add a project: a git repository (a local path or a URL) with its own board.
The slug names the project in ticket references (demo#12): 1-40 characters of
a-z, 0-9 and -. When the board is on Postgres (store.url), shared by several
machines, the repository must be a git URL every machine can clone.`,
		Example: `  bonsai project add demo --repo ~/src/demo
  bonsai project add api --repo git@github.com:acme/api.git --branch develop --verify "go test ./..."
  bonsai project add big --repo ~/src/big --limit-memory-mib 8192 --limit-processes 4096`,
		Args: cmdkit.ExactArgs("<slug>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.slug = args[0]
			return runProjectAdd(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.repo, "repo", "", "git repository: a local path or a URL (required)")
	f.StringVar(&o.name, "name", "", "display name (default: the slug)")
	f.StringVar(&o.branch, "branch", "", "default branch the agents branch from (default: a local repository's current branch, else main)")
	o.settings.register(f)
	cmd.MarkFlagRequired("repo")
	return cmd
}

func runProjectAdd(cmd *cobra.Command, a *cmdkit.App, o projectAddOptions) error {
	repo, err := projectRepo(a, o.repo)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("branch") && strings.TrimSpace(o.branch) == "" {
		return cmdkit.Usagef("--branch is empty; give the branch agents start from, e.g. main")
	}
	if o.branch, err = Branch(cmd.Context(), repo, o.branch); err != nil {
		return err
	}
	values, err := settingValues(a, cmd.Flags(), o.settings)
	if err != nil {
		return err
	}
	var agent board.AgentSettings
	if _, err := board.SetSettings(&agent, values); err != nil {
		return err
	}
	if o.name == "" {
		o.name = o.slug
	}
	s, err := a.OpenStore(cmd.Context())
	if err != nil {
		return err
	}
	p, err := s.CreateProject(cmd.Context(), board.Project{
		Slug: o.slug, Name: o.name, Repo: repo, DefaultBranch: o.branch, Active: true, Agent: agent,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "Added project %s (%s, branch %s)\n", p.Slug, p.Repo, p.DefaultBranch)
	a.WarnUnpricedModel(p.Agent.Model)
	return nil
}

// settingValues are the settings given on the command line, the model
// checked against the catalog's providers.
func settingValues(a *cmdkit.App, f *pflag.FlagSet, sf settingFlags) (map[string]any, error) {
	values, err := sf.values(f)
	if err != nil {
		return nil, err
	}
	if m, ok := values["model"].(string); ok {
		if err := cmdkit.CheckModelID(a.Getenv, "--model", m); err != nil {
			return nil, err
		}
	}
	return values, nil
}

// projectRepo is normalizeRepo for a project's --repo, refusing a local
// path when the board is on Postgres, shared by several machines that
// cannot clone this one's directories (board.CheckSharedRepo).
func projectRepo(a *cmdkit.App, repo string) (string, error) {
	u, err := a.StoreURL()
	if err != nil {
		return "", err
	}
	if u != "" {
		if err := board.CheckSharedRepo(strings.TrimSpace(repo)); err != nil {
			return "", err
		}
	}
	r, err := normalizeRepo(repo)
	if err != nil {
		return "", err
	}
	if u != "" {
		if err := board.CheckSharedRepo(r); err != nil {
			return "", err
		}
	}
	return r, nil
}

// remoteRepo matches git URLs: scheme://… and scp-like user@host:path.
var remoteRepo = regexp.MustCompile(`^([a-z][a-z0-9+.-]*://|[^/@:]+@[^/:]+:)`)

// normalizeRepo keeps URLs as they are and turns a local path into an
// absolute one, checking that it exists.
func normalizeRepo(repo string) (string, error) {
	repo = strings.TrimSpace(repo)
	if repo == "" {
		return "", board.Errorf(board.EINVALID, "--repo is empty; give a local path or a git URL")
	}
	if remoteRepo.MatchString(repo) {
		return repo, nil
	}
	if strings.HasPrefix(repo, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			repo = filepath.Join(home, repo[2:])
		}
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", board.Errorf(board.EINVALID, "repository %s is not a directory; give a local git repository or a URL", abs)
	}
	if !isGitRepo(abs) {
		return "", board.Errorf(board.EINVALID, "%s is not a git repository (no .git in it); run 'git init' there and commit, or give a repository's top directory or a URL", abs)
	}
	return abs, nil
}

// isGitRepo reports whether dir is the top of a git work tree (it holds .git,
// a directory or, for worktrees and submodules, a file) or a bare repository:
// what git clone accepts as a local source.
func isGitRepo(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	head, err := os.Stat(filepath.Join(dir, "HEAD"))
	objects, err2 := os.Stat(filepath.Join(dir, "objects"))
	return err == nil && err2 == nil && !head.IsDir() && objects.IsDir()
}

func newProjectListCmd(a *cmdkit.App) *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List projects",
		Example: "  bonsai project list\n  bonsai project list --all --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			ps, err := s.Projects(cmd.Context(), store.ProjectFilter{IncludeArchived: all})
			if err != nil {
				return err
			}
			if asJSON {
				if ps == nil {
					ps = []board.Project{}
				}
				return cmdkit.WriteJSON(a.Stdout, ps)
			}
			if len(ps) == 0 {
				if !all {
					archived, err := s.Projects(cmd.Context(), store.ProjectFilter{IncludeArchived: true})
					if err != nil {
						return err
					}
					if len(archived) > 0 {
						fmt.Fprintf(a.Stdout, "No active projects; %d archived (bonsai project list --all)\n", len(archived))
						return nil
					}
				}
				fmt.Fprintln(a.Stdout, "No projects yet. Add one with: bonsai project add <slug> --repo <path-or-url>")
				return nil
			}
			return text.WriteProjects(a.Stdout, ps, a.Now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&all, "all", false, "include archived projects")
	return cmd
}

func newProjectShowCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "show <slug>",
		Short:   "Show a project and its ticket counts",
		Example: "  bonsai project show demo\n  bonsai project show demo --json",
		Args:    cmdkit.ExactArgs("<slug>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			p, err := s.Project(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			counts, err := s.TicketCounts(cmd.Context())
			if err != nil {
				return err
			}
			d := view.ProjectDetail{Project: p, Counts: view.NewStateCounts(counts[p.Slug])}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, d)
			}
			return text.WriteProject(a.Stdout, d, a.Now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newProjectEditCmd(a *cmdkit.App) *cobra.Command {
	var name, repo, branch string
	settings := settingFlags{}
	cmd := &cobra.Command{
		Use:   "edit <slug> [flags]",
		Short: "Change a project's settings",
		Long: `Change a project's settings; flags not given keep their value. An empty
--model or --verify clears it (the project then uses config.json's model, or
runs no verification); a cap of 0 falls back to the matching budget.* key.
--take-backlog=false hands the backlog back to people; --permission-mode plan
has a person approve each plan before agents implement it.

Commands: every command an agent runs is judged by the command policy
(docs/policy.md). --allow patterns run without asking, --ask patterns wait for
a person's approval (bonsai ticket allow|deny), and some commands are always
denied. Each list flag replaces its whole list; --allow "" clears it.

Sandbox: agents' commands run in a bubblewrap sandbox that sees only the
ticket's worktree (docs/sandbox.md). --network proxy lets them reach the
package registries, the git remote and the --allow-host hosts; none reaches
nothing; all reaches everything. --sandbox off runs commands on the host as
you, with a warning in status and the web UI.

Limits: --limit-memory-mib, --limit-processes, --limit-tmp-mib,
--limit-file-size-mib and --limit-disk-growth-mib bound each run's sandbox
for this project, overriding config.json's limits.* keys; 0 goes back to
them.

Work: --land says how approved work reaches the default branch (merge, a
pull request, or none; docs/landing.md), --engine which agent works the
tickets (Bonsai's own, or the Claude Code, Codex or OpenCode CLI), --thinking
how hard ticket runs think, --mcp which configured MCP servers ticket runs
use, and --schedule-tools whether agents may manage the project's schedules.`,
		Example: `  bonsai project edit demo --model openai/gpt-5 --budget 2.50
  bonsai project edit demo --verify "go test ./..."
  bonsai project edit demo --verify ""
  bonsai project edit demo --take-backlog
  bonsai project edit demo --permission-mode plan
  bonsai project edit demo --permission-mode ask --allow "go test *" --allow "make *"
  bonsai project edit demo --allow-host api.example.com --network proxy
  bonsai project edit demo --limit-processes 256 --limit-tmp-mib 512
  bonsai project edit demo --land merge --land-style rebase
  bonsai project edit demo --engine claude-code --thinking medium --mcp github`,
		Args: cmdkit.ExactArgs("<slug>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var u board.ProjectPatch
			f := cmd.Flags()
			if f.Changed("name") {
				u.Name = &name
			}
			if f.Changed("repo") {
				r, err := projectRepo(a, repo)
				if err != nil {
					return err
				}
				u.Repo = &r
			}
			if f.Changed("branch") {
				u.DefaultBranch = &branch
			}
			var err error
			if u.Settings, err = settingValues(a, f, settings); err != nil {
				return err
			}
			if u.IsZero() {
				return cmdkit.Usagef("nothing to change; give at least one of --name, --repo, --branch, %s", settings.flagNames())
			}
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			if u.DefaultBranch != nil {
				if err := checkEditedBranch(cmd, s, args[0], u); err != nil {
					return err
				}
			}
			p, err := s.UpdateProject(cmd.Context(), args[0], u)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "Updated project %s\n", p.Slug)
			if _, ok := u.Settings["model"]; ok {
				a.WarnUnpricedModel(p.Agent.Model)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "display name")
	f.StringVar(&repo, "repo", "", "git repository: a local path or a URL")
	f.StringVar(&branch, "branch", "", "default branch")
	settings.register(f)
	return cmd
}

func newProjectArchiveCmd(a *cmdkit.App) *cobra.Command {
	cmd := newProjectActiveCmd(a, func(ctx context.Context, s store.Store, slug string) (board.Project, error) {
		return s.ArchiveProject(ctx, slug)
	}, "Archived project %s; its tickets are kept")
	cmd.Use = "archive <slug>"
	cmd.Short = "Archive a project: agents stop picking its tickets"
	cmd.Long = `Archive a project: agents stop picking its tickets. Its tickets, comments
and runs are kept; 'bonsai project list --all' still shows it, and
'bonsai project unarchive' brings it back.`
	cmd.Example = "  bonsai project archive demo"
	return cmd
}

func newProjectUnarchiveCmd(a *cmdkit.App) *cobra.Command {
	cmd := newProjectActiveCmd(a, func(ctx context.Context, s store.Store, slug string) (board.Project, error) {
		return s.RestoreProject(ctx, slug)
	}, "Project %s is active; agents pick its tickets again")
	cmd.Use = "unarchive <slug>"
	cmd.Short = "Unarchive a project: agents pick its tickets again"
	cmd.Long = `Unarchive an archived project: it is active again, and the next heartbeat
picks from its tickets. Unarchiving an active project changes nothing.`
	cmd.Example = "  bonsai project unarchive demo"
	return cmd
}

// newProjectActiveCmd is archive or unarchive: set applies the change to
// the named project, and done ("… %s …", the slug) says what happened.
func newProjectActiveCmd(a *cmdkit.App, set func(ctx context.Context, s store.Store, slug string) (board.Project, error), done string) *cobra.Command {
	return &cobra.Command{
		Args: cmdkit.ExactArgs("<slug>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			p, err := set(cmd.Context(), s, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, done+"\n", p.Slug)
			return nil
		},
	}
}
