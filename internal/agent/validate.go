package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/schema"
)

// toolEntry is a tool with its argument validator.
type toolEntry struct {
	tool     Tool
	validate func(args json.RawMessage) error
	readOnly bool
}

func newToolEntry(t Tool) (*toolEntry, error) {
	e := &toolEntry{tool: t}
	if ro, ok := t.(ReadOnly); ok {
		e.readOnly = ro.ReadOnly()
	}
	if v, ok := t.(Validator); ok {
		e.validate = v.Validate
		return e, nil
	}
	s, err := schema.Compile(t.Schema())
	if err != nil {
		return nil, fmt.Errorf("schema of tool %s: %w", t.Name(), err)
	}
	e.validate = func(args json.RawMessage) error {
		if problems := s.Validate(args); len(problems) > 0 {
			return errors.New(strings.Join(problems, "; "))
		}
		return nil
	}
	return e, nil
}
