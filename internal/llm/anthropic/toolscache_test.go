package anthropic_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// A model encodes its tools once for the requests that send the same
// list (llm.ToolsCache); a list changed between requests, even in place,
// is sent as it is now: every body is byte for byte a fresh model's.
func TestModel_CachedToolsFollowTheList(t *testing.T) {
	ok := llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("ok")}}}
	reused, srv := newModel(t, ok, ok, ok, ok)
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	tools := []llm.ToolSpec{readTool, {Name: "ls", Description: "List a directory.", Parameters: params}}
	steps := []func(){
		func() {},
		func() { copy(params[len(params)-11:], `"number"`) }, // changed in place
		func() { tools = append(tools, llm.ToolSpec{Name: "grep", Description: "Search."}) },
		func() { tools[0].Description = "Read a text file." },
	}
	for i, step := range steps {
		step()
		req := llm.Request{System: "sys", Messages: []llm.Message{llm.UserText("go")}, Tools: tools}
		if _, _, err := collect(t, reused, req); err != nil {
			t.Fatal(err)
		}
		fresh, freshSrv := newModel(t, ok)
		if _, _, err := collect(t, fresh, req); err != nil {
			t.Fatal(err)
		}
		got, want := srv.Requests()[i].Raw, freshSrv.Requests()[0].Raw
		if !bytes.Equal(got, want) {
			t.Errorf("request %d with the cached tools:\n%s\nfresh:\n%s", i, got, want)
		}
	}
	if last := srv.Requests()[3].Raw; !bytes.Contains(last, []byte(`"number"`)) || !bytes.Contains(last, []byte(`"Read a text file."`)) {
		t.Errorf("the last request does not have the changed tools:\n%s", last)
	}
}
