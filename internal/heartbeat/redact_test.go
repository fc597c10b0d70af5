package heartbeat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_RedactsTheRunError: whatever a runner returns, a secret in the
// run's error or the agent's last words reaches neither the run record,
// nor the status comment, nor the state file, nor the log.
func TestBeat_RedactsTheRunError(t *testing.T) {
	t.Parallel()
	const secret = "sk-ant-LEAKME-0123456789"
	e := newEnv(t)
	var log bytes.Buffer
	e.opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	e.opts.Redact = func(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") }
	e.project("demo", nil)
	tk := e.ticket("demo", "Work", board.InProgress)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		return heartbeat.Outcome{Status: board.RunError, Error: "proxy said: Authorization: Bearer " + secret,
			Summary: "the key was " + secret}, nil
	}
	rep := e.beat()
	runs, comments := e.runs(tk.Ref()), e.comments(tk.Ref())
	state, _ := os.ReadFile(e.opts.StateFile)
	all, _ := json.Marshal([]any{rep, runs, comments})
	all = append(append(all, state...), log.Bytes()...)
	if bytes.Contains(all, []byte("LEAKME")) {
		t.Errorf("the secret leaked:\n%s", all)
	}
	if len(runs) != 1 || runs[0].Error != "proxy said: Authorization: Bearer [redacted]" {
		t.Errorf("runs = %+v", runs)
	}
}
