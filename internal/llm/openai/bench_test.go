package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// record captures the fake server's bytes for a turn.
func record(tb testing.TB, turn llmtest.ServerTurn) []byte {
	return llmtest.Record(tb, "/v1/chat/completions", `{"model":"gpt-5","stream_options":{"include_usage":true}}`, turn)
}

// BenchmarkModel_StreamDecode decodes a recorded 4,000-delta stream
// (about 1.1 MB of chunks) through the SDK and the adapter. Target: under 100 ms per
// response (25 µs a delta), negligible beside the 10-30 ms a real model
// takes per delta; nearly all of it is the SDK's reflective JSON decoding.
func BenchmarkModel_StreamDecode(b *testing.B) {
	body := record(b, llmtest.ServerTurn{Message: llmtest.LongResponse("call_1")})
	m := openai.New(openai.Config{Model: "gpt-5", APIKey: "k", BaseURL: "http://replay.invalid/v1",
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

// BenchmarkModel_RequestLate sends the 51st request of a 50-turn session
// (each turn reads a 2,000-line file, 2.4 MB in all) whose earlier
// messages are already encoded, through a transport that reads the whole
// body. Target: under 1 ms and flat in the session's length beyond
// copying the body into the connection.
func BenchmarkModel_RequestLate(b *testing.B) {
	body := record(b, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	m := openai.New(openai.Config{Model: "gpt-5", APIKey: "k", BaseURL: "http://replay.invalid/v1",
		HTTPClient: &http.Client{Transport: llmtest.Drain(body)}})
	var file strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&file, "%4d\tline %04d abcde\n", i+1, i+1)
	}
	msgs := []llm.Message{llm.UserText("read big.txt again and again")}
	for i := range 50 {
		id := fmt.Sprintf("call_%02d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Provider: "openai", StopReason: llm.StopToolUse,
				Content: []llm.Part{llm.ToolCall(id, "read", []byte(`{"path":"big.txt"}`))}},
			llm.ToolResultText(id, "read", file.String(), false))
	}
	req := llm.Request{System: "You are Bonsai.", Messages: msgs}
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

// BenchmarkResponses_StreamDecode decodes a recorded 4,000-delta
// Responses stream (text and a long tool call) through the Responses
// adapter. Target: under 100 ms per response, like Chat Completions.
func BenchmarkResponses_StreamDecode(b *testing.B) {
	body := recordResponses(b, llmtest.ServerTurn{Message: llmtest.LongResponse("call_1")})
	m := openai.NewResponses(openai.Config{Model: "gpt-5", APIKey: "k", BaseURL: "http://replay.invalid/v1", Info: gpt5,
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

// BenchmarkResponses_RequestLate is BenchmarkModel_RequestLate on the
// Responses adapter, each turn with its encrypted reasoning: the per-turn
// cost of a long session. Target: under 1 ms, flat.
func BenchmarkResponses_RequestLate(b *testing.B) {
	body := recordResponses(b, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
	m := openai.NewResponses(openai.Config{Model: "gpt-5", APIKey: "k", BaseURL: "http://replay.invalid/v1", Info: gpt5,
		HTTPClient: &http.Client{Transport: llmtest.Drain(body)}})
	var file strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&file, "%4d\tline %04d abcde\n", i+1, i+1)
	}
	msgs := []llm.Message{llm.UserText("read big.txt again and again")}
	for i := range 50 {
		id := fmt.Sprintf("call_%02d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Provider: "openai", StopReason: llm.StopToolUse,
				Content: []llm.Part{{Type: llm.PartThinking, Thinking: "**Reading**", Signature: strings.Repeat("gAAAA", 200)},
					llm.ToolCall(id, "read", []byte(`{"path":"big.txt"}`))}},
			llm.ToolResultText(id, "read", file.String(), false))
	}
	req := llm.Request{System: "You are Bonsai.", Messages: msgs}
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
