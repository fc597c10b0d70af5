package llmtest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Factory builds the Model under test, backed by a fake that plays turns.
type Factory func(t *testing.T, turns ...ServerTurn) llm.Model

// RunModelContract checks the behaviour every [llm.Model] promises: event
// order and terminal events, messages that match their events, tool calls,
// usage, abort through the context, early break, and error classification.
// Every implementation runs it.
func RunModelContract(t *testing.T, newModel Factory) {
	t.Run("text", func(t *testing.T) {
		m := newModel(t, ServerTurn{Chunk: 7, Message: llm.Message{Content: []llm.Part{llm.Text("Hello, wörld! A longer answer.")},
			Usage: &llm.Usage{Input: 100, Output: 20}}})
		msg, err := CheckStream(t, m.Stream(context.Background(), contractRequest()))
		if err != nil {
			t.Fatal(err)
		}
		if msg.Text() != "Hello, wörld! A longer answer." || msg.StopReason != llm.StopEnd {
			t.Errorf("message = %+v", msg)
		}
		if msg.Usage == nil || msg.Usage.Input != 100 || msg.Usage.Output != 20 {
			t.Errorf("usage = %+v", msg.Usage)
		}
	})
	t.Run("thinking", func(t *testing.T) {
		m := newModel(t, ServerTurn{Chunk: 5, Message: llm.Message{Content: []llm.Part{
			{Type: llm.PartThinking, Thinking: "short plan first", Signature: "c2lnbmF0dXJl"}, llm.Text("Answer.")}}})
		msg, err := CheckStream(t, m.Stream(context.Background(), contractRequest()))
		if err != nil {
			t.Fatal(err)
		}
		if len(msg.Content) != 2 || msg.Content[0].Thinking != "short plan first" || msg.Text() != "Answer." {
			t.Errorf("content = %+v", msg.Content)
		}
	})
	t.Run("tool calls", func(t *testing.T) {
		m := newModel(t, ServerTurn{Chunk: 4, Message: llm.Message{Content: []llm.Part{
			llm.Text("First."), llm.ToolCall("call_1", "read", []byte(`{"path":"a.go"}`)),
			llm.ToolCall("call_2", "grep", []byte(`{"pattern":"func \\w+","literal":false}`)),
			llm.ToolCall("call_3", "ls", nil)}}})
		msg, err := CheckStream(t, m.Stream(context.Background(), contractRequest()))
		if err != nil {
			t.Fatal(err)
		}
		calls := msg.ToolCalls()
		want := []string{`call_1 read {"path":"a.go"}`, `call_2 grep {"pattern":"func \\w+","literal":false}`, `call_3 ls {}`}
		if msg.StopReason != llm.StopToolUse || len(calls) != len(want) {
			t.Fatalf("stop %s, calls %+v", msg.StopReason, calls)
		}
		for i, c := range calls {
			if got := fmt.Sprintf("%s %s %s", c.ID, c.Name, c.Arguments); got != want[i] {
				t.Errorf("call %d = %s, want %s", i, got, want[i])
			}
		}
	})
	t.Run("abort", func(t *testing.T) {
		m := newModel(t, ServerTurn{Chunk: 2, Message: llm.Message{Content: []llm.Part{llm.Text("a long answer cut short")}}})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seq := func(yield func(llm.Event, error) bool) {
			for ev, err := range m.Stream(ctx, contractRequest()) {
				if ev.Type == llm.EventTextDelta {
					cancel()
				}
				if !yield(ev, err) {
					return
				}
			}
		}
		msg, err := CheckStream(t, seq)
		if !errors.Is(err, context.Canceled) || msg.StopReason != llm.StopAborted {
			t.Errorf("err %v, stop %s", err, msg.StopReason)
		}
	})
	t.Run("break then reuse", func(t *testing.T) {
		m := newModel(t, ServerTurn{Chunk: 1, Message: llm.Message{Content: []llm.Part{llm.Text("abandoned")}}},
			ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("second")}}})
		for range m.Stream(context.Background(), contractRequest()) {
			break
		}
		msg, err := CheckStream(t, m.Stream(context.Background(), contractRequest()))
		if err != nil || msg.Text() != "second" {
			t.Errorf("after break: %q, %v", msg.Text(), err)
		}
	})
	t.Run("stop reasons", func(t *testing.T) {
		// A refusal keeps the provider's text; an answer cut at the output
		// limit says so, pending tool call and all.
		m := newModel(t,
			ServerTurn{Message: llm.Message{StopReason: llm.StopRefusal, Content: []llm.Part{llm.Text("I can't help with that.")}}},
			ServerTurn{Message: llm.Message{StopReason: llm.StopLength, Content: []llm.Part{llm.Text("Writing."),
				llm.ToolCall("call_1", "write", []byte(`{"path":"a.txt","content":"abc"}`))}}})
		msg, err := CheckStream(t, m.Stream(context.Background(), contractRequest()))
		if err != nil || msg.StopReason != llm.StopRefusal || msg.Text() != "I can't help with that." {
			t.Errorf("refusal: stop %s text %q err %v", msg.StopReason, msg.Text(), err)
		}
		msg, err = CheckStream(t, m.Stream(context.Background(), contractRequest()))
		if err != nil || msg.StopReason != llm.StopLength || len(msg.ToolCalls()) != 1 {
			t.Errorf("length: stop %s calls %d err %v", msg.StopReason, len(msg.ToolCalls()), err)
		}
	})
	faults := []struct {
		name       string
		turn       ServerTurn
		kind       llm.ErrorKind
		retryAfter time.Duration
	}{
		{"rate limit", ServerTurn{Status: 429, RetryAfter: "2"}, llm.KindRateLimit, 2 * time.Second},
		{"auth", ServerTurn{Status: 401}, llm.KindAuth, 0},
		{"overflow", ServerTurn{Status: 400, ErrorMessage: "prompt is too long: 201000 tokens > 200000 maximum"}, llm.KindContextOverflow, 0},
		{"server", ServerTurn{Status: 500}, llm.KindOverloaded, 0},
		{"reset", ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("x")}}, Cut: CutReset}, llm.KindTransport, 0},
	}
	for _, f := range faults {
		t.Run("fault "+f.name, func(t *testing.T) {
			m := newModel(t, f.turn)
			msg, err := CheckStream(t, m.Stream(context.Background(), contractRequest()))
			e, ok := errors.AsType[*llm.Error](err)
			if !ok || e.Kind != f.kind || e.RetryAfter != f.retryAfter {
				t.Fatalf("err = %#v, want kind %s retry-after %v", err, f.kind, f.retryAfter)
			}
			if msg.StopReason != llm.StopError || msg.ErrorMessage == "" {
				t.Errorf("message = %+v", msg)
			}
		})
	}
}

