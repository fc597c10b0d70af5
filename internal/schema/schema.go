package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Schema is a compiled schema.
type Schema struct {
	types      []string // empty: any type
	properties map[string]*Schema
	required   []string
	// additional is nil when additionalProperties is absent or true, the
	// schema extra properties must match otherwise; noAdditional forbids them.
	additional   *Schema
	noAdditional bool
	enum         []any
	constant     any
	hasConst     bool
	minimum      *float64
	maximum      *float64
	exclMinimum  *float64
	exclMaximum  *float64
	minLength    *int
	maxLength    *int
	items        *Schema
	minItems     *int
	maxItems     *int
}

// annotations are keywords that describe but do not constrain.
var annotations = []string{"description", "title", "default", "examples", "$schema", "$id", "$comment"}

// Compile parses a schema document.
func Compile(doc []byte) (*Schema, error) {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	return compile(raw, "")
}

// MustCompile is Compile for schemas written in the program; it panics on
// an error.
func MustCompile(doc string) *Schema {
	s, err := Compile([]byte(doc))
	if err != nil {
		panic(err)
	}
	return s
}

func compile(raw any, at string) (*Schema, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		if b, ok := raw.(bool); ok && b {
			return &Schema{}, nil
		}
		return nil, fmt.Errorf("schema%s: must be an object", where(at))
	}
	s := &Schema{}
	for k, v := range obj {
		var err error
		switch k {
		case "type":
			s.types, err = compileTypes(v)
		case "properties":
			s.properties, err = compileProperties(v, at)
		case "required":
			s.required, err = stringList(v)
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				s.noAdditional = !b
			} else {
				s.additional, err = compile(v, join(at, "*"))
			}
		case "enum":
			list, ok := v.([]any)
			if !ok || len(list) == 0 {
				err = fmt.Errorf("must be a non-empty array")
			}
			s.enum = list
		case "const":
			s.constant, s.hasConst = v, true
		case "minimum":
			s.minimum, err = number(v)
		case "maximum":
			s.maximum, err = number(v)
		case "exclusiveMinimum":
			s.exclMinimum, err = number(v)
		case "exclusiveMaximum":
			s.exclMaximum, err = number(v)
		case "minLength":
			s.minLength, err = count(v)
		case "maxLength":
			s.maxLength, err = count(v)
		case "minItems":
			s.minItems, err = count(v)
		case "maxItems":
			s.maxItems, err = count(v)
		case "items":
			s.items, err = compile(v, join(at, "[]"))
		default:
			if !slices.Contains(annotations, k) {
				err = fmt.Errorf("keyword is not supported")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("schema%s: %s: %w", where(at), k, err)
		}
	}
	return s, nil
}

var knownTypes = []string{"object", "array", "string", "integer", "number", "boolean", "null"}

func compileTypes(v any) ([]string, error) {
	var ts []string
	switch x := v.(type) {
	case string:
		ts = []string{x}
	case []any:
		var err error
		if ts, err = stringList(x); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("must be a string or an array of strings")
	}
	for _, t := range ts {
		if !slices.Contains(knownTypes, t) {
			return nil, fmt.Errorf("unknown type %q", t)
		}
	}
	return ts, nil
}

func compileProperties(v any, at string) (map[string]*Schema, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be an object")
	}
	props := make(map[string]*Schema, len(obj))
	for name, sub := range obj {
		s, err := compile(sub, join(at, name))
		if err != nil {
			return nil, err
		}
		props[name] = s
	}
	return props, nil
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be an array of strings")
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("must be an array of strings")
		}
		out = append(out, s)
	}
	return out, nil
}

func number(v any) (*float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("must be a number")
	}
	f, err := n.Float64()
	return &f, err
}

func count(v any) (*int, error) {
	f, err := number(v)
	if err != nil || *f < 0 || *f != float64(int(*f)) {
		return nil, fmt.Errorf("must be a non-negative integer")
	}
	n := int(*f)
	return &n, nil
}

// join extends a location: properties with ".", array items with "[]".
func join(at, name string) string {
	switch {
	case at == "":
		return name
	case strings.HasPrefix(name, "["):
		return at + name
	}
	return at + "." + name
}

func where(at string) string {
	if at == "" {
		return ""
	}
	return " at " + at
}

// Validate checks a JSON document against s and returns every problem,
// sorted, each naming the argument it concerns. Empty input counts as {}.
func (s *Schema) Validate(doc []byte) []string {
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte("{}")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return []string{"arguments are not valid JSON: " + err.Error()}
	}
	if dec.More() {
		return []string{"arguments are not valid JSON: extra data after the value"}
	}
	var problems []string
	s.check(v, "", &problems)
	sort.Strings(problems)
	return problems
}
