package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/tool"
)

func stopTurn(reason llm.StopReason, text string, calls ...llm.Part) llmtest.Turn {
	t := turn(text, calls...)
	t.Message.StopReason = reason
	return t
}

// A refusal ends the run as an error carrying the provider's text; the
// content filter too. Neither runs tools.
func TestAgent_RefusalAndContentFilterEndTheRun(t *testing.T) {
	for _, tt := range []struct {
		reason llm.StopReason
		want   string
	}{
		{llm.StopRefusal, "the model refused to answer: I can't help with that."},
		{llm.StopContentFilter, "the provider's content filter stopped the answer"},
	} {
		model := llmtest.NewModel(stopTurn(tt.reason, "I can't help with that."))
		a, _ := newAgent(t, model, agent.Config{}, echo("write", false))
		res := a.Prompt(context.Background(), llm.UserText("do it"))
		var se *agent.StopError
		if res.Reason != agent.EndError || !errors.As(res.Err, &se) || se.Reason != tt.reason || !strings.HasPrefix(res.Detail, tt.want) {
			t.Errorf("%s: result = %+v", tt.reason, res)
		}
	}
}

// An answer cut at the output limit with a pending tool call: the call does
// not run (its arguments may be cut), the model is asked once to continue,
// and a second cut ends the run.
func TestAgent_OutputLimitContinuesOnce(t *testing.T) {
	write := echo("write", false)
	ran := 0
	write.run = func(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
		ran++
		return tool.Text("written"), nil
	}
	model := llmtest.NewModel(
		stopTurn(llm.StopLength, "Writing.", call("c1", "write", `{"path":"a.txt"`)),
		stopTurn(llm.StopLength, "Writing again.", call("c2", "write", `{"path":"a.txt"`)),
	)
	a, rec := newAgent(t, model, agent.Config{}, write)
	res := a.Prompt(context.Background(), llm.UserText("write a.txt"))
	var se *agent.StopError
	if res.Reason != agent.EndError || !errors.As(res.Err, &se) || se.Reason != llm.StopLength || res.Turns != 2 {
		t.Fatalf("result = %+v", res)
	}
	if ran != 0 {
		t.Errorf("a cut tool call ran %d times", ran)
	}
	reqs := model.Requests()
	second := reqs[1].Messages
	last := second[len(second)-1]
	if len(reqs) != 2 || last.Role != llm.RoleUser || !strings.Contains(last.Text(), "reached the output token limit") {
		t.Fatalf("second request ends with %+v", last)
	}
	if r := second[len(second)-2]; r.Role != llm.RoleToolResult || !r.IsError || !strings.Contains(r.Text(), "Not run") {
		t.Errorf("the cut call's result = %+v", r)
	}
	if !strings.Contains(rec.trace(), "tool_execution_end write c1") {
		t.Errorf("events:\n%s", rec.trace())
	}
}

// After one cut answer the model continues and the run ends normally.
func TestAgent_OutputLimitThenDone(t *testing.T) {
	model := llmtest.NewModel(stopTurn(llm.StopLength, "The first half"), turn("and the rest."))
	a, _ := newAgent(t, model, agent.Config{})
	res := a.Prompt(context.Background(), llm.UserText("explain"))
	if res.Reason != agent.EndStop || res.Text() != "and the rest." || res.Turns != 2 {
		t.Errorf("result = %+v", res)
	}
}
