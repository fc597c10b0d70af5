// Package servicecmd holds `bonsai service`: the heartbeat (or worker)
// installed as a systemd unit, launchd agent or scheduled task, removed,
// its status with the last beat it fired, and the end of its log.
package servicecmd

import (
	"errors"
	"fmt"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/view/text"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/autostart"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// NewCmd returns `bonsai service` and its subcommands.
func NewCmd(a *cmdkit.App) *cobra.Command {
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

// Find returns the heartbeat service of this machine (autostart.Find).
func Find(a *cmdkit.App) (autostart.Service, error) {
	d, err := a.DataDir()
	if err != nil {
		return autostart.Service{}, err
	}
	return autostart.Find(a.Getenv("HOME"), string(d))
}

func newServiceInstallCmd(a *cmdkit.App) *cobra.Command {
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
			c, err := a.Config()
			if err != nil {
				return err
			}
			if binary == "" {
				if binary, err = autostart.InstalledBinary(); errors.Is(err, autostart.ErrTemporaryBinary) {
					return &cmdkit.UsageError{Err: err}
				} else if err != nil {
					return err
				}
			} else if !filepath.IsAbs(binary) {
				return cmdkit.Usagef("--binary %q must be an absolute path", binary)
			}
			installed, err := Find(a)
			if err != nil {
				return err
			}
			d, err := a.DataDir()
			if err != nil {
				return err
			}
			svc := installed
			if worker {
				if svc, err = autostart.FindWorker(a.Getenv("HOME"), string(d)); err != nil {
					return err
				}
			}
			spec := autostart.Spec{
				Binary: binary, DataDir: string(d), IntervalSec: c.Heartbeat.IntervalSec,
				MaxDurationSec: c.Heartbeat.MaxDurationSec, LogFile: filepath.Join(d.Logs(), "heartbeat.out"),
				Path: a.Env("PATH"), User: autostart.WindowsUser(a.Env),
			}
			if dryRun {
				if err := spec.Validate(); err != nil {
					return err
				}
				for _, f := range svc.Platform.Files(spec) {
					fmt.Fprintf(a.Stdout, "# %s\n%s\n", f.Path, f.Content)
				}
				warnShellOnlyKeys(a)
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
			fmt.Fprintf(a.Stdout, "Installed the heartbeat service (%s): "+what+"\n", svc.Platform.Name, c.Heartbeat.IntervalSec)
			for _, f := range files {
				fmt.Fprintf(a.Stdout, "  wrote %s\n", f.Path)
			}
			warnShellOnlyKeys(a)
			return nil
		},
	}
	cmd.Flags().StringVar(&binary, "binary", "", "absolute path of the bonsai binary the service runs (default: this one)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the files the service would consist of, and change nothing")
	cmd.Flags().BoolVar(&worker, "worker", false, "run 'bonsai worker' as a long-running service instead of a timer firing 'bonsai heartbeat'")
	return cmd
}

func newServiceUninstallCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:   "uninstall",
		Short: "Stop and remove the heartbeat service",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := Find(a)
			if err != nil {
				return err
			}
			if err := svc.Uninstall(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintln(a.Stdout, "Removed the heartbeat service")
			return nil
		},
	}
}

func newServiceStatusCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say whether the heartbeat service is installed and what the service manager says of it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := Find(a)
			if err != nil {
				return err
			}
			d, err := a.DataDir()
			if err != nil {
				return err
			}
			st := svc.Status(cmd.Context())
			if asJSON {
				last, err := autostart.ReadBeat(string(d))
				if err != nil {
					return err
				}
				return cmdkit.WriteJSON(a.Stdout, struct {
					autostart.Status
					LastBeat *autostart.Beat `json:"lastBeat"`
				}{st, last})
			}
			if !st.Installed {
				fmt.Fprintf(a.Stdout, "The heartbeat service is not installed (%s). Install it with: bonsai service install\n", st.Manager)
				return nil
			}
			fmt.Fprintf(a.Stdout, "The heartbeat service is installed (%s)\n", st.Manager)
			for _, f := range st.Files {
				fmt.Fprintf(a.Stdout, "  %s\n", f)
			}
			if st.Detail != "" {
				fmt.Fprintf(a.Stdout, "\n%s\n", st.Detail)
			}
			fmt.Fprintln(a.Stdout)
			return writeServiceBeat(a.Stdout, d, a.Now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newServiceLogsCmd(a *cmdkit.App) *cobra.Command {
	var lines int
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Print the end of the heartbeat log",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if lines < 1 {
				return cmdkit.Usagef("-n must be at least 1")
			}
			d, err := a.DataDir()
			if err != nil {
				return err
			}
			path := filepath.Join(d.Logs(), "heartbeat.log")
			b, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(a.Stdout, "No heartbeat has logged yet (%s)\n", path)
				return nil
			}
			if err != nil {
				return err
			}
			// The log quotes what agents wrote; an older or hand-made
			// line may not: its control characters show as escapes.
			_, err = io.WriteString(a.Stdout, termsafe.Text(string(autostart.LastLines(b, lines))))
			return err
		},
	}
	cmd.Flags().IntVarP(&lines, "lines", "n", 50, "how many lines to print")
	return cmd
}

// warnShellOnlyKeys warns of keys set in this shell's environment but not
// stored: the service, which reads no shell profile, will not see them.
func warnShellOnlyKeys(a *cmdkit.App) {
	srcs, err := a.Keys().Sources()
	if err != nil {
		fmt.Fprintf(a.Stderr, "bonsai: warning: %v\n", err)
		return
	}
	for _, c := range srcs {
		if c.Source == credentials.SourceEnv && !c.Shadowed {
			fmt.Fprintf(a.Stderr, "bonsai: warning: %s is set in this shell but not stored, so the service will not see it: run 'bonsai credentials set %s'\n", c.Variable, c.Name)
		}
	}
}

// writeServiceBeat writes what 'bonsai service status' says of the last
// beat the service fired, or of the last beat of any process when the
// service has not fired one yet (text.WriteServiceBeat).
func writeServiceBeat(w io.Writer, d config.Dir, now time.Time) error {
	b, err := autostart.ReadBeat(string(d))
	if err != nil {
		return err
	}
	return text.WriteServiceBeat(w, b, d.Path(autostart.BeatFile), heartbeat.ReadState(d.Path("heartbeat.json")).LastBeat, now)
}
