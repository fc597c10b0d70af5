package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// Tool is one tool the model can call.
type Tool interface {
	// Name is the name the model calls the tool by.
	Name() string
	// Description tells the model what the tool does.
	Description() string
	// Schema is the JSON schema of the arguments.
	Schema() json.RawMessage
	// Run executes one call. Arguments are validated against Schema first;
	// update, when not nil, receives partial results while the tool runs
	// (bash streams its output). The returned error is for runtime failures
	// only.
	Run(ctx context.Context, args json.RawMessage, update UpdateFunc) (Result, error)
}

// UpdateFunc receives a partial result of a running tool.
type UpdateFunc func(partial Result)

// Result is what a tool call returns to the model and the UI.
type Result struct {
	// Content is what the model reads.
	Content []Content `json:"content"`
	// IsError reports whether the call failed.
	IsError bool `json:"isError"`
	// Details holds structured data for the UI (line counts, truncation,
	// diff, exit code, duration); the model does not see it.
	Details any `json:"details,omitempty"`
}

// Content is one part of a result: text or an image.
type Content struct {
	// Type is "text" or "image".
	Type string `json:"type"`
	// Text is set for text parts.
	Text string `json:"text,omitempty"`
	// MIMEType is set for image parts, such as "image/png".
	MIMEType string `json:"mimeType,omitempty"`
	// Data is the base64-encoded image.
	Data string `json:"data,omitempty"`
}

// Text returns the concatenated text parts of r.
func (r Result) Text() string {
	s := ""
	for _, c := range r.Content {
		if c.Type == "text" {
			s += c.Text
		}
	}
	return s
}

func textResult(text string, details any) Result {
	return Result{Content: []Content{{Type: "text", Text: text}}, Details: details}
}

func errorResult(format string, args ...any) Result {
	return Result{Content: []Content{{Type: "text", Text: fmt.Sprintf(format, args...)}}, IsError: true}
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

func (s spec) Name() string            { return s.name }
func (s spec) Description() string     { return s.desc }
func (s spec) Schema() json.RawMessage { return s.schema }

// decode validates args and decodes them into v; a failure is a result the
// model reads.
func (s spec) decode(args json.RawMessage, v any) *Result {
	if err := s.valid.validate(args); err != nil {
		r := errorResult("%v", err)
		return &r
	}
	if err := json.Unmarshal(args, v); err != nil {
		r := errorResult("invalid arguments for %s: %v", s.name, err)
		return &r
	}
	return nil
}

// safeRun runs fn, turning a panic into an error result.
func safeRun(name string, fn func() (Result, error)) (r Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = errorResult("tool %s failed: %v", name, p), nil
		}
	}()
	return fn()
}
