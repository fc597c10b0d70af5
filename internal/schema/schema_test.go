package schema

import (
	"strings"
	"testing"
)

const toolSchema = `{"type":"object","properties":{
"path":{"type":"string","description":"File path"},
"offset":{"type":"integer","minimum":1},
"timeout":{"type":"number","exclusiveMinimum":0},
"kind":{"type":"string","enum":["status","completion"]},
"criteria":{"type":"array","minItems":1,"items":{"type":"object","properties":{
  "criterion":{"type":"string","minLength":1},"evidence":{"type":"string"}},
  "required":["criterion","evidence"],"additionalProperties":false}},
"flag":{"type":"boolean"}},
"required":["path"],"additionalProperties":false}`

func TestValidate(t *testing.T) {
	s := MustCompile(toolSchema)
	tests := []struct {
		name, args string
		want       []string
	}{
		{"valid", `{"path":"a.go","offset":3,"timeout":0.5,"kind":"status","flag":true}`, nil},
		{"empty input is an empty object", ``, []string{`missing required argument "path"`}},
		{"missing", `{}`, []string{`missing required argument "path"`}},
		{"wrong type", `{"path":5}`, []string{"path: must be a string, got a number (5)"}},
		{"integer with fraction", `{"path":"a","offset":1.5}`, []string{"offset: must be an integer, got a number (1.5)"}},
		{"integer written as float", `{"path":"a","offset":2.0}`, nil},
		{"minimum", `{"path":"a","offset":0}`, []string{"offset: must be at least 1, got 0"}},
		{"exclusive minimum", `{"path":"a","timeout":0}`, []string{"timeout: must be greater than 0, got 0"}},
		{"enum", `{"path":"a","kind":"done"}`, []string{`kind: must be one of "status", "completion", got "done"`}},
		{"unknown argument", `{"path":"a","colour":1}`, []string{`unknown argument "colour" (the arguments are criteria, flag, kind, offset, path, timeout)`}},
		{"null", `{"path":null}`, []string{"path: must be a string, got null"}},
		{"several, sorted", `{"path":1,"offset":-1}`, []string{"offset: must be at least 1, got -1", "path: must be a string, got a number (1)"}},
		{"nested", `{"path":"a","criteria":[{"criterion":"x","evidence":"y"},{"criterion":"","extra":1}]}`, []string{
			"criteria[1].criterion: must not be empty",
			`criteria[1]: missing required argument "evidence"`,
			`criteria[1]: unknown argument "extra" (the arguments are criterion, evidence)`,
		}},
		{"min items", `{"path":"a","criteria":[]}`, []string{"criteria: must not be empty"}},
		{"not an object", `[1]`, []string{"must be an object, got an array"}},
		{"bad json", `{"path":`, []string{"arguments are not valid JSON: unexpected EOF"}},
		{"trailing data", `{"path":"a"} {}`, []string{"arguments are not valid JSON: extra data after the value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.Validate([]byte(tt.args))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("Validate(%s)\n got %q\nwant %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestCompile_Errors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"type":"object","pattern":"x"}`, "schema: pattern: keyword is not supported"},
		{`{"type":"thing"}`, `schema: type: unknown type "thing"`},
		{`{"properties":{"a":{"minimum":"x"}}}`, "schema at a: minimum: must be a number"},
		{`{"enum":[]}`, "schema: enum: must be a non-empty array"},
		{`{"minLength":-1}`, "schema: minLength: must be a non-negative integer"},
		{`[`, "schema is not valid JSON"},
		{`5`, "schema: must be an object"},
	}
	for _, tt := range tests {
		_, err := Compile([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%s) = %v, want %q", tt.doc, err, tt.want)
		}
	}
}

func TestValidate_TypeUnionAndConst(t *testing.T) {
	s := MustCompile(`{"type":["string","null"],"const":"x"}`)
	if p := s.Validate([]byte(`"x"`)); p != nil {
		t.Fatal(p)
	}
	if p := s.Validate([]byte(`3`)); len(p) != 1 || p[0] != "must be a string or a null, got a number (3)" {
		t.Fatal(p)
	}
	if p := s.Validate([]byte(`"y"`)); len(p) != 1 || p[0] != `must be "x"` {
		t.Fatal(p)
	}
}

func FuzzValidate(f *testing.F) {
	s := MustCompile(toolSchema)
	f.Add([]byte(`{"path":"a","criteria":[{"criterion":"x","evidence":"y"}]}`))
	f.Add([]byte(`{"offset":1e309}`))
	f.Add([]byte(`[[[[{}]]]]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		s.Validate(doc) // must not panic
	})
}

// BenchmarkValidate measures one argument check of a typical tool call.
// Target: well under 10 µs, negligible beside the tool itself.
func BenchmarkValidate(b *testing.B) {
	s := MustCompile(toolSchema)
	args := []byte(`{"path":"internal/agent/loop.go","offset":120,"kind":"status"}`)
	for b.Loop() {
		if p := s.Validate(args); p != nil {
			b.Fatal(p)
		}
	}
}
