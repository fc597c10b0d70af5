package anthropic_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// record captures the fake server's bytes for a turn.
func record(tb testing.TB, turn llmtest.ServerTurn) []byte {
	return llmtest.Record(tb, "/v1/messages", `{"model":"claude-sonnet-4-5"}`, turn)
}

// BenchmarkModel_StreamDecode decodes a recorded 4,000-delta stream
// (about 550 KB of SSE) through the SDK and the adapter. Target: under 100 ms per
// response (25 µs a delta), negligible beside the 10-30 ms a real model
// takes per delta; nearly all of it is the SDK's reflective JSON decoding.
func BenchmarkModel_StreamDecode(b *testing.B) {
	body := record(b, llmtest.ServerTurn{Message: llmtest.LongResponse("toolu_1")})
	m := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "k", BaseURL: "http://replay.invalid",
		HTTPClient: &http.Client{Transport: llmtest.Replay(body)}})
	req := llm.Request{Messages: []llm.Message{llm.UserText("hi")}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		msg, err := llm.Collect(m.Stream(context.Background(), req))
		if err != nil || len(msg.Content) != 2 {
			b.Fatal(err)
		}
	}
}

// session50 is a conversation of 50 tool turns, each reading a 2,000-line
// file (about 48 KB a result, 2.4 MB in all).
func session50() []llm.Message {
	var file strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&file, "%4d\tline %04d abcde\n", i+1, i+1)
	}
	msgs := []llm.Message{llm.UserText("read big.txt again and again")}
	for i := range 50 {
		id := fmt.Sprintf("toolu_%02d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Provider: "anthropic", StopReason: llm.StopToolUse,
				Content: []llm.Part{llm.ToolCall(id, "read", []byte(`{"path":"big.txt"}`))}},
			llm.ToolResultText(id, "read", file.String(), false))
	}
	return msgs
}

// BenchmarkModel_RequestLate sends the 51st request of a 50-turn session
// whose earlier messages are already encoded, through a transport that
// reads the whole body. Target: under 1 ms and flat in the session's
// length beyond copying the body into the connection.
func BenchmarkModel_RequestLate(b *testing.B) {
	body := record(b, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	m := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "k", BaseURL: "http://replay.invalid",
		HTTPClient: &http.Client{Transport: llmtest.Drain(body)}})
	req := llm.Request{System: "You are Bonsai.", Messages: session50(), Tools: []llm.ToolSpec{readTool}}
	if _, err := llm.Collect(m.Stream(context.Background(), req)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := llm.Collect(m.Stream(context.Background(), req)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkModel_OversizedAnswer streams a recorded 52 MB answer (4 KB
// text deltas): the size cap ends it at 16 MiB, so what one costs in
// allocations (B/op) stays bounded however long the answer. Before the
// cap it grew with the answer: the whole text was read and accumulated.
func BenchmarkModel_OversizedAnswer(b *testing.B) {
	body := record(b, llmtest.ServerTurn{Chunk: 4096, Message: llm.Message{Content: []llm.Part{
		llm.Text(strings.Repeat("0123456789abcdef", 52<<16))}}})
	m := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "k", BaseURL: "http://replay.invalid",
		HTTPClient: &http.Client{Transport: llmtest.Replay(body)}})
	req := llm.Request{Messages: []llm.Message{llm.UserText("hi")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := llm.Collect(m.Stream(context.Background(), req)); !errors.Is(err, llm.ErrResponseTooLarge) {
			b.Fatalf("err = %v, want the size cap", err)
		}
	}
}
