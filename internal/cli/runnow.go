package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
)

// runNowWait bounds how long Run now waits for the beat it started to
// start a run; preparing a workspace (a first clone) may take longer, and
// the beat goes on regardless.
const runNowWait = 15 * time.Second

// runLister reads a ticket's runs.
type runLister interface {
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
}

// startRunNow starts `bonsai heartbeat --ticket ref` (this binary) as a
// detached process, so that it outlives the web request or the CLI
// command, and waits until it started a run of ref, or exited without
// one: then its output says why (the board rules, the heartbeat lock held
// by another beat, the model not ready) and is the error. It returns a
// sentence for people.
func startRunNow(ctx context.Context, a *app, d config.Dir, s runLister, ref board.Ref) (string, error) {
	before, err := s.Runs(ctx, ref)
	if err != nil {
		return "", err
	}
	known := map[string]bool{}
	for _, r := range before {
		known[r.ID] = true
	}
	exe, env, err := a.beat()
	if err != nil {
		return "", fmt.Errorf("find the bonsai binary to start a beat: %w", err)
	}
	if err := os.MkdirAll(d.Logs(), 0o700); err != nil {
		return "", err
	}
	outPath := filepath.Join(d.Logs(), fmt.Sprintf("run-now-%s-%d.out", ref.Project, ref.Number))
	out, err := os.OpenFile(outPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	defer out.Close()
	cmd := exec.Command(exe, "heartbeat", "--ticket", ref.String())
	cmd.Env = append(env, "BONSAI_DATA_DIR="+string(d))
	cmd.Stdout, cmd.Stderr = out, out
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start a beat for %s: %w", ref, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps it in a long-lived server
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	wait := time.NewTimer(runNowWait)
	defer wait.Stop()
	for {
		runs, err := s.Runs(ctx, ref)
		if err != nil {
			return "", err
		}
		for _, r := range runs {
			if !known[r.ID] {
				return fmt.Sprintf("%s: run %s started (%s) by beat pid %d", ref, r.ID, r.Task, cmd.Process.Pid), nil
			}
		}
		select {
		case err := <-exited:
			if runs, rerr := s.Runs(ctx, ref); rerr == nil && len(runs) > 0 && !known[runs[0].ID] {
				return fmt.Sprintf("%s: run %s finished as %s", ref, runs[0].ID, runs[0].Status), nil
			}
			b, _ := os.ReadFile(outPath)
			why := strings.TrimSpace(string(b))
			if why == "" && err != nil {
				why = err.Error()
			}
			if why == "" {
				why = "the beat ran no agent on it"
			}
			// The beat's own error line says why, naming the ticket.
			for _, line := range strings.Split(why, "\n") {
				if msg, ok := strings.CutPrefix(line, "bonsai: "); ok {
					why = msg
				}
			}
			return "", board.Errorf(board.EREFUSED, "%s", why)
		case <-wait.C:
			return fmt.Sprintf("%s: a beat (pid %d) is preparing it; no run yet after %s (a first clone can take a while; see logs/heartbeat.log)", ref, cmd.Process.Pid, runNowWait), nil
		case <-ctx.Done():
			return "", ctx.Err()
		case <-tick.C:
		}
	}
}

// beat returns the program and environment of a Run now beat.
func (a *app) beat() (string, []string, error) {
	if a.beatCommand != nil {
		return a.beatCommand()
	}
	exe, err := os.Executable()
	return exe, os.Environ(), err
}
