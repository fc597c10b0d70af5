package text

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// ToolResult is `bonsai tool --json`'s shape of a result: isError is
// always shown.
type ToolResult struct {
	Content []llm.Part `json:"content"`
	IsError bool       `json:"isError"`
	Details any        `json:"details,omitempty"`
}

// ToolSpec is one tool of `bonsai tool --list --json`.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ToolSpecs are the tools' names, descriptions and schemas.
func ToolSpecs(ts []tool.Tool) []ToolSpec {
	var specs []ToolSpec
	for _, t := range ts {
		specs = append(specs, ToolSpec{t.Name(), t.Description(), t.Schema()})
	}
	return specs
}

// WriteToolResult writes a result's text parts, and a line per image; the
// text's control characters show as escapes (--json has the exact text).
func WriteToolResult(w io.Writer, r tool.Result) error {
	for _, c := range r.Content {
		var err error
		if c.Type == llm.PartImage {
			_, err = fmt.Fprintf(w, "[image %s, %d bytes base64]\n", c.MimeType, len(c.Data))
		} else {
			_, err = fmt.Fprintln(w, termsafe.Text(c.Text))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteTools prints each tool's name, description and schema.
func WriteTools(w io.Writer, ts []tool.Tool) error {
	for i, t := range ts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if _, err := fmt.Fprintf(w, "%s\n  %s\n  schema: %s\n", t.Name(), t.Description(), t.Schema()); err != nil {
			return err
		}
	}
	return nil
}