func contractRequest() llm.Request {
	return llm.Request{System: "You are a test.", Messages: []llm.Message{llm.UserText("hi")}}
}

// CheckStream drains seq and checks the event contract of [llm.Model]:
// every part streams start, deltas, end at an index assigned in order; no
// pair but the last has an error; exactly one terminal event ends the
// stream; and the terminal message matches what the events built. It
// returns the terminal message and error.
func CheckStream(t testing.TB, seq iter.Seq2[llm.Event, error]) (llm.Message, error) {
	t.Helper()
	var (
		acc      llm.Accumulator
		terminal *llm.Event
		lastErr  error
		state    = map[int]string{} // index → "open" or "closed"
		next     int
	)
	for ev, err := range seq {
		if terminal != nil {
			t.Fatalf("event %s after the terminal event", ev.Type)
		}
		switch ev.Type {
		case llm.EventDone, llm.EventError:
			if (ev.Type == llm.EventError) != (err != nil) {
				t.Fatalf("%s event with error %v", ev.Type, err)
			}
			if ev.Message == nil || ev.Message.Role != llm.RoleAssistant {
				t.Fatalf("%s event without an assistant message", ev.Type)
			}
			terminal, lastErr = &ev, err
			continue
		case llm.EventRetry:
		case llm.EventTextStart, llm.EventThinkingStart, llm.EventToolCallStart:
			if ev.Index != next || state[ev.Index] != "" {
				t.Fatalf("%s at index %d, want %d", ev.Type, ev.Index, next)
			}
			state[ev.Index] = "open"
			next++
		case llm.EventTextEnd, llm.EventThinkingEnd, llm.EventToolCallEnd:
			if state[ev.Index] != "open" || ev.Part == nil {
				t.Fatalf("%s at index %d in state %q", ev.Type, ev.Index, state[ev.Index])
			}
			state[ev.Index] = "closed"
		default:
			if state[ev.Index] != "open" {
				t.Fatalf("%s at index %d in state %q", ev.Type, ev.Index, state[ev.Index])
			}
		}
		if err != nil {
			t.Fatalf("error %v on a %s event", err, ev.Type)
		}
		acc.Apply(ev)
	}
	if terminal == nil {
		t.Fatal("stream ended without a done or error event")
	}
	final := *terminal.Message
	built := acc.Message()
	if terminal.Type == llm.EventDone {
		for i, s := range state {
			if s != "closed" {
				t.Errorf("part %d never ended", i)
			}
		}
	}
	if len(built.Content) != len(final.Content) {
		t.Fatalf("events built %d parts, final message has %d", len(built.Content), len(final.Content))
	}
	for i := range final.Content {
		b, f := built.Content[i], final.Content[i]
		if b.Type != f.Type || b.Text != f.Text || b.Thinking != f.Thinking || b.ID != f.ID || b.Name != f.Name ||
			(terminal.Type == llm.EventDone && string(b.Arguments) != string(f.Arguments)) {
			t.Errorf("part %d: events built %+v, final message has %+v", i, b, f)
		}
	}
	return final, lastErr
}
