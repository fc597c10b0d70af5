package tickettool

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed *.md
var descriptions embed.FS

// Tool is one ticket tool the model can call.
type Tool interface {
	// Name is the name the model calls the tool by.
	Name() string
	// Description tells the model what the tool does.
	Description() string
	// Schema is the JSON schema of the arguments.
	Schema() json.RawMessage
	// Run executes one call. Refusals are results with IsError; the error
	// is for runtime failures only.
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Result is what a call returns to the model.
type Result struct {
	// Text is what the model reads.
	Text string
	// IsError reports whether the call failed or was refused.
	IsError bool
	// Terminate asks the agent loop to end the run after this turn
	// (ticket_ask: the agent waits for a person).
	Terminate bool
	// Details holds structured data for the UI.
	Details any
}

func ok(format string, args ...any) Result { return Result{Text: fmt.Sprintf(format, args...)} }

func refuse(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// tool is the common part of the four tools.
type tool struct {
	name   string
	schema json.RawMessage
	run    func(ctx context.Context, args json.RawMessage) (Result, error)
}

func (t *tool) Name() string            { return t.name }
func (t *tool) Schema() json.RawMessage { return t.schema }

// Description reads the tool's embedded <name>.md.
func (t *tool) Description() string {
	b, err := descriptions.ReadFile(t.name + ".md")
	if err != nil {
		panic("tickettool: missing description " + t.name + ".md")
	}
	return strings.TrimSpace(string(b))
}

// Run decodes nothing itself: each tool decodes its arguments strictly and
// turns a decoding failure into a result the model reads. A panic becomes
// an error result too.
func (t *tool) Run(ctx context.Context, args json.RawMessage) (r Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = refuse("%s failed: %v", t.name, p), nil
		}
	}()
	return t.run(ctx, args)
}

// decode unmarshals args into v, refusing unknown fields.
func decode(name string, args json.RawMessage, v any) *Result {
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
