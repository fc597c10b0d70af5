package mcpclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Prefix starts the name of every MCP tool: mcp__<server>__<tool>.
const Prefix = "mcp__"

// maxName is the longest tool name every provider accepts.
const maxName = 64

// spec is a server's tool as listed (and cached).
type spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
}

func specOf(t *mcp.Tool) spec {
	s := spec{Name: t.Name, Description: t.Description}
	if t.Description == "" && t.Title != "" {
		s.Description = t.Title
	}
	s.InputSchema, _ = json.Marshal(t.InputSchema)
	if t.Annotations != nil && t.Annotations.ReadOnlyHint {
		s.ReadOnly = true
	}
	return s
}

var badNameRune = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// ToolName is the name the model calls a server's tool by:
// mcp__<server>__<tool>, characters providers refuse replaced by "_",
// cut to 64 characters.
func ToolName(server, remote string) string {
	n := Prefix + server + "__" + badNameRune.ReplaceAllString(remote, "_")
	if len(n) > maxName {
		n = n[:maxName]
	}
	return n
}

// build turns a server's specs into tools, leaving out (with a warning)
// those whose schema is not valid JSON Schema or whose name clashes.
func (c *conn) build(specs []spec) ([]tool.Tool, Report) {
	rep := Report{Name: c.srv.Name}
	var out []tool.Tool
	seen := map[string]bool{}
	for _, s := range specs {
		t, err := newTool(c, s)
		if err == nil && seen[t.name] {
			err = fmt.Errorf("its name %s is taken by another tool of the server", t.name)
		}
		if err != nil {
			rep.Skipped = append(rep.Skipped, s.Name)
			c.opts.Warn(fmt.Sprintf("MCP server %s: tool %q is left out: %v", c.srv.Name, s.Name, err))
			continue
		}
		seen[t.name] = true
		out = append(out, t)
		rep.SchemaBytes += len(t.name) + len(t.desc) + len(t.schema)
	}
	sortTools(out)
	rep.Tools = len(out)
	return out, rep
}

// mcpTool is one tool of a server, as a tool.Tool.
type mcpTool struct {
	c        *conn
	name     string
	remote   string
	desc     string
	schema   json.RawMessage
	resolved *jsonschema.Resolved
	readOnly bool
}

var (
	_ tool.Tool      = (*mcpTool)(nil)
	_ tool.ReadOnly  = (*mcpTool)(nil)
	_ tool.Validator = (*mcpTool)(nil)
)

func newTool(c *conn, s spec) (*mcpTool, error) {
	if s.Name == "" {
		return nil, errors.New("it has no name")
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(s.InputSchema, &js); err != nil {
		return nil, fmt.Errorf("its input schema is not valid JSON Schema: %v", err)
	}
	if js.Type != "object" {
		return nil, fmt.Errorf("its input schema is not an object schema (type %q)", js.Type)
	}
	r, err := js.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("its input schema is not valid JSON Schema: %v", err)
	}
	var raw any
	_ = json.Unmarshal(s.InputSchema, &raw)
	if bad := badType(raw); bad != "" {
		return nil, fmt.Errorf("its input schema is not valid JSON Schema: unknown type %q", bad)
	}
	// The model gets the schema as the server wrote it, compacted.
	var buf bytes.Buffer
	if err := json.Compact(&buf, s.InputSchema); err != nil {
		return nil, err
	}
	desc := strings.TrimSpace(s.Description)
	if desc == "" {
		desc = "Tool " + s.Name + " of the MCP server " + c.srv.Name + "."
	}
	return &mcpTool{c: c, name: ToolName(c.srv.Name, s.Name), remote: s.Name, desc: desc,
		schema: buf.Bytes(), resolved: r, readOnly: s.ReadOnly}, nil
}

// Name implements tool.Tool.
func (t *mcpTool) Name() string { return t.name }

// Description implements tool.Tool.
func (t *mcpTool) Description() string { return t.desc }

// Schema implements tool.Tool.
func (t *mcpTool) Schema() json.RawMessage { return t.schema }

// ReadOnly reports the server's readOnlyHint.
func (t *mcpTool) ReadOnly() bool { return t.readOnly }

// Server returns the name of the tool's server.
func (t *mcpTool) Server() string { return t.c.srv.Name }

// Validate checks args against the server's schema (JSON Schema draft
// 2020-12 or draft-07).
func (t *mcpTool) Validate(args json.RawMessage) error {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("Invalid arguments for %s: %v", t.name, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("Invalid arguments for %s: not a JSON object", t.name)
	}
	if err := t.resolved.Validate(v); err != nil {
		return fmt.Errorf("Invalid arguments for %s: %v", t.name, err)
	}
	return nil
}

// Run implements tool.Tool: it calls the tool on its server, starting
// the server if needed. Every failure is a result the model reads.
func (t *mcpTool) Run(ctx context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	return t.c.call(ctx, t.remote, args), nil
}

// rawArgs passes arguments on as they came.
func rawArgs(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return json.RawMessage(b)
}

// fromMCP turns a call's result into a tool result: text and images as
// they are, other content described in text.
func fromMCP(r *mcp.CallToolResult) tool.Result {
	out := tool.Result{IsError: r.IsError}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out.Content = append(out.Content, llm.Text(c.Text))
		case *mcp.ImageContent:
			out.Content = append(out.Content, llm.Image(c.MIMEType, base64.StdEncoding.EncodeToString(c.Data)))
		case *mcp.AudioContent:
			out.Content = append(out.Content, llm.Text(fmt.Sprintf("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data))))
		case *mcp.ResourceLink:
			out.Content = append(out.Content, llm.Text(fmt.Sprintf("[resource %s: %s]", c.Name, c.URI)))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				out.Content = append(out.Content, llm.Text(c.Resource.Text))
			} else if c.Resource != nil {
				out.Content = append(out.Content, llm.Text(fmt.Sprintf("[resource %s, %s, not shown]", c.Resource.URI, c.Resource.MIMEType)))
			}
		}
	}
	if len(out.Content) == 0 && r.StructuredContent != nil {
		b, err := json.Marshal(r.StructuredContent)
		if err == nil {
			out.Content = append(out.Content, llm.Text(string(b)))
		}
	}
	if len(out.Content) == 0 {
		out.Content = append(out.Content, llm.Text("(no output)"))
	}
	return out
}

// jsonTypes are the types JSON Schema knows.
var jsonTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true,
	"integer": true, "boolean": true, "null": true}

// badType returns the first "type" in a schema that JSON Schema does not
// know (the SDK's resolver does not check them), or "".
func badType(v any) string {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if k == "type" {
				switch t := sub.(type) {
				case string:
					if !jsonTypes[t] {
						return t
					}
					continue
				case []any:
					for _, e := range t {
						if s, _ := e.(string); !jsonTypes[s] {
							return fmt.Sprint(e)
						}
					}
					continue
				}
			}
			if bad := badType(sub); bad != "" {
				return bad
			}
		}
	case []any:
		for _, e := range x {
			if bad := badType(e); bad != "" {
				return bad
			}
		}
	}
	return ""
}
