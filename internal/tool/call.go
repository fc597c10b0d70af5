package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/schema"
)

// Checked is a tool with its argument validation prepared: the tool's own
// Validator, or its compiled Schema.
type Checked struct {
	tool     Tool
	validate func(args json.RawMessage) error
	readOnly bool
}

// Check prepares t for calls. It fails when t validates by Schema and the
// schema does not compile.
func Check(t Tool) (*Checked, error) {
	c := &Checked{tool: t}
	if ro, ok := t.(ReadOnly); ok {
		c.readOnly = ro.ReadOnly()
	}
	if v, ok := t.(Validator); ok {
		c.validate = v.Validate
		return c, nil
	}
	s, err := schema.Compile(t.Schema())
	if err != nil {
		return nil, fmt.Errorf("schema of tool %s: %w", t.Name(), err)
	}
	c.validate = func(args json.RawMessage) error {
		if problems := s.Validate(args); len(problems) > 0 {
			return errors.New(strings.Join(problems, "; "))
		}
		return nil
	}
	return c, nil
}

// Tool returns the tool c checks.
func (c *Checked) Tool() Tool { return c.tool }

// ReadOnly reports whether the tool never changes anything.
func (c *Checked) ReadOnly() bool { return c.readOnly }

// Validate checks args, which must be a JSON object, and returns an error
// the model can read.
func (c *Checked) Validate(args json.RawMessage) error {
	name := c.tool.Name()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if args[0] == '"' {
		// llm.ToolArguments wraps arguments that did not parse as a string.
		var raw string
		_ = json.Unmarshal(args, &raw)
		return fmt.Errorf("Invalid arguments for %s: not a JSON object: %s", name, clip(raw, 200))
	}
	if err := c.validate(args); err != nil {
		if strings.Contains(err.Error(), name) {
			return err
		}
		return fmt.Errorf("Invalid arguments for %s: %w", name, err)
	}
	return nil
}

// Run runs one call: it validates args and runs the tool. Arguments that
// are not a JSON object or do not match, and a panic of the tool, are
// results with IsError; the error is the tool's runtime failure. update,
// when not nil, receives partial results.
func (c *Checked) Run(ctx context.Context, args json.RawMessage, update func(Result)) (res Result, err error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if err := c.Validate(args); err != nil {
		return Error(err.Error()), nil
	}
	if update == nil {
		update = func(Result) {}
	}
	defer func() {
		if p := recover(); p != nil {
			res, err = Errorf("Tool %s failed: internal error: %v", c.tool.Name(), p), nil
		}
	}()
	return c.tool.Run(ctx, args, update)
}

// Call is Run for the agent loop: every failure the model can act on is a
// result with IsError, the runtime failure of the tool too.
func (c *Checked) Call(ctx context.Context, args json.RawMessage, update func(Result)) Result {
	res, err := c.Run(ctx, args, update)
	if err != nil {
		name := c.tool.Name()
		if ctx.Err() != nil {
			return Errorf("Tool %s was aborted: %v", name, err)
		}
		return Errorf("Tool %s failed: %v", name, err)
	}
	return res
}

// Call checks t and runs one call of it; see [Checked.Call]. A schema
// that does not compile is an error result.
func Call(ctx context.Context, t Tool, args json.RawMessage, update func(Result)) Result {
	c, err := Check(t)
	if err != nil {
		return Error(err.Error())
	}
	return c.Call(ctx, args, update)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
