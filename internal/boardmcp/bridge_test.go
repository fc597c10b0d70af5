package boardmcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bonsai-run/bonsai/internal/boardmcp"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// echo is a small tool: it says back its text, fails when asked, and
// returns an image when asked for one.
type echo struct{ schema string }

func (echo) Name() string        { return "echo" }
func (echo) Description() string { return "Says the text back." }
func (e echo) Schema() json.RawMessage {
	if e.schema != "" {
		return json.RawMessage(e.schema)
	}
	return json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"fail":{"type":"boolean"},"image":{"type":"boolean"}},"required":["text"],"additionalProperties":false}`)
}
func (echo) ReadOnly() bool { return true }
func (echo) Run(_ context.Context, raw json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var a struct {
		Text  string `json:"text"`
		Fail  bool   `json:"fail"`
		Image bool   `json:"image"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	if a.Fail {
		return tool.Errorf("refused: %s", a.Text), nil
	}
	if a.Image {
		return tool.Result{Content: []llm.Part{llm.Text(a.Text), llm.Image("image/png", base64.StdEncoding.EncodeToString([]byte("PNG!")))}}, nil
	}
	return tool.Text("echo: " + a.Text), nil
}

func connect(t *testing.T, tools ...tool.Tool) *mcp.ClientSession {
	t.Helper()
	srv, err := boardmcp.NewServer(tools, boardmcp.Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestBridge_ListsAndCallsTools(t *testing.T) {
	cs := connect(t, echo{})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 1 || list.Tools[0].Name != "echo" || list.Tools[0].Description != "Says the text back." {
		t.Fatalf("tools = %+v", list.Tools)
	}
	if a := list.Tools[0].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("read-only tool without readOnlyHint: %+v", a)
	}
	schema, _ := json.Marshal(list.Tools[0].InputSchema)
	if !strings.Contains(string(schema), `"required":["text"]`) {
		t.Errorf("schema = %s", schema)
	}

	if r := call(t, cs, "echo", map[string]any{"text": "hi"}); r.IsError || text(r) != "echo: hi" {
		t.Errorf("echo = %v %q", r.IsError, text(r))
	}
	if r := call(t, cs, "echo", map[string]any{"text": "no", "fail": true}); !r.IsError || text(r) != "refused: no" {
		t.Errorf("refusal = %v %q", r.IsError, text(r))
	}
	r := call(t, cs, "echo", map[string]any{"text": "pic", "image": true})
	if len(r.Content) != 2 {
		t.Fatalf("content = %+v", r.Content)
	}
	if img, ok := r.Content[1].(*mcp.ImageContent); !ok || string(img.Data) != "PNG!" || img.MIMEType != "image/png" {
		t.Errorf("image = %+v", r.Content[1])
	}
}

func TestBridge_InvalidArgumentsAreToolErrors(t *testing.T) {
	cs := connect(t, echo{})
	for _, args := range []any{
		map[string]any{},                             // missing required
		map[string]any{"text": 3},                    // wrong type
		map[string]any{"text": "x", "other": "what"}, // unknown property
		nil, // no arguments at all
	} {
		r := call(t, cs, "echo", args)
		if !r.IsError || !strings.Contains(text(r), "Invalid arguments for echo") {
			t.Errorf("args %v: %v %q", args, r.IsError, text(r))
		}
	}
}

func TestBridge_UnknownToolIsAnError(t *testing.T) {
	cs := connect(t, echo{})
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err = %v", err)
	}
}

func TestNewServer_RefusesBadTools(t *testing.T) {
	for name, tools := range map[string][]tool.Tool{
		"not an object schema": {echo{schema: `{"type":"string"}`}},
		"schema not JSON":      {echo{schema: `{"type":`}},
		"same name twice":      {echo{}, echo{}},
	} {
		if _, err := boardmcp.NewServer(tools, boardmcp.Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
