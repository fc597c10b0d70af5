package tools

import (
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// readOnly names the tools that never change the workspace; the agent
// runs their calls of one turn in parallel.
var readOnly = map[string]bool{"read": true, "grep": true, "find": true, "ls": true}

func textResult(text string, details any) tool.Result {
	return tool.Result{Content: []llm.Part{llm.Text(text)}, Details: details}
}

func errorResult(format string, args ...any) tool.Result {
	return tool.Errorf(format, args...)
}

// spec holds what every tool has: name, description and compiled schema.
type spec struct {
	name   string
	desc   string
	schema json.RawMessage
	valid  *validator
}

func newSpec(name, desc, schema string) spec {
	return spec{name: name, desc: desc, schema: compact(schema), valid: mustValidator(name, schema)}
}

// Name implements tool.Tool.
func (s spec) Name() string { return s.name }

// Description implements tool.Tool.
func (s spec) Description() string { return s.desc }

// Schema implements tool.Tool.
func (s spec) Schema() json.RawMessage { return s.schema }

// ReadOnly implements tool.ReadOnly: read, grep, find and ls never change
// the workspace.
func (s spec) ReadOnly() bool { return readOnly[s.name] }

// Validate implements tool.Validator. It returns a *ValidationError for
// arguments that do not match the schema.
func (s spec) Validate(args json.RawMessage) error { return s.valid.validate(args) }

// decode decodes args, which the host validated (tool.Checked.Call), into
// v; a failure is a result the model reads.
func (s spec) decode(args json.RawMessage, v any) *tool.Result {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		r := errorResult("invalid arguments for %s: %v", s.name, err)
		return &r
	}
	return nil
}

var (
	_ tool.ReadOnly  = spec{}
	_ tool.Validator = spec{}
)
