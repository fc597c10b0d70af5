package heartbeat

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// RunNowWait bounds how long StartRunNow waits for the beat it started
// to start a run; preparing a workspace (a first clone) may take longer,
// and the beat goes on regardless.
const RunNowWait = 15 * time.Second

// RunLister reads a ticket's runs.
type RunLister interface {
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
}

// StartRunNow starts beat, a detached beat for exactly ticket ref (`bonsai
// heartbeat --ticket ref`) that outlives the web request or the command,
// with its output in logs/run-now-<project>-<n>.out, and waits until it
// started a run of ref, or exited without one: then its output says why
// (the board rules, the heartbeat lock held by another beat, the model
// not ready) and is the error. It returns a sentence for people.
func StartRunNow(ctx context.Context, beat *exec.Cmd, logs string, s RunLister, ref board.Ref) (string, error) {
	before, err := s.Runs(ctx, ref)
	if err != nil {
		return "", err
	}
	known := map[string]bool{}
	for _, r := range before {
		known[r.ID] = true
	}
	if err := os.MkdirAll(logs, 0o700); err != nil {
		return "", err
	}
	outPath := filepath.Join(logs, fmt.Sprintf("run-now-%s-%d.out", ref.Project, ref.Number))
	out, err := os.OpenFile(outPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	defer out.Close()
	beat.Stdout, beat.Stderr = out, out
	if err := beat.Start(); err != nil {
		return "", fmt.Errorf("start a beat for %s: %w", ref, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- beat.Wait() }() // reaps it in a long-lived server
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	wait := time.NewTimer(RunNowWait)
	defer wait.Stop()
	for {
		runs, err := s.Runs(ctx, ref)
		if err != nil {
			return "", err
		}
		for _, r := range runs {
			if !known[r.ID] {
				return fmt.Sprintf("%s: run %s started (%s) by beat pid %d", ref, r.ID, r.Task, beat.Process.Pid), nil
			}
		}
		select {
		case err := <-exited:
			if runs, rerr := s.Runs(ctx, ref); rerr == nil && len(runs) > 0 && !known[runs[0].ID] {
				return fmt.Sprintf("%s: run %s finished as %s", ref, runs[0].ID, runs[0].Status), nil
			}
			return "", board.Errorf(board.EREFUSED, "%s", whyNotRun(outPath, err))
		case <-wait.C:
			return fmt.Sprintf("%s: a beat (pid %d) is preparing it; no run yet after %s (a first clone can take a while; see logs/heartbeat.log)", ref, beat.Process.Pid, RunNowWait), nil
		case <-ctx.Done():
			return "", ctx.Err()
		case <-tick.C:
		}
	}
}

// whyNotRun is why a Run now beat that exited with err ran no agent: its
// own last error line (it names the ticket), else its output or exit.
func whyNotRun(outPath string, err error) string {
	b, _ := os.ReadFile(outPath)
	why := strings.TrimSpace(string(b))
	if why == "" && err != nil {
		why = err.Error()
	}
	if why == "" {
		why = "the beat ran no agent on it"
	}
	for _, line := range strings.Split(why, "\n") {
		if msg, ok := strings.CutPrefix(line, "bonsai: "); ok {
			why = msg
		}
	}
	return why
}

// VariantRuns lists the runs of a round's variants (refs) as one
// ticket's, newest first, for StartRunNow's wait on the beat that runs
// them.
func VariantRuns(s RunLister, refs []board.Ref) RunLister {
	return variantRuns{s: s, refs: refs}
}

type variantRuns struct {
	s    RunLister
	refs []board.Ref
}

// Runs implements RunLister; the ref asked for is one of refs' round.
func (v variantRuns) Runs(ctx context.Context, _ board.Ref) ([]board.Run, error) {
	var all []board.Run
	for _, ref := range v.refs {
		rs, err := v.s.Runs(ctx, ref)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	slices.SortStableFunc(all, func(x, y board.Run) int { return y.StartedAt.Compare(x.StartedAt) })
	return all, nil
}
