package llmtest

import (
	"context"
	"errors"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestModel_PlaysTurnsAndRecordsRequests(t *testing.T) {
	call := llm.Message{Content: []llm.Part{llm.Text("Reading."), llm.ToolCall("c1", "read", []byte(`{"path":"a.go"}`))}}
	m := NewModel(Turn{Message: call}, Turn{Message: llm.Message{Content: []llm.Part{llm.Text("Done.")}}})
	ctx := context.Background()

	msg, err := llm.Collect(m.Stream(ctx, llm.Request{System: "s", Messages: []llm.Message{llm.UserText("go")}}))
	if err != nil || msg.StopReason != llm.StopToolUse || len(msg.ToolCalls()) != 1 || msg.Text() != "Reading." {
		t.Fatalf("turn 1 = %+v, %v", msg, err)
	}
	msg, err = llm.Collect(m.Stream(ctx, llm.Request{Messages: []llm.Message{llm.UserText("go"), msg}}))
	if err != nil || msg.StopReason != llm.StopEnd || msg.Text() != "Done." {
		t.Fatalf("turn 2 = %+v, %v", msg, err)
	}
	_, err = llm.Collect(m.Stream(ctx, llm.Request{}))
	if llm.KindOf(err) != llm.KindInvalidRequest {
		t.Errorf("exhausted script err = %v", err)
	}
	reqs := m.Requests()
	if len(reqs) != 3 || reqs[0].System != "s" || len(reqs[1].Messages) != 2 || m.Remaining() != 0 {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestModel_EventsMatchFinalMessage(t *testing.T) {
	want := llm.Message{Content: []llm.Part{
		{Type: llm.PartThinking, Thinking: "think ü long enough to split", Signature: "sig"},
		llm.Text("héllo wörld, this is split into chunks"),
		llm.ToolCall("c1", "bash", []byte(`{"command":"ls -la"}`)),
	}}
	m := NewModel(Turn{Message: want})
	var acc llm.Accumulator
	for ev, err := range m.Stream(context.Background(), llm.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != llm.EventDone {
			acc.Apply(ev)
		}
	}
	got := acc.Message()
	for i := range want.Content {
		g, w := got.Content[i], want.Content[i]
		if g.Type != w.Type || g.Text != w.Text || g.Thinking != w.Thinking || g.Signature != w.Signature || string(g.Arguments) != string(w.Arguments) {
			t.Errorf("part %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestModel_ErrorAndAbort(t *testing.T) {
	boom := &llm.Error{Kind: llm.KindOverloaded, Message: "overloaded"}
	wait := make(chan struct{})
	m := NewModel(
		Turn{Message: llm.Message{Content: []llm.Part{llm.Text("partial")}}, Err: boom},
		Turn{Message: llm.Message{Content: []llm.Part{llm.Text("never finished")}}, Wait: wait},
	)
	msg, err := llm.Collect(m.Stream(context.Background(), llm.Request{}))
	if !errors.Is(err, boom) || msg.StopReason != llm.StopError || msg.Text() != "partial" {
		t.Errorf("error turn = %+v, %v", msg, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last llm.Event
	for ev, err := range m.Stream(ctx, llm.Request{}) {
		if ev.Type == llm.EventTextDelta {
			cancel() // the stream is held open by Wait until the context ends
		}
		last = ev
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	}
	if last.Type != llm.EventError || last.Message.StopReason != llm.StopAborted {
		t.Errorf("last = %+v", last)
	}
}

func TestSplit(t *testing.T) {
	got := Split("aéb", 2)
	if len(got) != 3 || got[0] != "a" || got[1] != "é" || got[2] != "b" {
		t.Errorf("Split = %q", got)
	}
	if Split("", 3) != nil {
		t.Error("empty string has no pieces")
	}
}
