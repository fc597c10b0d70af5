package llm_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestDocuments_ByReferenceAndOmitted(t *testing.T) {
	doc := llm.Document("application/pdf", "docs/spec.pdf", "ab12", "JVBERi0xLjQ=")
	m := llm.Message{Role: llm.RoleToolResult, ToolCallID: "c1", Content: []llm.Part{llm.Text("Read PDF file docs/spec.pdf"), doc}}
	stored := llm.WithoutDocumentData(m)
	b, _ := json.Marshal(stored)
	if want := `{"type":"document","mimeType":"application/pdf","path":"docs/spec.pdf","sha256":"ab12"}`; !strings.Contains(string(b), want) || strings.Contains(string(b), "JVBERi0") {
		t.Errorf("stored = %s", b)
	}
	if m.Content[1].Data == "" {
		t.Error("WithoutDocumentData changed its argument")
	}
	plain := llm.UserText("hi")
	msgs := []llm.Message{plain, m}
	out := llm.WithoutDocuments(msgs)
	if out[1].Content[1].Type != llm.PartText || out[1].Content[1].Text != llm.DocumentOmitted+" (docs/spec.pdf)" || msgs[1].Content[1].Type != llm.PartDocument {
		t.Errorf("without documents = %+v (input %+v)", out[1], msgs[1])
	}
	if same := llm.WithoutDocuments([]llm.Message{plain}); &same[0] == nil || len(same) != 1 {
		t.Error("a conversation without documents must come back as it is")
	}
	if got := llm.DocumentNotLoaded(stored.Content[1]); got != "[document docs/spec.pdf (sha256 ab12) is no longer loaded; read it again to see it]" {
		t.Errorf("not loaded = %q", got)
	}
}
