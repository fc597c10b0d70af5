package tickettool

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed *.md
var descriptions embed.FS

func ok(format string, args ...any) tool.Result { return tool.Text(fmt.Sprintf(format, args...)) }

func refuse(format string, args ...any) tool.Result { return tool.Errorf(format, args...) }

// ticketTool is the common part of the four tools. It implements
// tool.Tool; the host validates the arguments against the schema and
// recovers panics (tool.Checked.Call).
type ticketTool struct {
	name   string
	schema json.RawMessage
	run    func(ctx context.Context, args json.RawMessage) (tool.Result, error)
}

var _ tool.Tool = (*ticketTool)(nil)

// Name implements tool.Tool.
func (t *ticketTool) Name() string { return t.name }

// Schema implements tool.Tool.
func (t *ticketTool) Schema() json.RawMessage { return t.schema }

// Description reads the tool's embedded <name>.md.
func (t *ticketTool) Description() string {
	b, err := descriptions.ReadFile(t.name + ".md")
	if err != nil {
		panic("tickettool: missing description " + t.name + ".md")
	}
	return strings.TrimSpace(string(b))
}

// Run implements tool.Tool. Each tool decodes its arguments strictly and
// turns a decoding failure into a result the model reads; the ticket
// tools send no partial results.
func (t *ticketTool) Run(ctx context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	return t.run(ctx, args)
}

// decode unmarshals args into v, refusing unknown fields.
func decode(name string, args json.RawMessage, v any) *tool.Result {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		r := refuse("invalid arguments for %s: %v", name, err)
		return &r
	}
	return nil
}
