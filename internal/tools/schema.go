package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/schema"
)

// ValidationError says why arguments do not match a tool's schema.
type ValidationError struct {
	Tool     string   // the tool's name
	Problems []string // one per failing argument, sorted
}

// Error lists every problem on one line.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %s", e.Tool, strings.Join(e.Problems, "; "))
}

type validator struct {
	tool   string
	schema *schema.Schema
}

func mustValidator(tool, doc string) *validator {
	v, err := newValidator(tool, doc)
	if err != nil {
		panic(err)
	}
	return v
}

func newValidator(tool, doc string) (*validator, error) {
	s, err := schema.Compile([]byte(doc))
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", tool, err)
	}
	return &validator{tool: tool, schema: s}, nil
}

func (v *validator) validate(args json.RawMessage) error {
	if problems := v.schema.Validate(args); problems != nil {
		return &ValidationError{Tool: v.tool, Problems: problems}
	}
	return nil
}

func compact(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.Bytes()
}
