package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
)

// history fills a session with n read turns whose results are size bytes.
func history(t *testing.T, s *session.File, n, size int) {
	t.Helper()
	add := func(m llm.Message) {
		if _, err := s.AppendMessage(m, nil); err != nil {
			t.Fatal(err)
		}
	}
	add(llm.UserText("Fix the parser."))
	for i := range n {
		id := string(rune('a' + i))
		path := `{"path":"f` + id + `.go"}`
		add(asst("", call(id, "read", path)))
		add(llm.ToolResultText(id, "read", strings.Repeat("line\n", size/5), false))
	}
	add(asst("", call("w", "edit", `{"path":"parser.go"}`)))
	add(llm.ToolResultText("w", "edit", "edited", false))
	add(asst("I fixed it."))
}

const summary = "## Goal\nFix the parser.\n## Progress\nRead files."

func TestAgent_OverflowCompactsAndRetries(t *testing.T) {
	t.Parallel()
	s := session.New("p", fixedOptions())
	history(t, s, 6, 2000)
	model := llmtest.NewModel(
		llmtest.Turn{Err: &llm.Error{Kind: llm.KindContextOverflow, Status: 400, Message: "prompt is too long: 210000 tokens > 200000 maximum"}},
		turn(summary),
		turn("Continuing."),
	)
	a, rec := newAgent(t, model, agent.Config{Session: s, KeepRecent: 1000})
	res := a.Prompt(context.Background(), llm.UserText("next?"))
	if res.Reason != agent.EndStop || res.Text() != "Continuing." {
		t.Fatalf("result = %+v\n%s", res, rec.trace())
	}
	reqs := model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want overflow, summary, retry", len(reqs))
	}
	if res.Usage.Input != 200 || res.Usage.Cost != 0.02 {
		t.Errorf("run usage = %+v, want the retry's and the summary's", res.Usage)
	}
	sumReq := reqs[1].Messages[0].Text()
	if !strings.Contains(sumReq, "Fix the parser.") || !strings.Contains(sumReq, "## Next steps") || len(reqs[1].Tools) != 0 {
		t.Errorf("summary request = %.300q", sumReq)
	}
	retry := reqs[2].Messages
	if !strings.Contains(retry[0].Text(), summary) || !strings.Contains(retry[0].Text(), "<read-files>\nfa.go") {
		t.Errorf("retry starts with %q", retry[0].Text())
	}
	if retry[1].Role == llm.RoleToolResult {
		t.Error("the kept part starts with a tool result")
	}
	if last := retry[len(retry)-1]; last.Text() != "next?" {
		t.Errorf("retry ends with %q", last.Text())
	}
	if len(retry) >= len(reqs[0].Messages) {
		t.Errorf("retry has %d messages, the overflowing request %d", len(retry), len(reqs[0].Messages))
	}
	c := s.Context().Compaction
	if c == nil || c.TokensBefore == 0 || strings.Join(c.ReadFiles, ",") != "fa.go,fb.go,fc.go,fd.go" {
		t.Fatalf("compaction = %+v", c)
	}
	if !strings.Contains(rec.trace(), "compaction_start\ncompaction_end\nmessage_start assistant") {
		t.Errorf("events:\n%s", rec.trace())
	}
	// The failed attempt is neither shown nor recorded.
	for _, e := range s.Entries() {
		if e.Message != nil && e.Message.StopReason == llm.StopError {
			t.Error("the overflow error was recorded")
		}
	}
}

func TestAgent_OverflowTwiceFails(t *testing.T) {
	t.Parallel()
	s := session.New("p", fixedOptions())
	history(t, s, 6, 2000)
	overflow := llmtest.Turn{Err: &llm.Error{Kind: llm.KindContextOverflow, Message: "prompt is too long"}}
	model := llmtest.NewModel(overflow, turn(summary), overflow, turn("never"))
	a, _ := newAgent(t, model, agent.Config{Session: s, KeepRecent: 1000})
	res := a.Prompt(context.Background(), llm.UserText("next?"))
	if res.Reason != agent.EndError || llm.KindOf(res.Err) != llm.KindContextOverflow || model.Remaining() != 1 {
		t.Fatalf("result = %+v, remaining %d", res, model.Remaining())
	}
}

func TestAgent_CompactsAtThreshold(t *testing.T) {
	t.Parallel()
	s := session.New("p", fixedOptions())
	history(t, s, 6, 2000)
	// The last response reported a context just over window - reserve.
	last := asst("Earlier answer.")
	last.Usage = &llm.Usage{Input: 4000, Output: 100}
	if _, err := s.AppendMessage(llm.UserText("more"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(last, nil); err != nil {
		t.Fatal(err)
	}
	model := llmtest.NewModel(turn(summary), turn("After compaction."))
	info := llm.Info{ID: "llmtest/small", ContextWindow: agent.DefaultCompactReserve + 4000, MaxOutputTokens: 4096}
	a, _ := newAgent(t, model, agent.Config{Session: s, Info: info, KeepRecent: 1000})
	res := a.Prompt(context.Background(), llm.UserText("go on"))
	if res.Reason != agent.EndStop || res.Text() != "After compaction." {
		t.Fatalf("result = %+v", res)
	}
	if reqs := model.Requests(); len(reqs) != 2 || !strings.Contains(reqs[1].Messages[0].Text(), summary) {
		t.Fatalf("requests = %d", len(reqs))
	}
	// Compacting again merges the previous summary.
	model.Push(turn("## Goal\nMerged."))
	if err := a.Compact(context.Background()); err != nil && err != agent.ErrNothingToCompact {
		t.Fatal(err)
	}
}

func TestAgent_CompactMergesPreviousSummary(t *testing.T) {
	t.Parallel()
	s := session.New("p", fixedOptions())
	history(t, s, 4, 2000)
	model := llmtest.NewModel(turn("## Goal\nFirst."), turn("## Goal\nSecond."))
	a, _ := newAgent(t, model, agent.Config{Session: s, KeepRecent: 300})
	if err := a.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	history(t, s, 4, 2000)
	if err := a.SetSession(s); err != nil {
		t.Fatal(err)
	}
	if err := a.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	req := model.Requests()[1].Messages[0].Text()
	if !strings.Contains(req, "<previous-summary>\n## Goal\nFirst.") {
		t.Errorf("second summary request does not merge the first: %.400q", req)
	}
	if strings.Count(req, "First.") != 1 {
		t.Error("the previous summary also appears in the conversation")
	}
	c := s.Context()
	if !strings.Contains(c.Messages[0].Text(), "Second.") || c.Compaction.ReadFiles[0] != "fa.go" ||
		strings.Join(c.Compaction.ModifiedFiles, ",") != "parser.go" {
		t.Errorf("context after second compaction = %.200q, %+v", c.Messages[0].Text(), c.Compaction)
	}
}

func TestAgent_CompactNothing(t *testing.T) {
	t.Parallel()
	a, _ := newAgent(t, llmtest.NewModel(), agent.Config{})
	if err := a.Compact(context.Background()); err == nil || !strings.Contains(err.Error(), "nothing to compact") {
		t.Errorf("Compact on an empty session = %v", err)
	}
}
