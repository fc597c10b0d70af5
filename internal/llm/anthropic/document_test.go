package anthropic_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/anthropic"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// Documents go as document blocks (in user turns and tool results) to a
// model that takes them; one whose bytes a resumed transcript no longer
// holds goes as a notice; a model that takes none gets the omission
// notice.
func TestModel_RequestDocuments(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Part{llm.Text("look"), llm.Document("application/pdf", "a.pdf", "ab12", "JVBERi0=")}},
		{Role: llm.RoleAssistant, Provider: "anthropic", Content: []llm.Part{llm.ToolCall("toolu_1", "read", []byte(`{"path":"b.pdf"}`))}},
		{Role: llm.RoleToolResult, ToolCallID: "toolu_1", ToolName: "read", Content: []llm.Part{llm.Document("application/pdf", "b.pdf", "cd34", "")}},
	}
	info := sonnet
	info.Documents = true
	for _, tt := range []struct {
		info llm.Info
		want []string
	}{
		{info, []string{`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}`,
			`"content":[{"type":"text","text":"[document b.pdf (sha256 cd34) is no longer loaded; read it again to see it]"}]`}},
		{sonnet, []string{`{"type":"text","text":"` + llm.DocumentOmitted + ` (a.pdf)"`}},
	} {
		srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}})
		m := anthropic.New(anthropic.Config{Model: "claude-sonnet-4-5", APIKey: "k", BaseURL: srv.URL, Info: tt.info})
		if _, _, err := collect(t, m, llm.Request{Messages: msgs}); err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(srv.Requests()[0].Body["messages"])
		got := string(srv.Requests()[0].Raw)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("documents %v: request lacks %s\n%s", tt.info.Documents, w, raw)
			}
		}
	}
}
