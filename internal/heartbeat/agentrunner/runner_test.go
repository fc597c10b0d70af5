package agentrunner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/store/sqlite/sqlitetest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// call is a scripted assistant turn asking for one tool.
func call(id, name string, args any) llmtest.Turn {
	raw, _ := json.Marshal(args)
	return llmtest.Turn{Message: llm.Message{Role: llm.RoleAssistant,
		Content: []llm.Part{llm.ToolCall(id, name, raw)},
		Usage:   &llm.Usage{Input: 1000, Output: 50, Cost: 0.001}}}
}

func say(text string) llmtest.Turn {
	return llmtest.Turn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text(text)},
		Usage: &llm.Usage{Input: 1000, Output: 20, Cost: 0.001}}}
}

type fixture struct {
	data  string
	db    *sqlite.DB
	model *llmtest.Model
	opts  heartbeat.Options
}

func newFixture(t *testing.T) *fixture { return newFixtureTurns(t, 0) }

func newFixtureTurns(t *testing.T, maxTurns int) *fixture {
	t.Helper()
	data := t.TempDir()
	ctx := context.Background()
	db, err := sqlitetest.Open(ctx, filepath.Join(data, "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"README.md": "# demo\n"})
	if _, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: repo, DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(workspace.Options{
		Projects: filepath.Join(data, "projects"), Worktrees: filepath.Join(data, "worktrees"),
		Open: func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{data: data, db: db, model: llmtest.NewModel()}
	runner, err := agentrunner.New(agentrunner.Options{
		Model: func(id string) (llm.Model, llm.Info, error) {
			return f.model, llm.Info{ID: id, ContextWindow: 200000}, nil
		},
		MaxTurns: maxTurns,
		OpenDir:  func(dir string) (executor.Executor, error) { return local.New(dir, local.Options{}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.opts = heartbeat.Options{
		Store: db, Workspaces: ws, Runner: runner,
		LockFile: filepath.Join(data, "heartbeat.lock"), Sessions: filepath.Join(data, "sessions"),
		StateFile:    filepath.Join(data, "heartbeat.json"),
		DefaultModel: "llmtest/scripted", MaxDuration: time.Minute, Reap: local.KillMarked,
	}
	return f
}

func (f *fixture) beat(t *testing.T) heartbeat.Report {
	t.Helper()
	h, err := heartbeat.New(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := h.Beat(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestRunner_ResearchThenImplement runs the real agent loop, coding tools
// and ticket tools over two beats against a scripted model: the second beat
// resumes the transcript of the first.
func TestRunner_ResearchThenImplement(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tk, err := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Add feature",
		Criteria: []string{"feature.txt says done"}, State: board.Research, Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	f.model.Push(
		call("c1", "read", map[string]any{"path": "README.md"}),
		call("c2", "ticket_plan", map[string]any{"plan": "Write feature.txt and commit it."}),
		call("c3", "ticket_move", map[string]any{"to": "IN_PROGRESS"}),
	)
	rep := f.beat(t)
	if len(rep.Runs) != 1 || rep.Runs[0].Status != board.RunCompleted || rep.Runs[0].MovedTo != board.InProgress {
		t.Fatalf("beat 1 = %+v", rep.Runs)
	}
	reqs := f.model.Requests()
	if !strings.Contains(reqs[0].System, "# The ticket") || !strings.Contains(reqs[0].System, "Add feature") {
		t.Errorf("system prompt lacks the ticket:\n%s", reqs[0].System)
	}
	names := map[string]bool{}
	for _, s := range reqs[0].Tools {
		names[s.Name] = true
	}
	for _, n := range []string{"read", "bash", "edit", "ticket_plan", "ticket_move", "ticket_ask", "ticket_comment"} {
		if !names[n] {
			t.Errorf("tool %s not offered", n)
		}
	}

	f.model.Push(
		call("c4", "bash", map[string]any{"command": "echo done > feature.txt && git add feature.txt && git commit -q -m 'add feature'"}),
		call("c5", "ticket_move", map[string]any{"to": "VERIFICATION",
			"criteria": []map[string]string{{"criterion": "feature.txt says done", "evidence": "cat feature.txt prints done"}}}),
	)
	rep = f.beat(t)
	if rep.Runs[0].MovedTo != board.Verification || rep.Runs[0].Status != board.RunCompleted {
		t.Fatalf("beat 2 = %+v", rep.Runs)
	}
	if f.model.Remaining() != 0 {
		t.Errorf("%d scripted turns left: the run did not end after ticket_move", f.model.Remaining())
	}
	// The second beat resumed the first beat's conversation.
	reqs = f.model.Requests()
	second := reqs[3]
	if len(second.Messages) < 7 || !strings.Contains(second.Messages[0].Text(), "Research ticket demo#1") {
		t.Errorf("beat 2 did not resume the transcript: %d messages", len(second.Messages))
	}
	runs, _ := f.db.Runs(ctx, tk.Ref())
	if runs[0].InputTokens != 2000 || runs[0].OutputTokens != 100 {
		t.Errorf("run usage = %d in / %d out, want 2000 / 100", runs[0].InputTokens, runs[0].OutputTokens)
	}
	sess, err := session.Layout{Root: f.opts.Sessions}.Transcript(tk.ProjectID, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sess); err != nil {
		t.Errorf("no transcript at %s", sess)
	}
}

// TestRunner_ResearchRunEndsAtTheMove: a research run that moves its
// ticket to IN_PROGRESS ends there, so the implementation is done, and
// recorded, by an implement run; a research run never implements.
func TestRunner_ResearchRunEndsAtTheMove(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tk, err := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Add feature",
		Criteria: []string{"feature.txt says done"}, State: board.Research, Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	f.model.Push(
		call("c1", "ticket_plan", map[string]any{"plan": "Write feature.txt and commit it."}),
		call("c2", "ticket_move", map[string]any{"to": "IN_PROGRESS"}),
		call("c3", "bash", map[string]any{"command": "echo done > feature.txt"}),
		say("Implemented."),
	)
	f.beat(t)
	if f.model.Remaining() != 2 {
		t.Fatalf("the research run went on after the move: %d scripted turns left, want 2", f.model.Remaining())
	}
	f.beat(t)
	runs, err := f.db.Runs(ctx, tk.Ref())
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs = %+v, %v", runs, err)
	}
	// Newest first.
	if runs[1].Task != board.TaskResearch || runs[0].Task != board.TaskImplement {
		t.Errorf("runs are %s then %s, want research then implement", runs[1].Task, runs[0].Task)
	}
	if f.model.Remaining() != 0 {
		t.Errorf("%d scripted turns left: the implement run did not implement", f.model.Remaining())
	}
}

// TestRunner_ResumesAfterKill resumes a transcript whose process died in
// the middle of a tool call: the dangling call gets a synthetic result.
func TestRunner_ResumesAfterKill(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tk, err := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Crashy", State: board.InProgress, Priority: 2}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	path, err := session.Layout{Root: f.opts.Sessions}.Transcript(tk.ProjectID, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.Create(path, "demo", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.AppendMessage(llm.UserText("Implement ticket demo#1"), nil)
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse,
		Content: []llm.Part{llm.ToolCall("k1", "bash", []byte(`{"command":"sleep 100"}`))}}, nil)
	s.Close()
	if _, err := f.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement}); err != nil {
		t.Fatal(err)
	}

	f.model.Push(call("c1", "ticket_comment", map[string]any{"kind": "status", "content": "Re-checked after the crash."}), say("ok"))
	rep := f.beat(t)
	if rep.Interrupted != 1 {
		t.Errorf("Interrupted = %d, want 1", rep.Interrupted)
	}
	msgs := f.model.Requests()[0].Messages
	var repaired bool
	for _, m := range msgs {
		if m.Role == llm.RoleToolResult && m.ToolCallID == "k1" && m.IsError {
			repaired = true
		}
	}
	if !repaired {
		t.Errorf("the dangling tool call has no synthetic result in %+v", msgs)
	}
	cs, _ := f.db.Comments(ctx, tk.Ref())
	if len(cs) != 1 || cs[0].Content != "Re-checked after the crash." {
		t.Errorf("comments = %+v; want exactly the agent's one", cs)
	}
}

func TestRunner_ModelErrorIsRunError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tk, _ := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Limited", State: board.InProgress, Priority: 2}, board.Human)
	f.model.Push(llmtest.Turn{Err: &llm.Error{Kind: llm.KindRateLimit, Provider: "llmtest", Status: 429,
		Message: "rate limited", RetryAfter: time.Hour}})
	rep := f.beat(t)
	if rep.Runs[0].Status != board.RunError {
		t.Fatalf("run = %+v", rep.Runs[0])
	}
	// The provider is paused: the next beat makes no request.
	rep = f.beat(t)
	if n := len(f.model.Requests()); n != 1 || !strings.Contains(rep.Runs[0].Skipped, "paused") {
		t.Errorf("after a rate limit: %d requests, report %+v", n, rep.Runs[0])
	}
	runs, _ := f.db.Runs(ctx, tk.Ref())
	if !strings.Contains(runs[0].Error, "rate limited") {
		t.Errorf("run error = %q", runs[0].Error)
	}
}

// TestRunner_LoopingModelIsCut stops a model that never stops calling
// tools after MaxTurns requests; the run ends as a timeout with a status
// comment, and the next beat resumes.
func TestRunner_LoopingModelIsCut(t *testing.T) {
	t.Parallel()
	f := newFixtureTurns(t, 3)
	ctx := context.Background()
	tk, _ := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Loop", State: board.InProgress, Priority: 2}, board.Human)
	for i := range 5 {
		f.model.Push(call(fmt.Sprintf("l%d", i), "ls", map[string]any{}))
	}
	rep := f.beat(t)
	if rep.Runs[0].Status != board.RunTimeout || !strings.Contains(rep.Runs[0].Error, "maximum number of turns") {
		t.Fatalf("run = %+v", rep.Runs[0])
	}
	if n := len(f.model.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	cs, _ := f.db.Comments(ctx, tk.Ref())
	if len(cs) != 1 || !strings.Contains(cs[0].Content, "maximum number of turns") {
		t.Errorf("comments = %+v", cs)
	}
}

func TestRunner_RejectedKeyPausesProvider(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tk, _ := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Keyless", State: board.InProgress, Priority: 2}, board.Human)
	f.model.Push(llmtest.Turn{Err: &llm.Error{Kind: llm.KindAuth, Provider: "llmtest", Status: 401, Message: "invalid x-api-key"}})
	f.beat(t)
	rep := f.beat(t)
	if n := len(f.model.Requests()); n != 1 || !strings.Contains(rep.Runs[0].Skipped, "paused") {
		t.Errorf("after a rejected key: %d requests, report %+v", n, rep.Runs[0])
	}
	runs, _ := f.db.Runs(ctx, tk.Ref())
	cs, _ := f.db.Comments(ctx, tk.Ref())
	if len(runs) != 1 || runs[0].Status != board.RunError || len(cs) != 1 || !strings.Contains(cs[0].Content, "invalid x-api-key") {
		t.Errorf("runs %+v, comments %+v", runs, cs)
	}
}

// TestRunner_BudgetStopsLoopingModel gives a ticket a budget of two turns:
// the loop stops within one turn of crossing it, and the ticket asks a
// person to raise the budget.
func TestRunner_BudgetStopsLoopingModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	budget := 0.0025
	if _, err := f.db.UpdateProject(ctx, "demo", board.ProjectPatch{BudgetUSD: &budget}); err != nil {
		t.Fatal(err)
	}
	tk, _ := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Loop", State: board.InProgress, Priority: 2}, board.Human)
	for i := range 10 {
		f.model.Push(call(fmt.Sprintf("b%d", i), "ls", map[string]any{})) // $0.001 each
	}
	rep := f.beat(t)
	if rep.Runs[0].Status != board.RunBudgetExceeded {
		t.Fatalf("run = %+v", rep.Runs[0])
	}
	if n := len(f.model.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (the third crosses $0.0025)", n)
	}
	got, _ := f.db.Ticket(ctx, tk.Ref())
	cs, _ := f.db.Comments(ctx, tk.Ref())
	if got.SubState != board.SubBlocked || len(cs) != 1 || !strings.Contains(cs[0].Content, "$0.0030 spent of $0.0025") {
		t.Errorf("sub-state %q, comments %+v", got.SubState, cs)
	}
}

// TestRunner_TokenBudgetStopsLoopingModel gives runs a cap of a few
// thousand tokens in config: a model that never stops calling tools is
// stopped within one turn of crossing it, the run ends budget_exceeded
// with the tokens recorded, and a status comment says how to raise it.
func TestRunner_TokenBudgetStopsLoopingModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.opts.Limits = heartbeat.Limits{RunTokens: 2500}
	ctx := context.Background()
	tk, _ := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Loop", State: board.InProgress, Priority: 2}, board.Human)
	for i := range 10 {
		f.model.Push(call(fmt.Sprintf("t%d", i), "ls", map[string]any{})) // 1050 tokens each
	}
	rep := f.beat(t)
	if rep.Runs[0].Status != board.RunBudgetExceeded {
		t.Fatalf("run = %+v", rep.Runs[0])
	}
	if n := len(f.model.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (the third crosses 2500 tokens)", n)
	}
	runs, _ := f.db.Runs(ctx, tk.Ref())
	if runs[0].InputTokens != 3000 || runs[0].OutputTokens != 150 {
		t.Errorf("run record = %+v, want 3000 in and 150 out", runs[0])
	}
	got, _ := f.db.Ticket(ctx, tk.Ref())
	cs, _ := f.db.Comments(ctx, tk.Ref())
	if got.SubState != "" || len(cs) != 1 || !strings.Contains(cs[0].Content, "this run's budget is used up (3150 tokens spent of 2500 tokens)") ||
		!strings.Contains(cs[0].Content, "bonsai config set budget.runTokens <N>") {
		t.Errorf("sub-state %q, comments %+v", got.SubState, cs)
	}
}

// TestRunner_UserSkills offers the user's skills directory to a ticket
// agent beside the repository's: the system prompt lists the skill, and
// the read tool reads it by the path shown, outside the worktree.
func TestRunner_UserSkills(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	skills := filepath.Join(f.data, "skills")
	os.MkdirAll(filepath.Join(skills, "deploy"), 0o755)
	os.WriteFile(filepath.Join(skills, "deploy", "SKILL.md"),
		[]byte("---\nname: deploy\ndescription: How we deploy services\n---\nRun make deploy-canary first.\n"), 0o644)
	f.opts.Skills = skills
	ctx := context.Background()
	tk, _ := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Deploy", State: board.InProgress, Priority: 2}, board.Human)
	f.model.Push(
		call("r1", "read", map[string]any{"path": "~/.bonsai/skills/deploy/SKILL.md"}),
		call("r2", "read", map[string]any{"path": "~/.bonsai/skills/../bonsai.db"}),
		say("Read the deploy skill."),
	)
	rep := f.beat(t)
	if rep.Runs[0].Status != board.RunCompleted {
		t.Fatalf("run = %+v (ticket %s)", rep.Runs[0], tk.Ref())
	}
	reqs := f.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if !strings.Contains(reqs[0].System, "deploy: How we deploy services (~/.bonsai/skills/deploy/SKILL.md)") {
		t.Errorf("system prompt lacks the user's skill:\n%s", reqs[0].System)
	}
	results := toolResults(reqs[2].Messages)
	if len(results) != 2 {
		t.Fatalf("tool results = %+v", results)
	}
	if results[0].IsError || !strings.Contains(results[0].Text(), "make deploy-canary") {
		t.Errorf("reading the skill = %+v", results[0])
	}
	if !results[1].IsError {
		t.Errorf("reading outside the skills directory succeeded: %+v", results[1])
	}
}

// toolResults returns the tool result messages of a conversation.
func toolResults(ms []llm.Message) []llm.Message {
	var out []llm.Message
	for _, m := range ms {
		if m.Role == llm.RoleToolResult {
			out = append(out, m)
		}
	}
	return out
}

// TestRunner_UsageIncludesCompaction records a run whose context is
// compacted: the summary request's cost is part of the run's cost, which
// comes from the loop's result rather than from the turns.
func TestRunner_UsageIncludesCompaction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	runner, err := agentrunner.New(agentrunner.Options{
		Model: func(id string) (llm.Model, llm.Info, error) {
			// Compaction starts past 20000-16384 tokens and keeps 5000.
			return f.model, llm.Info{ID: id, ContextWindow: 20000}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.opts.Runner = runner
	ctx := context.Background()
	tk, _ := f.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Big", State: board.InProgress, Priority: 2}, board.Human)
	long := call("c1", "ls", map[string]any{})
	long.Message.Content = append([]llm.Part{llm.Text(strings.Repeat("thinking out loud ", 2000))}, long.Message.Content...)
	big := call("c2", "ls", map[string]any{})
	big.Message.Usage = &llm.Usage{Input: 4000, Output: 50, Cost: 0.001}
	summary := say("Goal: look around. Progress: listed the root twice.")
	summary.Message.Usage = &llm.Usage{Input: 3000, Output: 200, Cost: 0.05}
	f.model.Push(long, big, summary, say("Done."))
	rep := f.beat(t)
	if rep.Runs[0].Status != board.RunCompleted {
		t.Fatalf("run = %+v", rep.Runs[0])
	}
	reqs := f.model.Requests()
	if len(reqs) != 4 || len(reqs[2].Tools) != 0 || reqs[2].System == reqs[0].System {
		t.Fatalf("%d requests; the third should be the summary", len(reqs))
	}
	runs, _ := f.db.Runs(ctx, tk.Ref())
	if got := runs[0].CostUSD; got < 0.0529 || got > 0.0531 {
		t.Errorf("run cost = %v, want 0.053 (three turns and the summary)", got)
	}
	if runs[0].InputTokens != 1000+4000+3000+1000 {
		t.Errorf("run input tokens = %d, want 9000", runs[0].InputTokens)
	}
}
