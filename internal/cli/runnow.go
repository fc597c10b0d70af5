package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// startRunNow starts `bonsai heartbeat --ticket ref` (this binary) as a
// detached process and waits for its run (heartbeat.StartRunNow).
func startRunNow(ctx context.Context, a *app, d config.Dir, s heartbeat.RunLister, ref board.Ref) (string, error) {
	exe, env, err := a.beat()
	if err != nil {
		return "", fmt.Errorf("find the bonsai binary to start a beat: %w", err)
	}
	cmd := exec.Command(exe, "heartbeat", "--ticket", ref.String())
	cmd.Env = append(env, "BONSAI_DATA_DIR="+string(d))
	detach(cmd)
	return heartbeat.StartRunNow(ctx, cmd, d.Logs(), s, ref)
}

// beat returns the program and environment of a Run now beat.
func (a *app) beat() (string, []string, error) {
	if a.beatCommand != nil {
		return a.beatCommand()
	}
	exe, err := os.Executable()
	return exe, os.Environ(), err
}
