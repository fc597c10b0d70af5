package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// check validates v at location at, appending problems.
func (s *Schema) check(v any, at string, problems *[]string) {
	add := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if at != "" {
			msg = at + ": " + msg
		}
		*problems = append(*problems, msg)
	}
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		add("must be %s, got %s", typeList(s.types), describe(v))
		return
	}
	if s.hasConst && !equal(v, s.constant) {
		add("must be %s", show(s.constant))
	}
	if len(s.enum) > 0 && !slices.ContainsFunc(s.enum, func(e any) bool { return equal(v, e) }) {
		shown := make([]string, len(s.enum))
		for i, e := range s.enum {
			shown[i] = show(e)
		}
		add("must be one of %s, got %s", strings.Join(shown, ", "), show(v))
	}
	switch x := v.(type) {
	case json.Number:
		s.checkNumber(x, add)
	case string:
		n := utf8.RuneCountInString(x)
		if s.minLength != nil && n < *s.minLength {
			if *s.minLength == 1 {
				add("must not be empty")
			} else {
				add("must be at least %d characters, got %d", *s.minLength, n)
			}
		}
		if s.maxLength != nil && n > *s.maxLength {
			add("must be at most %d characters, got %d", *s.maxLength, n)
		}
	case []any:
		if s.minItems != nil && len(x) < *s.minItems {
			if *s.minItems == 1 {
				add("must not be empty")
			} else {
				add("must have at least %d items, got %d", *s.minItems, len(x))
			}
		}
		if s.maxItems != nil && len(x) > *s.maxItems {
			add("must have at most %d items, got %d", *s.maxItems, len(x))
		}
		if s.items != nil {
			for i, item := range x {
				s.items.check(item, at+"["+strconv.Itoa(i)+"]", problems)
			}
		}
	case map[string]any:
		s.checkObject(x, at, add, problems)
	}
}

func (s *Schema) checkNumber(n json.Number, add func(string, ...any)) {
	f, err := n.Float64()
	if err != nil {
		add("is not a usable number: %s", n)
		return
	}
	if s.minimum != nil && f < *s.minimum {
		add("must be at least %s, got %s", fmtNum(*s.minimum), n)
	}
	if s.maximum != nil && f > *s.maximum {
		add("must be at most %s, got %s", fmtNum(*s.maximum), n)
	}
	if s.exclMinimum != nil && f <= *s.exclMinimum {
		add("must be greater than %s, got %s", fmtNum(*s.exclMinimum), n)
	}
	if s.exclMaximum != nil && f >= *s.exclMaximum {
		add("must be less than %s, got %s", fmtNum(*s.exclMaximum), n)
	}
}

func (s *Schema) checkObject(obj map[string]any, at string, add func(string, ...any), problems *[]string) {
	for _, name := range s.required {
		if _, ok := obj[name]; !ok {
			add("missing required argument %q", name)
		}
	}
	for name, val := range obj {
		if sub, ok := s.properties[name]; ok {
			sub.check(val, join(at, name), problems)
			continue
		}
		switch {
		case s.noAdditional:
			add("unknown argument %q (the arguments are %s)", name, s.propertyNames())
		case s.additional != nil:
			s.additional.check(val, join(at, name), problems)
		}
	}
}

// hasType reports whether v is of JSON Schema type t.
func hasType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	case json.Number:
		if t == "number" {
			return true
		}
		if t == "integer" {
			if _, err := x.Int64(); err == nil {
				return true
			}
			f, err := x.Float64()
			return err == nil && f == float64(int64(f))
		}
	}
	return false
}

// describe names v's type for a message, with the value when it is short.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean (" + strconv.FormatBool(x) + ")"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case json.Number:
		return "a number (" + x.String() + ")"
	}
	return fmt.Sprintf("%T", v)
}

func typeList(ts []string) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		switch t {
		case "object", "array", "integer":
			names[i] = "an " + t
		default:
			names[i] = "a " + t
		}
	}
	return strings.Join(names, " or ")
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// equal compares two decoded JSON values, numbers by value.
func equal(a, b any) bool {
	na, aok := a.(json.Number)
	nb, bok := b.(json.Number)
	if aok && bok {
		fa, err1 := na.Float64()
		fb, err2 := nb.Float64()
		return err1 == nil && err2 == nil && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

// propertyNames lists the declared properties, sorted, for an error that
// tells the model what it may send instead.
func (s *Schema) propertyNames() string {
	names := make([]string, 0, len(s.properties))
	for n := range s.properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
