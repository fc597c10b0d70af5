//go:build unix

package gate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// shotTools returns the gated tools with a screenshot tool whose Chromium
// is a stand-in that fails, and the workspace.
func shotTools(t *testing.T, c gate.Config) ([]tool.Tool, string) {
	t.Helper()
	dir := t.TempDir()
	fake := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.html"), []byte("<p>x</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ex, err := local.New(dir, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	c.Policy.Workspace = dir
	return gate.Wrap(tools.New(ex, tools.Options{Chromium: fake}), c), dir
}

// TestScreenshotServeIsJudged: the screenshot tool's serve command is a
// command like bash's: the policy refuses a denied one, and one held for
// a person with no one to ask, before anything runs.
func TestScreenshotServeIsJudged(t *testing.T) {
	ts, dir := shotTools(t, gate.Config{})
	r := call(t, ts, "screenshot", map[string]string{"url": "http://127.0.0.1:9/", "serve": "touch marker && sudo id"})
	if !r.IsError || !strings.HasPrefix(r.Text(), "Command refused by the policy (privilege-escalation)") {
		t.Errorf("denied serve: %q", r.Text())
	}
	ts, dir = shotTools(t, gate.Config{Policy: policy.Config{Mode: policy.ModeAsk}})
	r = call(t, ts, "screenshot", map[string]string{"url": "http://127.0.0.1:9/", "serve": "touch marker; python3 -m http.server 9"})
	if !r.IsError || !strings.Contains(r.Text(), "held for a person's approval") {
		t.Errorf("held serve: %q", r.Text())
	}
	if exists(filepath.Join(dir, "marker")) {
		t.Error("a refused serve command ran")
	}
}

// TestScreenshotReadOnlyRun: in a read-only run the picture cannot be
// saved at a path the model names.
func TestScreenshotReadOnlyRun(t *testing.T) {
	ts, dir := shotTools(t, gate.Config{ReadOnly: true})
	r := call(t, ts, "screenshot", map[string]string{"file": "p.html", "path": "shot.png"})
	if !r.IsError || !strings.Contains(r.Text(), "must not write the worktree") {
		t.Errorf("read-only run: %q", r.Text())
	}
	if exists(filepath.Join(dir, "shot.png")) {
		t.Error("a read-only run saved the picture")
	}
}
