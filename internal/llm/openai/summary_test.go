package openai_test

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/openai"
)

// reasoningOf returns the reasoning object of request i as sent.
func reasoningOf(srv *llmtest.Server, i int) string {
	return mustJSON(srv.Requests()[i].Body["reasoning"])
}

// OpenAI answers an organisation that is not verified HTTP 400 on
// reasoning.summary: the request goes again without it, the refusal is
// reported once, and later requests of that account, from any model of
// the process, leave the summary out.
func TestResponses_SummaryRefused(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: hello}, llmtest.ServerTurn{Message: hello}, llmtest.ServerTurn{Message: hello})
	srv.RefuseReasoningSummary(true)
	n := &notices{}
	cfg := openai.Config{Model: "gpt-5", APIKey: "sk-unverified", BaseURL: srv.URL + "/v1", Info: gpt5, Warn: n.add}
	for _, m := range []*openai.ResponsesModel{openai.NewResponses(cfg), openai.NewResponses(cfg), openai.NewResponses(cfg)} {
		if _, msg, err := checked(t, m, hi); err != nil || msg.Text() != hello.Text() {
			t.Fatalf("text %q, err %v", msg.Text(), err)
		}
	}
	var sent []string
	for i := range srv.Requests() {
		sent = append(sent, reasoningOf(srv, i))
	}
	want := `{"effort":"minimal","summary":"auto"} {"effort":"minimal"} {"effort":"minimal"} {"effort":"minimal"}`
	if got := strings.Join(sent, " "); got != want {
		t.Errorf("reasoning sent = %s\nwant %s", got, want)
	}
	if w := n.all(); len(w) != 1 || !strings.Contains(w[0], "openai: the organisation may not receive reasoning summaries") ||
		!strings.Contains(w[0], "agent.reasoningSummary") {
		t.Errorf("notices = %q, want one", w)
	}
}

// Other 400s are not sent again, and another account still asks for
// summaries.
func TestResponses_SummaryOtherRefusals(t *testing.T) {
	m, srv := newResponses(t, gpt5, llmtest.ServerTurn{Status: 400, ErrorType: "unsupported_value", ErrorMessage: "Unsupported value: 'temperature'"})
	if _, _, err := checked(t, m, hi); llm.KindOf(err) != llm.KindInvalidRequest || len(srv.Requests()) != 1 {
		t.Errorf("err %v after %d requests", err, len(srv.Requests()))
	}
	if got := reasoningOf(srv, 0); got != `{"effort":"minimal","summary":"auto"}` {
		t.Errorf("reasoning = %s", got)
	}
}

// agent.reasoningSummary off sends no summary at all.
func TestResponses_SummaryOff(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: hello})
	m := openai.NewResponses(openai.Config{Model: "gpt-5", APIKey: "k", BaseURL: srv.URL + "/v1", Info: gpt5, ReasoningSummary: openai.SummaryOff})
	if _, _, err := checked(t, m, llm.Request{Messages: hi.Messages, Thinking: llm.ThinkingHigh}); err != nil {
		t.Fatal(err)
	}
	if got := reasoningOf(srv, 0); got != `{"effort":"high"}` {
		t.Errorf("reasoning = %s", got)
	}
}

// With thinking off, a reasoning model gets the lowest effort the catalog
// says it accepts, in both wire formats; a model the catalog gives none
// gets no effort (its default), since an effort it does not accept is a
// 400.
func TestReasoningEffortWhenOff(t *testing.T) {
	o3 := gpt5
	o3.MinEffort = "low"
	unknown := gpt5
	unknown.MinEffort = ""
	tests := []struct {
		info     llm.Info
		thinking llm.ThinkingLevel
		want     string // Responses reasoning, Chat Completions reasoning_effort
	}{
		{gpt5, llm.ThinkingOff, `{"effort":"minimal","summary":"auto"} "minimal"`},
		{gpt5, "", `{"effort":"minimal","summary":"auto"} "minimal"`},
		{o3, llm.ThinkingOff, `{"effort":"low","summary":"auto"} "low"`},
		{unknown, llm.ThinkingOff, `{"summary":"auto"} null`},
		{gpt5, llm.ThinkingMedium, `{"effort":"medium","summary":"auto"} "medium"`},
	}
	for _, tt := range tests {
		req := llm.Request{Messages: hi.Messages, Thinking: tt.thinking}
		resp, rsrv := newResponses(t, tt.info, llmtest.ServerTurn{Message: hello})
		chat, csrv := newModel(t, tt.info, llmtest.ServerTurn{Message: hello})
		for _, m := range []llm.Model{resp, chat} {
			if _, _, err := checked(t, m, req); err != nil {
				t.Fatal(err)
			}
		}
		got := reasoningOf(rsrv, 0) + " " + mustJSON(csrv.Requests()[0].Body["reasoning_effort"])
		if got != tt.want {
			t.Errorf("%s with thinking %q: sent %s, want %s", tt.info.MinEffort, tt.thinking, got, tt.want)
		}
	}
}
