//go:build unix

package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

func claudeFixture(t *testing.T, srv *llmtest.Server) *fixture {
	return newFixture(t, engine.Claude{}, "claude", "anthropic/claude-sonnet-4-5",
		map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "sk-test"})
}

// A Claude Code killed mid-run is an interrupted run that keeps what it
// streamed; the next beat resumes its session.
func TestClaudeKilledMidRunResumes(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{
			llm.Text("Working on it."),
			llm.ToolCall("toolu_1", "Bash", []byte(`{"command":"kill -9 $PPID","description":"kill"}`))}, Usage: &llm.Usage{Input: 100, Output: 10}}})
	f := claudeFixture(t, srv)
	out, err := f.runner.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != board.RunInterrupted || !strings.Contains(out.Error, "exited with status 137 before its result") {
		t.Fatalf("outcome %+v", out)
	}
	if out.Usage.InputTokens != 100 || out.Summary != "Working on it." {
		t.Errorf("outcome %+v: want what was streamed", out)
	}
	var texts []string
	for _, e := range f.transcript(t) {
		if e.Message != nil && e.Message.Role == llm.RoleAssistant {
			texts = append(texts, e.Message.Text())
		}
	}
	if len(texts) != 1 || texts[0] != "Working on it." {
		t.Errorf("transcript assistant messages %q", texts)
	}

	st, err := engine.LoadState(f.job.SessionFile, "claude-code")
	if err != nil || st.Session == "" {
		t.Fatalf("state after the kill %+v, %v: the session to resume was not kept", st, err)
	}

	srv.Push(text("Resumed after the crash."))
	out, err = f.runner.RunAgent(context.Background(), f.job)
	if err != nil || out.Status != board.RunCompleted || out.Summary != "Resumed after the crash." {
		t.Fatalf("second run: %+v, %v", out, err)
	}
	if st2, _ := engine.LoadState(f.job.SessionFile, "claude-code"); st2.Session != st.Session {
		t.Errorf("session %q after the second run, want %q resumed", st2.Session, st.Session)
	}
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1].Raw); !strings.Contains(last, "Working on it.") {
		// Claude Code writes its session file behind its stream: a
		// kill -9 on a busy machine can come before the killed turn's
		// message is written (CI saw it once). The session resumed; what
		// the model streamed is in Bonsai's transcript (above).
		t.Logf("Claude Code's session did not keep the killed turn's message; the resumed request's messages:\n%s", last[max(0, strings.Index(last, `"messages"`)):])
	}
}

// A session the CLI cannot resume (its files are gone) starts a new one,
// primed with a summary of the ticket's transcript.
func TestClaudeLostSessionStartsOverWithASummary(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, text("The parser lives in parse.go."))
	f := claudeFixture(t, srv)
	if out, err := f.runner.RunAgent(context.Background(), f.job); err != nil || out.Status != board.RunCompleted {
		t.Fatalf("first run: %+v, %v", out, err)
	}
	before, _ := engine.LoadState(f.job.SessionFile, "claude-code")
	if err := os.RemoveAll(filepath.Join(engine.StateRoot(f.dir, "demo", 1), "home", "claude-code", "projects")); err != nil {
		t.Fatal(err)
	}
	srv.Push(text("Started over."))
	out, err := f.runner.RunAgent(context.Background(), f.job)
	if err != nil || out.Status != board.RunCompleted || out.Summary != "Started over." {
		t.Fatalf("second run: %+v, %v", out, err)
	}
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Raw)
	if !strings.Contains(last, "could not be resumed") || !strings.Contains(last, "agent: The parser lives in parse.go.") {
		t.Errorf("the new session was not primed with the summary:\n%.2000s", last)
	}
	after, _ := engine.LoadState(f.job.SessionFile, "claude-code")
	if after.Session == "" || after.Session == before.Session {
		t.Errorf("session %q after starting over (was %q)", after.Session, before.Session)
	}
}

// A CLI that prints lines that are not JSON and exits non-zero is an
// interrupted run saying so, with what it streamed.
func TestEngineNonJSONNonZero(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	f := claudeFixture(t, srv)
	script := filepath.Join(t.TempDir(), "claude")
	body := "#!/bin/sh\nhead -n 1 >/dev/null\n" +
		`echo '{"type":"system","subtype":"init","session_id":"9b2b6b8e-1b1e-4c43-9a43-0d5c1d9b2d11"}'` + "\n" +
		"echo 'Segmentation fault (core dumped)'\n" +
		`echo '{"type":"assistant","message":{"model":"m","content":[{"type":"text","text":"half way"}]}}'` + "\n" +
		"echo 'out of memory' >&2\nexit 3\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := engine.New(engine.Options{Engine: engine.Claude{}, DataDir: f.dir,
		Locate: func(engine.Engine) (string, error) { return script, nil },
		Getenv: func(k string) string {
			return map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}[k]
		}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	want := "claude-code exited with status 3 before its result (1 lines were not JSON events): out of memory"
	if out.Status != board.RunInterrupted || out.Error != want || out.Summary != "half way" {
		t.Fatalf("outcome %+v\nwant error %q", out, want)
	}
	st, _ := engine.LoadState(f.job.SessionFile, "claude-code")
	if st.Session != "9b2b6b8e-1b1e-4c43-9a43-0d5c1d9b2d11" {
		t.Errorf("session %q: the next beat resumes the one the CLI named", st.Session)
	}
}

