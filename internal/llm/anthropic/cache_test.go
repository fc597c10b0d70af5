package anthropic_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// A model reuses each message's encoding across requests; the bodies it
// sends must be byte for byte what a fresh model sends, with the cache
// breakpoints moved to the newest user turns.
func TestModel_RequestCachedEncodingMatchesFresh(t *testing.T) {
	ok := llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}}
	reused, srv := newModel(t, ok, ok, ok)
	conv := conversation()
	turns := [][]llm.Message{
		conv,
		append(conv[:len(conv):len(conv)],
			llm.Message{Role: llm.RoleAssistant, Provider: "anthropic", Content: []llm.Part{llm.ToolCall("toolu_3", "read", []byte(`{"path":"b.go"}`))}},
			llm.ToolResultText("toolu_3", "read", strings.Repeat("line\n", 100), false)),
	}
	turns = append(turns, append(turns[1][:len(turns[1]):len(turns[1])], llm.UserText("and c.go")))
	for i, msgs := range turns {
		req := llm.Request{System: "sys", Messages: msgs, Tools: []llm.ToolSpec{readTool}}
		if _, _, err := collect(t, reused, req); err != nil {
			t.Fatal(err)
		}
		fresh, freshSrv := newModel(t, ok)
		if _, _, err := collect(t, fresh, req); err != nil {
			t.Fatal(err)
		}
		got, want := srv.Requests()[i].Raw, freshSrv.Requests()[0].Raw
		if !bytes.Equal(got, want) {
			t.Errorf("request %d from the cache:\n%s\nfresh:\n%s", i, got, want)
		}
		if n := bytes.Count(got, []byte(`"cache_control"`)); n != 4 {
			t.Errorf("request %d has %d cache breakpoints, want 4", i, n)
		}
	}
}
