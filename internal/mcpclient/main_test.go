package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverEnv makes the test binary an MCP server on stdio (testServer).
const serverEnv = "MCPCLIENT_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverEnv); mode != "" {
		testServer(mode)
		return
	}
	os.Exit(m.Run())
}

// testServer is a stdio MCP server built with the SDK: echo, crash (the
// process exits mid-call), and, in mode "badschema", a tool whose input
// schema is not valid JSON Schema.
func testServer(mode string) {
	s := newTestMCPServer(mode == "badschema")
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

func newTestMCPServer(badSchema bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Says the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Text}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Exits the server.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Stderr.WriteString("crashing as asked\n")
			os.Exit(3)
			return nil, nil
		})
	if badSchema {
		s.AddTool(&mcp.Tool{Name: "broken", Description: "Has a broken schema.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"nonsense"}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	}
	return s
}