// A missing or outdated CLI is a readiness error naming the install
// command, so the beat skips the ticket.
func TestLocatorSaysHowToInstall(t *testing.T) {
	t.Parallel()
	l := engine.NewLocator(func(string) (string, error) { return "", os.ErrNotExist })
	_, err := l.Locate(engine.Claude{})
	if err == nil || !strings.Contains(err.Error(), "npm install -g @anthropic-ai/claude-code") {
		t.Fatalf("missing CLI: %v", err)
	}
	old := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(old, []byte("#!/bin/sh\necho '1.0.3 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	l = engine.NewLocator(func(string) (string, error) { return old, nil })
	_, err = l.Locate(engine.Claude{})
	if err == nil || !strings.Contains(err.Error(), "claude 1.0.3 is older than 2.1.0") || !strings.Contains(err.Error(), "npm install -g") {
		t.Fatalf("old CLI: %v", err)
	}
}

// The run's token budget ends the CLI once its responses used it.
func TestClaudeTokenBudget(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		call("toolu_1", "Bash", `{"command":"echo one","description":"one"}`),
		call("toolu_2", "Bash", `{"command":"echo two","description":"two"}`),
		call("toolu_3", "Bash", `{"command":"echo three","description":"three"}`),
		text("never reached"))
	f := claudeFixture(t, srv)
	f.job.Budget.Tokens = 150
	out, err := f.runner.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != board.RunBudgetExceeded || out.Usage.InputTokens+out.Usage.OutputTokens < 150 {
		t.Fatalf("outcome %+v", out)
	}
	if srv.Remaining() < 1 {
		t.Errorf("the CLI went on after its budget: %d turns left", srv.Remaining())
	}
}

// A person's Stop (the run's context ends) kills the CLI: the run is
// interrupted, its transcript kept.
func TestClaudeStopped(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		call("toolu_1", "mcp__bonsai__ticket_comment", `{"body":"starting"}`),
		call("toolu_2", "Bash", `{"command":"sleep 300","description":"wait"}`),
		text("never reached"))
	f := claudeFixture(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.job.Tools[0] = stopTool{recordTool: recordTool{name: "ticket_comment", calls: &f.calls}, stop: cancel}
	out, err := f.runner.RunAgent(ctx, f.job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != board.RunInterrupted || out.Error != "stopped" {
		t.Fatalf("outcome %+v", out)
	}
}

// stopTool is a board tool whose call is followed by a person's Stop.
type stopTool struct {
	recordTool
	stop func()
}

func (t stopTool) Run(ctx context.Context, args json.RawMessage, u func(tool.Result)) (tool.Result, error) {
	r, err := t.recordTool.Run(ctx, args, u)
	t.stop()
	return r, err
}

// A key the provider rejects fails the run and pauses the provider, as
// for Bonsai's own agent.
func TestClaudeRejectedKeyPauses(t *testing.T) {
	t.Parallel()
	var turns []llmtest.ServerTurn
	for range 10 { // Claude Code tries again before it gives up
		turns = append(turns, llmtest.ServerTurn{Status: 401, ErrorMessage: "invalid x-api-key"})
	}
	srv := llmtest.NewServer(t, turns...)
	f := claudeFixture(t, srv)
	out, err := f.runner.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != board.RunError || out.RetryAt.IsZero() || out.Error != "the provider rejected the API key (HTTP 401): invalid x-api-key" {
		t.Fatalf("outcome %+v: want an error pausing the provider", out)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests: the run should end at the second refusal", n)
	}
}

// A line the transcript's mirror (a shared board's store) refuses stops
// the engine's run with an error, and the line is not in the file.
func TestClaudeMirrorRefusalStopsTheRun(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, text("This line is refused."), text("Never asked."))
	f := claudeFixture(t, srv)
	var stored int64
	f.job.Mirror = session.MirrorFunc(func(n int64, line []byte) error {
		if n >= 2 { // the header and the task go in; the engine's first message does not
			return errors.New("the store is unreachable")
		}
		stored++
		return nil
	})
	out, err := f.runner.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != board.RunError || !strings.Contains(out.Error, "write the transcript") || !strings.Contains(out.Error, "the store is unreachable") {
		t.Fatalf("outcome %+v, want an error saying the transcript could not be written", out)
	}
	if stored != 2 {
		t.Errorf("the mirror took %d lines, want 2", stored)
	}
	for _, e := range f.transcript(t) {
		if e.Message != nil && e.Message.Role == llm.RoleAssistant {
			t.Errorf("the file holds an assistant message the mirror refused: %q", e.Message.Text())
		}
	}
}
