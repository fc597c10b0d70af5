package boardmcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Options name the server and say how it logs.
type Options struct {
	// Name is the implementation name clients show ("bonsai" when empty).
	Name string
	// Version is the implementation version ("dev" when empty).
	Version string
	// Instructions, when set, tell the client's model how to use the tools.
	Instructions string
	// Logger receives the SDK's own log lines; nil discards them.
	Logger *slog.Logger
}

// NewServer returns an MCP server whose tools are tools: each keeps its
// name, description and input schema, and a call is validated against the
// schema and run with tool.Checked, so a refused or failed call is a
// result with isError the client's model reads, never a protocol error.
// It fails when a tool's schema does not compile or is not an object
// schema, or when two tools share a name.
func NewServer(tools []tool.Tool, opts Options) (*mcp.Server, error) {
	if opts.Name == "" {
		opts.Name = "bonsai"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version},
		&mcp.ServerOptions{Instructions: opts.Instructions, Logger: opts.Logger,
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	if err := AddTools(s, tools); err != nil {
		return nil, err
	}
	return s, nil
}

// AddTools adds tools to s, as [NewServer] does.
func AddTools(s *mcp.Server, tools []tool.Tool) error {
	seen := map[string]bool{}
	for _, t := range tools {
		if seen[t.Name()] {
			return fmt.Errorf("boardmcp: two tools named %s", t.Name())
		}
		seen[t.Name()] = true
		c, err := tool.Check(t)
		if err != nil {
			return fmt.Errorf("boardmcp: %w", err)
		}
		schema := t.Schema()
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(schema, &head); err != nil || head.Type != "object" {
			return fmt.Errorf("boardmcp: tool %s: the input schema must be a JSON object schema (\"type\":\"object\")", t.Name())
		}
		mt := &mcp.Tool{Name: t.Name(), Description: t.Description(), InputSchema: schema}
		if c.ReadOnly() {
			mt.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
		}
		s.AddTool(mt, handler(c))
	}
	return nil
}

// handler runs one call of c. Arguments arrive raw; tool.Checked
// validates them and recovers a panic of the tool.
func handler(c *tool.Checked) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		return toMCP(c.Call(ctx, args, nil)), nil
	}
}

// toMCP turns a tool result into MCP content: text parts as text, image
// parts as images; Details stay on Bonsai's side.
func toMCP(r tool.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: []mcp.Content{}}
	for _, p := range r.Content {
		switch p.Type {
		case llm.PartText:
			out.Content = append(out.Content, &mcp.TextContent{Text: p.Text})
		case llm.PartImage:
			data, err := base64.StdEncoding.DecodeString(p.Data)
			if err != nil {
				out.Content = append(out.Content, &mcp.TextContent{Text: "[image not shown: " + err.Error() + "]"})
				continue
			}
			out.Content = append(out.Content, &mcp.ImageContent{MIMEType: p.MimeType, Data: data})
		}
	}
	return out
}
