package anthropic_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

var sonnet = llm.Info{ID: "anthropic/claude-sonnet-4-5", ContextWindow: 200000, MaxOutputTokens: 64000,
	Images: true, Thinking: true, Price: llm.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}

func newModel(t *testing.T, turns ...llmtest.ServerTurn) (*anthropic.Model, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, turns...)
	return anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "sk-test", BaseURL: srv.URL, Info: sonnet}), srv
}

func collect(t *testing.T, m llm.Model, req llm.Request) ([]llm.Event, llm.Message, error) {
	t.Helper()
	var evs []llm.Event
	var acc llm.Accumulator
	var err error
	for ev, e := range m.Stream(context.Background(), req) {
		evs = append(evs, ev)
		acc.Apply(ev)
		err = e
	}
	return evs, acc.Message(), err
}

func types(evs []llm.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, string(e.Type))
	}
	return strings.Join(s, " ")
}

func TestModel_StreamText(t *testing.T) {
	m, srv := newModel(t, llmtest.ServerTurn{Chunk: 5, Message: llm.Message{
		Content: []llm.Part{llm.Text("Hello, world!")},
		Usage:   &llm.Usage{Input: 1000, Output: 200, CacheRead: 10000, CacheWrite: 2000},
	}})
	evs, msg, err := collect(t, m, llm.Request{System: "be brief", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := types(evs), "text_start text_delta text_delta text_delta text_end done"; got != want {
		t.Errorf("events = %s, want %s", got, want)
	}
	if msg.Text() != "Hello, world!" || msg.StopReason != llm.StopEnd || msg.Provider != "anthropic" || msg.Model != "claude-sonnet-4-5" {
		t.Errorf("message = %+v", msg)
	}
	u := msg.Usage
	if u == nil || u.Input != 1000 || u.Output != 200 || u.CacheRead != 10000 || u.CacheWrite != 2000 {
		t.Fatalf("usage = %+v", u)
	}
	// 1000*3 + 200*15 + 10000*0.3 + 2000*3.75 = 16500 per million.
	if want := 0.0165; math.Abs(u.Cost-want) > 1e-12 {
		t.Errorf("cost = %v, want %v", u.Cost, want)
	}
	req := srv.Requests()[0]
	// The key goes in X-Api-Key, as the official SDK sends it.
	if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != "sk-test" || req.Header.Get("Authorization") != "" || req.Header.Get("anthropic-version") == "" {
		t.Errorf("request %s headers %v", req.Path, req.Header)
	}
	if req.Body["stream"] != true || req.Body["model"] != "claude-sonnet-4-5" {
		t.Errorf("body = %s", req.Raw)
	}
}
