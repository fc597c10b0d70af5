package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/doctor"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
)

func newDoctorCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check everything agents need, and say how to fix what is wrong",
		Long: `Run the checks a support engineer would, and print one line for each, with
the fix under every one that warns or fails:

  data directory   exists, is yours, and other users cannot enter it (0700,
                   files 0600)
  web token        present and 0600
  config           config.json loads and is valid
  credentials      the stored keys can be read (their key is still there)
  database         bonsai.db passes PRAGMA quick_check; its schema version
  model …          the default model and each active project's: a key is set
                   (environment or 'bonsai credentials set') and the provider
                   accepts it, asked with a request that costs no tokens
                   (listing its models)
  forge …          each active project that lands through pull requests: its
                   forge accepts the token and it has the scopes
                   docs/forges.md lists, asked without a change and
                   without a model call (GitHub's X-OAuth-Scopes, GitLab's
                   /personal_access_tokens/self, a route per Gitea scope)
  git, rg          on PATH, with their versions
  sandbox          bubblewrap (Linux) or Seatbelt (macOS) can run; projects
                   with --sandbox off
  service          the heartbeat service is installed and its last beat ran
  last beat        the last beat of any process is recent
  clock            this machine's clock against the model provider's
  disk space       free space where the data directory is

Doctor changes nothing: it neither creates the data directory nor tightens
its mode nor migrates the database (it only writes and removes a probe file
to see that the directory is writable). It exits 1 when a check fails, 0 when there are only warnings.
On a terminal the marks are ✓ ! ✗ -; elsewhere ok warn FAIL skip.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			checks := a.doctorChecks(cmd.Context())
			if asJSON {
				if err := writeJSON(a.stdout, checks); err != nil {
					return err
				}
			} else if err := doctor.Write(a.stdout, checks, isTerminal(a.stdout)); err != nil {
				return err
			}
			if n := doctor.Count(checks, doctor.Fail); n > 0 {
				return fmt.Errorf("%d of %d checks failed", n, len(checks))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checks as a JSON array of {name, status, detail, fix}")
	return cmd
}

// doctorChecks runs every check of 'bonsai doctor', in the order it prints
// them. It never runs config.Init: that would fix, unseen, what the checks
// are there to show.
func (a *app) doctorChecks(ctx context.Context) []doctor.Check {
	d, err := config.DefaultDir(a.getenv)
	if err != nil {
		return []doctor.Check{{Name: "data directory", Status: doctor.Fail, Detail: err.Error(), Fix: "set BONSAI_DATA_DIR or HOME"}}
	}
	a.dir = d
	checks := []doctor.Check{doctor.DataDir(d), doctor.WebToken(d)}

	cfg, cfgCheck := a.configCheck()
	checks = append(checks, cfgCheck, a.credentialsCheck())
	dbCheck, current := a.storeCheck(ctx, d)
	checks = append(checks, dbCheck)
	projects, listed := a.doctorProjects(ctx, current)

	var clock clockReading
	if cfgCheck.Status == doctor.Fail {
		checks = append(checks, doctor.Check{Name: "model", Status: doctor.Skip, Detail: "config.json does not load, so the default model is unknown"})
	} else {
		var models []doctor.Check
		models, clock = a.modelChecks(ctx, cfg, projects)
		checks = append(checks, models...)
		checks = append(checks, a.forgeChecks(ctx, cfg, projects)...)
	}

	checks = append(checks,
		doctor.Program(ctx, "git", exec.LookPath, doctor.Fail, "install git (apt-get install git, brew install git, winget install Git.Git): agents clone, branch and commit with it"),
		doctor.Program(ctx, "rg", exec.LookPath, doctor.Warn, "install ripgrep (apt-get install ripgrep, brew install ripgrep, winget install BurntSushi.ripgrep.MSVC): without it the agents' search runs in Go, slower"),
	)
	agents := newAgentExecutors(d, cfg)
	agents.Locate = engine.NewLocator(nil).Locate
	checks = append(checks, engineChecks(ctx, projects, exec.LookPath, func(p board.Project) error {
		_, err := agents.CLIBinds(p)
		return err
	})...)
	checks = append(checks, sandboxChecks(projects, listed)...)

	interval := time.Duration(cfg.Heartbeat.IntervalSec) * time.Second
	checks = append(checks, a.serviceChecks(d, interval)...)
	checks = append(checks, doctor.Clock(clock.local, clock.remote, clock.source))
	where := existingParent(string(d))
	free, err := doctor.FreeBytes(where)
	checks = append(checks, doctor.DiskSpace(where, free, err))
	return checks
}

// doctorProjects lists the active projects when the database may be
// opened without a change (it exists, is intact and its schema current);
// listed is false otherwise.
func (a *app) doctorProjects(ctx context.Context, current bool) ([]board.Project, bool) {
	if !current {
		return nil, false
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return nil, false
	}
	all, err := s.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		return nil, false
	}
	var active []board.Project
	for _, p := range all {
		if p.Active {
			active = append(active, p)
		}
	}
	return active, true
}

// serviceChecks are the service's check and the last beat's.
func (a *app) serviceChecks(d config.Dir, interval time.Duration) []doctor.Check {
	var lastBeat time.Time
	if st := heartbeat.ReadState(d.Path("heartbeat.json")); st.LastBeat != nil {
		lastBeat = st.LastBeat.StartedAt
	}
	svc, err := a.service()
	if err != nil {
		return []doctor.Check{
			{Name: "service", Status: doctor.Skip, Detail: "no service manager here: " + err.Error()},
			doctor.LastBeat(a.now(), lastBeat, interval, false),
		}
	}
	installed := svc.Installed()
	var last *doctor.ServiceBeat
	if b, err := readServiceBeat(d); err != nil {
		return []doctor.Check{
			{Name: "service", Status: doctor.Fail, Detail: err.Error(), Fix: "remove the file: the next beat of the service writes it again"},
			doctor.LastBeat(a.now(), lastBeat, interval, installed),
		}
	} else if b != nil {
		last = &doctor.ServiceBeat{StartedAt: b.StartedAt, Error: b.Error}
	}
	return []doctor.Check{
		doctor.Service(svc.Platform.Name, installed, last, a.now(), interval),
		doctor.LastBeat(a.now(), lastBeat, interval, installed),
	}
}

// existingParent is p, or the nearest directory above it that exists: the
// disk a data directory not yet made would be on.
func existingParent(p string) string {
	for {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(p)
		if up == p {
			return p
		}
		p = up
	}
}
