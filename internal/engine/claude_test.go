package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

func call(id, name, args string) llmtest.ServerTurn {
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant,
		Content: []llm.Part{llm.ToolCall(id, name, []byte(args))}, Usage: &llm.Usage{Input: 100, Output: 10}}}
}

func text(s string) llmtest.ServerTurn {
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant,
		Content: []llm.Part{llm.Text(s)}, Usage: &llm.Usage{Input: 100, Output: 5}}}
}

// recordTool is a board tool that records its calls.
type recordTool struct {
	name      string
	calls     *[]string
	terminate bool
}

func (t recordTool) Name() string        { return t.name }
func (t recordTool) Description() string { return "records " + t.name }
func (t recordTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"body":{"type":"string"}},"required":["body"]}`)
}
func (t recordTool) Run(_ context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	*t.calls = append(*t.calls, t.name+" "+string(args))
	r := tool.Text("recorded")
	r.Terminate = t.terminate
	return r, nil
}

type fixture struct {
	dir, root string
	job       agentjob.Job
	runner    *engine.Runner
	opts      engine.Options
	calls     []string
}

func newFixture(t *testing.T, e engine.Engine, program, model string, env map[string]string) *fixture {
	bin := requireCLI(t, program)
	f := &fixture{dir: t.TempDir()}
	f.root = filepath.Join(f.dir, "work")
	if err := os.MkdirAll(f.root, 0o755); err != nil {
		t.Fatal(err)
	}
	ex, err := local.New(f.root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.job = agentjob.Job{
		Brief: agentjob.Brief{Task: board.TaskImplement, Project: board.Project{Slug: "demo"},
			Ticket: board.Ticket{ProjectSlug: "demo", Number: 1, Title: "Add a feature", State: board.InProgress},
			// A generous deadline: a node CLI starting on a machine busy
			// with other test binaries can take minutes, and the deadline
			// is not what these tests check.
			Now: time.Now(), Deadline: time.Now().Add(10 * time.Minute)},
		Workspace:   &workspace.Workspace{Root: f.root, Exec: ex},
		Model:       model,
		SessionFile: filepath.Join(f.dir, "sessions", "p", "t", "transcript.jsonl"),
		Tools: []tool.Tool{recordTool{name: "ticket_comment", calls: &f.calls},
			recordTool{name: "ticket_ask", calls: &f.calls, terminate: true}},
	}
	f.opts = engine.Options{Engine: e, DataDir: f.dir,
		Locate: func(engine.Engine) (string, error) { return bin, nil },
		Getenv: func(k string) string { return env[k] }}
	f.runner, err = engine.New(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) transcript(t *testing.T) []session.Entry {
	t.Helper()
	r, err := os.Open(f.job.SessionFile)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, ents, _, err := session.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

func TestClaudeRunsATicket(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t,
		call("toolu_1", "Bash", `{"command":"echo DONE > feature.txt; env","description":"write"}`),
		call("toolu_2", "mcp__bonsai__ticket_comment", `{"body":"wrote feature.txt"}`),
		text("All done."))
	f := newFixture(t, engine.Claude{}, "claude", "anthropic/claude-sonnet-4-5",
		map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": "sk-ant-secret-test-key"})
	out, err := f.runner.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != board.RunCompleted || out.Summary != "All done." {
		t.Fatalf("outcome %+v", out)
	}
	if out.Usage.InputTokens != 300 || out.Usage.CostUSD <= 0 {
		t.Errorf("usage %+v: want the result event's totals", out.Usage)
	}
	for _, e := range f.transcript(t) {
		if e.Message != nil && e.Message.Role == llm.RoleToolResult {
			t.Logf("%s: %s", e.Message.ToolName, e.Message.Text())
		}
	}
	if b, err := os.ReadFile(filepath.Join(f.root, "feature.txt")); err != nil || strings.TrimSpace(string(b)) != "DONE" {
		t.Errorf("feature.txt = %q, %v", b, err)
	}
	if len(f.calls) != 1 || !strings.Contains(f.calls[0], "wrote feature.txt") {
		t.Errorf("board tool calls %q", f.calls)
	}
	var roles, tools []string
	for _, e := range f.transcript(t) {
		if e.Message == nil {
			continue
		}
		roles = append(roles, string(e.Message.Role))
		if e.Message.Role == llm.RoleToolResult {
			tools = append(tools, e.Message.ToolName)
			if strings.Contains(e.Message.Text(), "sk-ant-secret-test-key") {
				t.Errorf("the model's command saw the API key:\n%s", e.Message.Text())
			}
		}
	}
	if got := strings.Join(roles, " "); got != "user assistant toolResult assistant toolResult assistant" {
		t.Errorf("transcript roles %q", got)
	}
	if got := strings.Join(tools, " "); got != "Bash mcp__bonsai__ticket_comment" {
		t.Errorf("tool results %q", got)
	}
	st, err := engine.LoadState(f.job.SessionFile, "claude-code")
	if err != nil || st.Session == "" {
		t.Fatalf("state %+v, %v", st, err)
	}
	// The appended system prompt carries the ticket.
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[0].Raw), `ref=\"demo#1\"`) {
		t.Errorf("the first request has no ticket block")
	}

	// The second beat resumes the vendor session: the model sees the
	// first beat's conversation.
	srv.Push(text("Resumed."))
	out, err = f.runner.RunAgent(context.Background(), f.job)
	if err != nil || out.Status != board.RunCompleted {
		t.Fatalf("second run: %+v, %v", out, err)
	}
	reqs = srv.Requests()
	last := string(reqs[len(reqs)-1].Raw)
	if !strings.Contains(last, "wrote feature.txt") || !strings.Contains(last, "All done.") {
		t.Errorf("the resumed request lacks the first beat's conversation")
	}
	st2, _ := engine.LoadState(f.job.SessionFile, "claude-code")
	if st2.Session != st.Session {
		t.Errorf("session %q after resume, want %q", st2.Session, st.Session)
	}
}
