package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/doctor"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/tools"
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
	cfg, cfgErr := config.Load(d.ConfigFile())
	if cfgErr != nil {
		cfg = config.Default() // the checks after it still run
	}
	checks := []doctor.Check{doctor.DataDir(d), doctor.WebToken(d), doctor.Config(d.ConfigFile(), cfgErr, configFix(cfgErr))}
	checks = append(checks, doctor.Credentials(a.credentialStore()))
	dbCheck, current := a.storeCheck(ctx, d)
	checks = append(checks, dbCheck)
	projects, listed := a.doctorProjects(ctx, current)

	var clock doctor.ClockReading
	if cfgErr != nil {
		checks = append(checks, doctor.Check{Name: "model", Status: doctor.Skip, Detail: "config.json does not load, so the default model is unknown"})
	} else {
		// The default model comes first, used or not: new projects get it.
		statuses := modelStatuses(a.getenv, a.keySource, cfg, append([]board.Project{{Active: true}}, projects...))
		var models []doctor.Check
		models, clock = doctor.Models(ctx, statuses, cfg.Model, a.listModels, a.now)
		checks = append(checks, models...)
		checks = append(checks, a.forgeChecks(ctx, cfg, projects)...)
		checks = append(checks, a.trackerChecks(ctx, cfg, projects)...)
	}
	checks = append(checks,
		doctor.Program(ctx, "git", exec.LookPath, doctor.Fail, "install git (apt-get install git, brew install git, winget install Git.Git): agents clone, branch and commit with it"),
		doctor.Program(ctx, "rg", exec.LookPath, doctor.Warn, "install ripgrep (apt-get install ripgrep, brew install ripgrep, winget install BurntSushi.ripgrep.MSVC): without it the agents' search runs in Go, slower"),
		doctor.Chromium(ctx, tools.FindChromium(nil)),
	)
	agents := newAgentExecutors(d, cfg)
	agents.Locate = engine.NewLocator(nil).Locate
	checks = append(checks, doctor.Engines(ctx, projects, engineFinder{engine.NewLocator(exec.LookPath)}, func(p board.Project) error {
		_, err := agents.CLIBinds(p)
		return err
	})...)
	checks = append(checks, doctor.EngineLogins(projects, func(p board.Project) (string, error) {
		return engine.CheckLogin(engineCLIs[p.Agent.Engine], p, userHome())
	})...)
	checks = append(checks, doctor.Sandbox(projects, listed, sandboxAvailable())...)

	interval := time.Duration(cfg.Heartbeat.IntervalSec) * time.Second
	checks = append(checks, a.serviceChecks(d, interval)...)
	checks = append(checks, doctor.Clock(clock.Local, clock.Remote, clock.Source))
	where := doctor.ExistingParent(string(d))
	free, err := doctor.FreeBytes(where)
	return append(checks, doctor.DiskSpace(where, free, err))
}

// forgeChecks checks the forge token of every active project that lands
// through pull requests (doctor.ForgeTokens); the store is opened only
// when there is a project.
func (a *app) forgeChecks(ctx context.Context, cfg config.Config, projects []board.Project) []doctor.Check {
	if len(projects) == 0 {
		return nil
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return nil
	}
	return doctor.ForgeTokens(ctx, projects, newForges(a, st, cfg, secrets(ctx, a, st).String, nil))
}

// listModels asks a model's provider for its models (doctor.ListModels).
func (a *app) listModels(ctx context.Context, id string) (llm.Listing, string, error) {
	return llmprovider.ListModels(ctx, id, llmprovider.Options{Getenv: a.getenv})
}

// engineCLIs are the engines that run a vendor's CLI, by the name
// projects give them.
var engineCLIs = map[board.Engine]engine.Engine{
	board.EngineClaudeCode: engine.Claude{},
	board.EngineOpenCode:   engine.OpenCode{},
	board.EngineCodex:      engine.Codex{},
}

// engineFinder finds the engines' CLIs for doctor (doctor.EngineCLIs).
type engineFinder struct{ loc *engine.Locator }

func (l engineFinder) Runs(e board.Engine) bool { _, ok := engineCLIs[e]; return ok }

func (l engineFinder) Locate(e board.Engine) (string, error) { return l.loc.Locate(engineCLIs[e]) }

func (l engineFinder) Install(e board.Engine) string { return engineCLIs[e].Install() }

// databaseCheck is doctor's check of bonsai.db (sqlite.QuickCheck);
// current reports a database that opens without a change.
func databaseCheck(ctx context.Context, d config.Dir) (doctor.Check, bool) {
	h, err := sqlite.QuickCheck(ctx, d.DB())
	return doctor.SQLite(d.DB(), doctor.Schema{Version: h.Version, Supported: h.Supported, Problems: h.Problems}, err,
		errors.Is(err, fs.ErrNotExist), errors.Is(err, sqlite.ErrEmptyDatabase) || errors.Is(err, sqlite.ErrNotDatabase))
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
	var f doctor.ServiceFacts
	svc, err := a.service()
	if f.Err = err; err == nil {
		f.Manager, f.Installed = svc.Platform.Name, svc.Installed()
		b, err := readServiceBeat(d)
		if f.LastErr = err; b != nil {
			f.Last = &doctor.ServiceBeat{StartedAt: b.StartedAt, Error: b.Error}
		}
	}
	return doctor.Services(f, a.now(), lastBeat, interval)
}
