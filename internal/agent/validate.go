package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
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
	s, err := compileSchema(t.Name(), t.Schema())
	if err != nil {
		return nil, err
	}
	e.validate = func(args json.RawMessage) error { return validateArgs(s, args) }
	return e, nil
}

func compileSchema(name string, schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema of tool %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	url := "mem:///tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema of tool %s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema of tool %s: %w", name, err)
	}
	return s, nil
}

// validateArgs checks args against s and lists every problem, each with
// the argument it concerns.
func validateArgs(s *jsonschema.Schema, args json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	err = s.Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var problems []string
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			if loc := strings.TrimPrefix(u.InstanceLocation, "/"); loc != "" {
				problems = append(problems, loc+": "+u.Error.String())
			} else {
				problems = append(problems, u.Error.String())
			}
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	walk(*ve.BasicOutput())
	sort.Strings(problems)
	return errors.New(strings.Join(problems, "; "))
}
