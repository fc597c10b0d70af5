package engine_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
)

// An engine's command shows in the live file as it starts, as Bonsai's
// own agent's do: its name, its arguments and its start time, while it
// runs, and no more once its result is in the transcript. The command
// waits for a file the test writes once it saw the command live, so no
// timing decides the outcome.
func TestEngineToolCallsShowLive(t *testing.T) {
	t.Parallel()
	const wait = `while [ ! -e go ]; do sleep 0.1; done; echo went`
	for _, c := range []struct {
		e              engine.Engine
		program, model string
		tool, args     string
		env            func(url string) map[string]string
	}{
		{engine.Claude{}, "claude", "anthropic/claude-sonnet-4-5", "Bash", `{"command":"` + wait + `","description":"wait"}`,
			func(u string) map[string]string {
				return map[string]string{"ANTHROPIC_BASE_URL": u, "ANTHROPIC_API_KEY": "k"}
			}},
		// OpenCode prints a call only once it finished: its policy plugin's
		// hook request, which names the call, shows it.
		{engine.OpenCode{}, "opencode", "anthropic/claude-sonnet-4-5", "bash", `{"command":"` + wait + `","description":"wait"}`,
			func(u string) map[string]string {
				return map[string]string{"ANTHROPIC_BASE_URL": u, "ANTHROPIC_API_KEY": "k"}
			}},
		{engine.Codex{}, "codex", "openai/gpt-5-codex", "exec_command", `{"cmd":"` + wait + `"}`,
			func(u string) map[string]string {
				return map[string]string{"OPENAI_BASE_URL": u + "/v1", "OPENAI_API_KEY": "k"}
			}},
	} {
		t.Run(c.program, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, call("call_1", c.tool, c.args), text("Done."))
			f := newFixture(t, c.e, c.program, c.model, c.env(srv.URL))
			type result struct {
				out agentjob.Outcome
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, err := f.runner.RunAgent(context.Background(), f.job)
				done <- result{out, err}
			}()
			release := func() {
				if err := os.WriteFile(filepath.Join(f.root, "go"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := session.NewLiveReader(session.LivePath(f.job.SessionFile), 4096)
			// A bound on a failure, not a measure: the command waits for
			// the test, so a command never shown would hang the run.
			giveUp := time.After(3 * time.Minute)
			var since int64
			for since == 0 {
				select {
				case res := <-done:
					t.Fatalf("the run ended before its command showed live: %+v, %v", res.out, res.err)
				case <-giveUp:
					release()
					<-done
					t.Fatalf("the running command never showed in the live file")
				case <-time.After(50 * time.Millisecond):
				}
				r.Poll()
				if _, parts, ok := r.Streaming(); ok {
					for _, p := range parts {
						if p.Kind == session.LiveRun && bytes.Contains(p.Text, []byte("while [ ! -e go ]")) {
							since = p.Since
						}
					}
				}
			}
			if since <= 0 {
				t.Errorf("the running command has no start time")
			}
			release()
			res := <-done
			if res.err != nil || res.out.Status != board.RunCompleted {
				t.Fatalf("run: %+v, %v", res.out, res.err)
			}
			found := false
			for _, e := range f.transcript(t) {
				if m := e.Message; m != nil && m.ToolCallID != "" && bytes.Contains([]byte(m.Text()), []byte("went")) {
					found = true
				}
			}
			if !found {
				t.Errorf("the command's result is not in the transcript")
			}
		})
	}
}
