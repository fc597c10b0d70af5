package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
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

// Validate checks args against t's schema. It returns a *ValidationError
// for arguments that do not match and nil otherwise.
func Validate(t Tool, args json.RawMessage) error {
	if v, ok := t.(interface{ validator() *validator }); ok {
		return v.validator().validate(args)
	}
	v, err := newValidator(t.Name(), string(t.Schema()))
	if err != nil {
		return err
	}
	return v.validate(args)
}

func (s spec) validator() *validator { return s.valid }

type validator struct {
	tool   string
	schema *jsonschema.Schema
}

func mustValidator(tool, schema string) *validator {
	v, err := newValidator(tool, schema)
	if err != nil {
		panic(err)
	}
	return v
}

func newValidator(tool, schema string) (*validator, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", tool, err)
	}
	c := jsonschema.NewCompiler()
	url := "mem:///" + tool + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", tool, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", tool, err)
	}
	return &validator{tool: tool, schema: s}, nil
}

func (v *validator) validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &ValidationError{Tool: v.tool, Problems: []string{"arguments are not valid JSON: " + err.Error()}}
	}
	err = v.schema.Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var problems []string
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			loc := strings.TrimPrefix(u.InstanceLocation, "/")
			if loc == "" {
				problems = append(problems, u.Error.String())
			} else {
				problems = append(problems, loc+": "+u.Error.String())
			}
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	walk(*ve.BasicOutput())
	sort.Strings(problems)
	return &ValidationError{Tool: v.tool, Problems: problems}
}

func compact(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.Bytes()
}
