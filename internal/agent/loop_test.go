package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

func TestAgent_EventOrder(t *testing.T) {
	t.Parallel()
	model := llmtest.NewModel(
		turn("Let me look.", call("c1", "ls", `{"path":"."}`)),
		turn("Done."),
	)
	ls := echo("ls", true)
	ls.run = func(_ context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
		update(tool.Text("partial"))
		update(tool.Text("partial 2"))
		return tool.Text("a.go"), nil
	}
	a, rec := newAgent(t, model, agent.Config{}, ls)
	res := a.Prompt(context.Background(), llm.UserText("list"))
	if res.Reason != agent.EndStop || res.Text() != "Done." || res.Turns != 2 {
		t.Fatalf("result = %+v", res)
	}
	want := `agent_start
turn_start 1
message_start user
message_end user "list"
message_start assistant
message_update…
message_end assistant "Let me look." [tool_use]
tool_execution_start ls c1
tool_execution_update…
tool_execution_end ls c1
message_start toolResult
message_end toolResult "a.go"
turn_end 1
turn_start 2
message_start assistant
message_update…
message_end assistant "Done." [stop]
turn_end 2
agent_end stop`
	if got := rec.trace(); got != want {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	if res.Usage.Input != 200 || res.Usage.Cost != 0.02 {
		t.Errorf("usage = %+v", res.Usage)
	}
	reqs := model.Requests()
	if got := toolTexts(reqs[1].Messages); len(got) != 1 || got[0] != "c1: a.go" {
		t.Errorf("second request tool results = %q", got)
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "ls" {
		t.Errorf("tools sent = %+v", reqs[0].Tools)
	}
}

func TestAgent_ErrorsAsContent(t *testing.T) {
	t.Parallel()
	failing := &fakeTool{name: "fail", run: func(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
		return tool.Result{}, errors.New("disk on fire")
	}}
	panicking := &fakeTool{name: "boom", run: func(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
		panic("nil map")
	}}
	model := llmtest.NewModel(
		turn("", call("c1", "nope", `{}`),
			call("c2", "read", `{"path": 3}`),
			call("c3", "read", `{"path":"a","extra":1}`),
			llm.Part{Type: llm.PartToolCall, ID: "c4", Name: "read", Arguments: llm.ToolArguments([]byte(`{"path": "a`))},
			call("c5", "fail", `{"path":"x"}`),
			call("c6", "boom", `{"path":"x"}`),
			call("c7", "read", `{"path":"ok"}`)),
		turn("I see."),
	)
	a, _ := newAgent(t, model, agent.Config{}, echo("read", true), failing, panicking)
	res := a.Prompt(context.Background(), llm.UserText("go"))
	if res.Reason != agent.EndStop {
		t.Fatalf("result = %+v", res)
	}
	got := toolTexts(model.Requests()[1].Messages)
	wants := []string{
		`c1: Tool "nope" does not exist. Available tools: boom, fail, read.`,
		`c2: Invalid arguments for read: path: must be a string, got a number (3)`,
		`c3: Invalid arguments for read: unknown argument "extra" (the arguments are path)`,
		`c4: Invalid arguments for read: not a JSON object: {"path": "a`,
		`c5: Tool fail failed: disk on fire`,
		`c6: Tool boom failed: internal error: nil map`,
		`c7: read {"path":"ok"}`,
	}
	if len(got) != len(wants) {
		t.Fatalf("results = %q", got)
	}
	for i := range wants {
		if got[i] != wants[i] {
			t.Errorf("result %d = %q\nwant %q", i, got[i], wants[i])
		}
	}
	for i, m := range model.Requests()[1].Messages[2:] {
		if m.IsError != (i < 6) {
			t.Errorf("result %d isError = %v", i, m.IsError)
		}
	}
}

func TestAgent_SteeringSkipsRemainingTools(t *testing.T) {
	t.Parallel()
	model := llmtest.NewModel(
		turn("", call("c1", "bash", `{"path":"1"}`), call("c2", "bash", `{"path":"2"}`), call("c3", "bash", `{"path":"3"}`)),
		turn("Changed course."),
	)
	var a *agent.Agent
	ran := 0
	bash := &fakeTool{name: "bash", run: func(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
		ran++
		a.Steer(llm.UserText("stop, do X instead"))
		return tool.Text("ran"), nil
	}}
	a, rec := newAgent(t, model, agent.Config{}, bash)
	res := a.Prompt(context.Background(), llm.UserText("go"))
	if res.Reason != agent.EndStop || ran != 1 {
		t.Fatalf("result = %+v, ran %d", res, ran)
	}
	msgs := model.Requests()[1].Messages
	if got := toolTexts(msgs); strings.Join(got, "|") != "c1: ran|c2: Skipped due to queued user message.|c3: Skipped due to queued user message." {
		t.Errorf("results = %q", got)
	}
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleUser || last.Text() != "stop, do X instead" {
		t.Errorf("last message = %+v, want the steering message", last)
	}
	if !strings.Contains(rec.trace(), "turn_end 1\nturn_start 2\nmessage_start user\nmessage_end user \"stop, do X instead\"") {
		t.Errorf("steering not delivered at the start of turn 2:\n%s", rec.trace())
	}
}

func TestAgent_FollowUpWaitsForStop(t *testing.T) {
	t.Parallel()
	model := llmtest.NewModel(
		turn("", call("c1", "ls", `{"path":"."}`)),
		turn("First answer."),
		turn("Second answer."),
	)
	var a *agent.Agent
	ls := echo("ls", true)
	inner := ls.run
	ls.run = func(ctx context.Context, args json.RawMessage, u func(tool.Result)) (tool.Result, error) {
		a.FollowUp(llm.UserText("and then?"))
		return inner(ctx, args, u)
	}
	a, _ = newAgent(t, model, agent.Config{}, ls)
	res := a.Prompt(context.Background(), llm.UserText("go"))
	if res.Reason != agent.EndStop || res.Text() != "Second answer." || res.Turns != 3 {
		t.Fatalf("result = %+v", res)
	}
	reqs := model.Requests()
	// The follow-up is not delivered while tools still run (turn 2).
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; last.Role != llm.RoleToolResult {
		t.Errorf("turn 2 ends with %s, want the tool result", last.Role)
	}
	if last := reqs[2].Messages[len(reqs[2].Messages)-1]; last.Text() != "and then?" {
		t.Errorf("turn 3 ends with %q, want the follow-up", last.Text())
	}
}

func TestAgent_AbortMidStream(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := llmtest.NewModel(llmtest.Turn{Message: asst("Thinking about it at length"), Wait: hold})
	ctx, cancel := context.WithCancel(context.Background())
	a, rec := newAgentWith(t, model, agent.Config{}, func(e agent.Event) {
		if e.Type == agent.EventMessageUpdate && e.Delta.Type == llm.EventTextDelta {
			cancel() // abort once the answer is streaming
		}
	})
	res := a.Prompt(ctx, llm.UserText("go"))
	if res.Reason != agent.EndAborted || res.Final == nil || res.Final.StopReason != llm.StopAborted {
		t.Fatalf("result = %+v", res)
	}
	if !strings.HasSuffix(rec.trace(), "[aborted]\nturn_end 1\nagent_end aborted") {
		t.Errorf("events:\n%s", rec.trace())
	}
	// The partial message is in the session but is not resent.
	ents := a.Session().Entries()
	if last := ents[len(ents)-1].Message; last.StopReason != llm.StopAborted || !strings.HasPrefix(last.Text(), "Thinking") {
		t.Errorf("last entry = %+v", last)
	}
	model.Push(turn("Fresh start."))
	res = a.Prompt(context.Background(), llm.UserText("again"))
	if res.Reason != agent.EndStop {
		t.Fatalf("second run = %+v", res)
	}
	msgs := model.Requests()[1].Messages
	if len(msgs) != 2 || msgs[0].Text() != "go" || msgs[1].Text() != "again" {
		t.Errorf("second request messages = %+v", msgs)
	}
}

func TestAgent_AbortMidTool(t *testing.T) {
	t.Parallel()
	model := llmtest.NewModel(turn("", call("c1", "bash", `{"path":"sleep"}`), call("c2", "bash", `{"path":"never"}`)))
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	bash := &fakeTool{name: "bash", run: func(ctx context.Context, _ json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
		close(started)
		<-ctx.Done() // a command killed through its context
		return tool.Error("Command aborted"), nil
	}}
	a, rec := newAgent(t, model, agent.Config{}, bash)
	go func() { <-started; cancel() }()
	res := a.Prompt(ctx, llm.UserText("go"))
	if res.Reason != agent.EndAborted {
		t.Fatalf("result = %+v", res)
	}
	var results []string
	for _, e := range a.Session().Entries() {
		if e.Message != nil && e.Message.Role == llm.RoleToolResult {
			results = append(results, e.Message.ToolCallID+": "+e.Message.Text())
		}
	}
	if strings.Join(results, "|") != "c1: Command aborted|c2: Skipped: the run was aborted." {
		t.Errorf("recorded results = %q", results)
	}
	if !strings.HasSuffix(rec.trace(), "turn_end 1\nagent_end aborted") {
		t.Errorf("events:\n%s", rec.trace())
	}
}

func TestAgent_NoProgressBreaker(t *testing.T) {
	t.Parallel()
	model := llmtest.NewModel(
		turn("", call("c1", "read", `{"path":"missing.go"}`)),
		turn("", call("c2", "read", `{"path":"missing.go"}`)),
		turn("", call("c3", "read", `{"path":"missing.go"}`)),
		turn("never reached"),
	)
	read := &fakeTool{name: "read", run: func(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
		return tool.Error("missing.go: no such file"), nil
	}}
	a, _ := newAgent(t, model, agent.Config{}, read)
	res := a.Prompt(context.Background(), llm.UserText("go"))
	if res.Reason != agent.EndNoProgress || res.Turns != 3 || model.Remaining() != 1 {
		t.Fatalf("result = %+v, remaining %d", res, model.Remaining())
	}
	if !strings.Contains(res.Detail, `read {"path":"missing.go"} was made 3 times in a row`) || !strings.Contains(res.Detail, "no such file") {
		t.Errorf("detail = %q", res.Detail)
	}
}

func TestAgent_BreakerResetsOnSuccess(t *testing.T) {
	t.Parallel()
	model := llmtest.NewModel(
		turn("", call("c1", "read", `{"path":"a"}`)),
		turn("", call("c2", "read", `{"path":"a"}`)),
		turn("", call("c3", "read", `{"path":"ok"}`)),
		turn("", call("c4", "read", `{"path":"a"}`)),
		turn("done"),
	)
	read := &fakeTool{name: "read", run: func(_ context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
		if strings.Contains(string(args), "ok") {
			return tool.Text("fine"), nil
		}
		return tool.Error("no"), nil
	}}
	a, _ := newAgent(t, model, agent.Config{}, read)
	if res := a.Prompt(context.Background(), llm.UserText("go")); res.Reason != agent.EndStop {
		t.Fatalf("result = %+v", res)
	}
}

func TestAgent_MaxTurnsAndBudget(t *testing.T) {
	t.Parallel()
	loop := func() *llmtest.Model {
		var turns []llmtest.Turn
		for range 5 {
			turns = append(turns, turn("", call("c", "ls", `{"path":"."}`)))
		}
		return llmtest.NewModel(turns...)
	}
	t.Run("max turns", func(t *testing.T) {
		a, _ := newAgent(t, loop(), agent.Config{MaxTurns: 2}, echo("ls", true))
		if res := a.Prompt(context.Background(), llm.UserText("go")); res.Reason != agent.EndMaxTurns || res.Turns != 2 {
			t.Fatalf("result = %+v", res)
		}
	})
	t.Run("budget", func(t *testing.T) {
		a, _ := newAgent(t, loop(), agent.Config{Budget: 0.03}, echo("ls", true))
		if res := a.Prompt(context.Background(), llm.UserText("go")); res.Reason != agent.EndBudget || res.Turns != 3 {
			t.Fatalf("result = %+v", res)
		}
	})
	t.Run("tokens", func(t *testing.T) {
		a, _ := newAgent(t, loop(), agent.Config{TokenBudget: 200}, echo("ls", true))
		if res := a.Prompt(context.Background(), llm.UserText("go")); res.Reason != agent.EndBudget || res.Turns != 2 {
			t.Fatalf("result = %+v", res)
		}
	})
}

func TestAgent_Deadline(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := llmtest.NewModel(llmtest.Turn{Message: asst("slow"), Wait: hold})
	a, _ := newAgent(t, model, agent.Config{Deadline: time.Now().Add(50 * time.Millisecond)})
	res := a.Prompt(context.Background(), llm.UserText("go"))
	if res.Reason != agent.EndTimeout {
		t.Fatalf("result = %+v", res)
	}
}

func TestAgent_ParallelReadOnly(t *testing.T) {
	t.Parallel()
	// Each read-only call waits until both have started: this only
	// finishes if they run at the same time.
	var wg sync.WaitGroup
	wg.Add(2)
	both := make(chan struct{})
	go func() { wg.Wait(); close(both) }()
	slow := func(name string, delay time.Duration) *fakeTool {
		return &fakeTool{name: name, readOnly: true, run: func(ctx context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
			wg.Done()
			select {
			case <-both:
			case <-time.After(5 * time.Second):
				return tool.Error("ran alone"), nil
			}
			time.Sleep(delay)
			return tool.Text(name), nil
		}}
	}
	model := llmtest.NewModel(
		turn("", call("c1", "grep", `{"path":"a"}`), call("c2", "find", `{"path":"b"}`), call("c3", "write", `{"path":"c"}`)),
		turn("ok"),
	)
	a, rec := newAgent(t, model, agent.Config{}, slow("grep", 30*time.Millisecond), slow("find", 0), echo("write", false))
	if res := a.Prompt(context.Background(), llm.UserText("go")); res.Reason != agent.EndStop {
		t.Fatalf("result = %+v", res)
	}
	if got := strings.Join(toolTexts(model.Requests()[1].Messages), "|"); got != `c1: grep|c2: find|c3: write {"path":"c"}` {
		t.Errorf("results = %q", got)
	}
	if !strings.Contains(rec.trace(), "tool_execution_start grep c1\ntool_execution_start find c2\ntool_execution_end grep c1\nmessage_start toolResult\nmessage_end toolResult \"grep\"\ntool_execution_end find c2") {
		t.Errorf("events:\n%s", rec.trace())
	}
}

func TestAgent_ModelErrorEndsRun(t *testing.T) {
	t.Parallel()
	model := llmtest.NewModel(llmtest.Turn{Err: &llm.Error{Kind: llm.KindAuth, Status: 401, Message: "invalid x-api-key"}})
	a, rec := newAgent(t, model, agent.Config{})
	res := a.Prompt(context.Background(), llm.UserText("go"))
	if res.Reason != agent.EndError || !strings.Contains(res.Detail, "invalid x-api-key") {
		t.Fatalf("result = %+v", res)
	}
	if !strings.Contains(rec.trace(), "message_start assistant\nmessage_end assistant [error]\nturn_end 1\nagent_end error") {
		t.Errorf("events:\n%s", rec.trace())
	}
}

func TestAgent_Busy(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := llmtest.NewModel(llmtest.Turn{Message: asst("x"), Wait: hold})
	a, _ := newAgent(t, model, agent.Config{})
	done := make(chan agent.Result)
	go func() { done <- a.Prompt(context.Background(), llm.UserText("go")) }()
	for !a.Running() {
		time.Sleep(time.Millisecond)
	}
	if res := a.Prompt(context.Background(), llm.UserText("again")); !errors.Is(res.Err, agent.ErrBusy) {
		t.Errorf("second prompt = %+v", res)
	}
	close(hold)
	if res := <-done; res.Reason != agent.EndStop {
		t.Errorf("first prompt = %+v", res)
	}
}

func TestAgent_ResumeWithoutMessage(t *testing.T) {
	t.Parallel()
	model := llmtest.NewModel(turn("Picked up where we left off."))
	s := session.New("p", fixedOptions())
	a, _ := newAgent(t, model, agent.Config{Session: s})
	if res := a.Prompt(context.Background()); !errors.Is(res.Err, agent.ErrNothingToSend) || model.Remaining() != 1 {
		t.Fatalf("empty prompt on an empty session = %+v", res)
	}
	// A session that died before the answer: the user message is unanswered.
	if _, err := s.AppendMessage(llm.UserText("continue the refactor"), nil); err != nil {
		t.Fatal(err)
	}
	a, _ = newAgent(t, model, agent.Config{Session: s})
	if res := a.Prompt(context.Background()); res.Reason != agent.EndStop || res.Text() != "Picked up where we left off." {
		t.Fatalf("resume = %+v", res)
	}
}

func TestAgent_SetModel(t *testing.T) {
	t.Parallel()
	first := llmtest.NewModel(turn("From the first."))
	second := llmtest.NewModel(turn("From the second."))
	s := session.New("p", fixedOptions())
	a, _ := newAgent(t, first, agent.Config{Session: s})
	a.Prompt(context.Background(), llm.UserText("one"))
	info := llm.Info{ID: "llmtest/second", ContextWindow: 1000}
	if err := a.SetModel(second, info, llm.ThinkingHigh); err != nil {
		t.Fatal(err)
	}
	res := a.Prompt(context.Background(), llm.UserText("two"))
	if res.Text() != "From the second." || a.Model().ID != "llmtest/second" || a.Thinking() != llm.ThinkingHigh {
		t.Fatalf("result %q, model %q %q", res.Text(), a.Model().ID, a.Thinking())
	}
	req := second.Requests()[0]
	if req.Thinking != llm.ThinkingHigh || len(req.Messages) != 3 || len(a.Messages()) != 4 {
		t.Errorf("request thinking %q with %d messages; agent has %d", req.Thinking, len(req.Messages), len(a.Messages()))
	}
	if c := s.Context(); c.Model != "llmtest/second" || c.Thinking != llm.ThinkingHigh {
		t.Errorf("session model = %q %q", c.Model, c.Thinking)
	}
}
