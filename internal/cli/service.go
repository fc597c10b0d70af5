package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/autostart"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

func newServiceCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Install the heartbeat as a systemd timer, launchd agent or scheduled task",
		Long: `Install, remove and inspect the heartbeat service: a systemd user timer on
Linux, a launchd LaunchAgent on macOS, a Task Scheduler task on Windows. It
fires 'bonsai heartbeat' every heartbeat.intervalSec seconds; each beat is a
short-lived process. With the service installed, 'bonsai up' only serves the
web UI and leaves the beats to the service.

The unit records the data directory and your PATH, so the beat finds git,
rg and your toolchains as your shell does; it never holds a key. Keys come
from the environment of the beat, else from 'bonsai credentials set': a key
exported only in your shell does not reach the service.`,
	}
	cmd.AddCommand(newServiceInstallCmd(a), newServiceUninstallCmd(a), newServiceStatusCmd(a), newServiceLogsCmd(a))
	return cmd
}

// service returns the heartbeat service of this machine (autostart.Find).
func (a *app) service() (autostart.Service, error) {
	d, err := a.dataDir()
	if err != nil {
		return autostart.Service{}, err
	}
	return autostart.Find(a.getenv("HOME"), string(d))
}

func newServiceInstallCmd(a *app) *cobra.Command {
	var binary string
	var dryRun, worker bool
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install and start the heartbeat service",
		Long: `Install and start the heartbeat service: a timer firing 'bonsai heartbeat'
every heartbeat.intervalSec seconds.

--worker installs 'bonsai worker' instead, kept running by the service
manager: a systemd user service, a launchd KeepAlive agent, or on Windows a
Task Scheduler task started now and at your logon whose script starts the
worker again after a failure. It is one long-running process beating every
heartbeat.intervalSec, for a machine of a board on Postgres that serves no
UI (docs/postgres.md). It replaces the timer, and the timer replaces it;
'service status', 'logs' and 'uninstall' work on either.`,
		Example: `  bonsai service install
  bonsai service install --worker --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.config()
			if err != nil {
				return err
			}
			if binary == "" {
				if binary, err = autostart.InstalledBinary(); errors.Is(err, autostart.ErrTemporaryBinary) {
					return &usageError{Err: err}
				} else if err != nil {
					return err
				}
			} else if !filepath.IsAbs(binary) {
				return usagef("--binary %q must be an absolute path", binary)
			}
			installed, err := a.service()
			if err != nil {
				return err
			}
			svc := installed
			if worker {
				if svc, err = autostart.FindWorker(a.getenv("HOME"), string(a.dir)); err != nil {
					return err
				}
			}
			spec := autostart.Spec{
				Binary: binary, DataDir: string(a.dir), IntervalSec: c.Heartbeat.IntervalSec,
				MaxDurationSec: c.Heartbeat.MaxDurationSec, LogFile: filepath.Join(a.dir.Logs(), "heartbeat.out"),
				Path: a.env("PATH"), User: autostart.WindowsUser(a.env),
			}
			if dryRun {
				if err := spec.Validate(); err != nil {
					return err
				}
				for _, f := range svc.Platform.Files(spec) {
					fmt.Fprintf(a.stdout, "# %s\n%s\n", f.Path, f.Content)
				}
				a.warnShellOnlyKeys()
				return nil
			}
			files, err := autostart.Replace(cmd.Context(), installed, svc, spec, worker)
			if err != nil {
				return err
			}
			what := "bonsai heartbeat every %d seconds"
			if worker {
				what = "bonsai worker, beating every %d seconds"
			}
			fmt.Fprintf(a.stdout, "Installed the heartbeat service (%s): "+what+"\n", svc.Platform.Name, c.Heartbeat.IntervalSec)
			for _, f := range files {
				fmt.Fprintf(a.stdout, "  wrote %s\n", f.Path)
			}
			a.warnShellOnlyKeys()
			return nil
		},
	}
	cmd.Flags().StringVar(&binary, "binary", "", "absolute path of the bonsai binary the service runs (default: this one)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the files the service would consist of, and change nothing")
	cmd.Flags().BoolVar(&worker, "worker", false, "run 'bonsai worker' as a long-running service instead of a timer firing 'bonsai heartbeat'")
	return cmd
}

func newServiceUninstallCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Stop and remove the heartbeat service",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			if err := svc.Uninstall(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, "Removed the heartbeat service")
			return nil
		},
	}
}

func newServiceStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say whether the heartbeat service is installed and what the service manager says of it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			st := svc.Status(cmd.Context())
			if asJSON {
				last, err := readServiceBeat(a.dir)
				if err != nil {
					return err
				}
				return writeJSON(a.stdout, struct {
					autostart.Status
					LastBeat *autostart.Beat `json:"lastBeat"`
				}{st, last})
			}
			if !st.Installed {
				fmt.Fprintf(a.stdout, "The heartbeat service is not installed (%s). Install it with: bonsai service install\n", st.Manager)
				return nil
			}
			fmt.Fprintf(a.stdout, "The heartbeat service is installed (%s)\n", st.Manager)
			for _, f := range st.Files {
				fmt.Fprintf(a.stdout, "  %s\n", f)
			}
			if st.Detail != "" {
				fmt.Fprintf(a.stdout, "\n%s\n", st.Detail)
			}
			fmt.Fprintln(a.stdout)
			return writeServiceBeat(a.stdout, a.dir, a.now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newServiceLogsCmd(a *app) *cobra.Command {
	var lines int
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Print the end of the heartbeat log",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if lines < 1 {
				return usagef("-n must be at least 1")
			}
			d, err := a.dataDir()
			if err != nil {
				return err
			}
			path := filepath.Join(d.Logs(), "heartbeat.log")
			b, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(a.stdout, "No heartbeat has logged yet (%s)\n", path)
				return nil
			}
			if err != nil {
				return err
			}
			// The log quotes what agents wrote; an older or hand-made
			// line may not: its control characters show as escapes.
			_, err = io.WriteString(a.stdout, termsafe.Text(string(autostart.LastLines(b, lines))))
			return err
		},
	}
	cmd.Flags().IntVarP(&lines, "lines", "n", 50, "how many lines to print")
	return cmd
}

// warnShellOnlyKeys warns of keys set in this shell's environment but not
// stored: the service, which reads no shell profile, will not see them.
func (a *app) warnShellOnlyKeys() {
	srcs, err := a.keys().Sources()
	if err != nil {
		fmt.Fprintf(a.stderr, "bonsai: warning: %v\n", err)
		return
	}
	for _, c := range srcs {
		if c.Source == credentials.SourceEnv && !c.Shadowed {
			fmt.Fprintf(a.stderr, "bonsai: warning: %s is set in this shell but not stored, so the service will not see it: run 'bonsai credentials set %s'\n", c.Variable, c.Name)
		}
	}
}
