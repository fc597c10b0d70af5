package tool

import (
	"context"
	"encoding/json"
)

// Tool is a tool the model can call.
type Tool interface {
	// Name is the name the model calls the tool by.
	Name() string
	// Description tells the model what the tool does.
	Description() string
	// Schema is the JSON schema of the arguments (an object schema).
	Schema() json.RawMessage
	// Run executes one call. Hosts validate the arguments first (see
	// [Checked.Call]); update, when not nil, receives partial results
	// while the tool runs. A failure the model should read is a result
	// with IsError; the error is for failures of the runtime itself.
	Run(ctx context.Context, args json.RawMessage, update func(Result)) (Result, error)
}

// ReadOnly is implemented by tools that never change anything; the agent
// runs the read-only calls of one turn in parallel.
type ReadOnly interface {
	ReadOnly() bool
}

// Validator is implemented by tools that validate their own arguments;
// hosts then use it instead of compiling Schema.
type Validator interface {
	Validate(args json.RawMessage) error
}
