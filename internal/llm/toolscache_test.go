package llm_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// The same list is encoded once; a list whose content differs in any
// field, even changed in place, is encoded again; an error is not kept.
func TestToolsCache_EncodesOnceAList(t *testing.T) {
	var c llm.ToolsCache
	calls := 0
	encode := func(specs []llm.ToolSpec) ([]byte, error) {
		calls++
		return json.Marshal(specs)
	}
	specs := []llm.ToolSpec{
		{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"properties":{"path":{"type":"string"}}}`)},
		{Name: "bash", Description: "Run a command.", Parameters: json.RawMessage(`{"properties":{"command":{"type":"string"}}}`)},
	}
	check := func(what string, wantCalls int) {
		t.Helper()
		got, err := c.Encode(specs, encode)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want, _ := json.Marshal(specs)
		if string(got) != string(want) {
			t.Errorf("%s: encoded %s, want %s", what, got, want)
		}
		if calls != wantCalls {
			t.Errorf("%s: %d encodings, want %d", what, calls, wantCalls)
		}
	}
	check("first", 1)
	check("the same list again", 1)
	specs = append([]llm.ToolSpec(nil), specs...) // a copy: same content
	check("a copy of it", 1)
	p := specs[1].Parameters
	copy(p[len(p)-11:], `"number"`) // changed in place
	check("parameters changed in place", 2)
	specs[0].Description = "Read a text file."
	check("a description changed", 3)
	specs = append(specs, llm.ToolSpec{Name: "ls"})
	check("a tool added", 4)
	specs = specs[:2]
	check("a tool removed", 5)

	bad := errors.New("bad schema")
	if _, err := c.Encode(specs[:1], func([]llm.ToolSpec) ([]byte, error) { return nil, bad }); !errors.Is(err, bad) {
		t.Fatalf("error = %v, want %v", err, bad)
	}
	if _, err := c.Encode(specs[:1], func([]llm.ToolSpec) ([]byte, error) { return nil, bad }); !errors.Is(err, bad) {
		t.Errorf("the second try of a list that failed = %v, want the error again", err)
	}
	check("the list encoded before the failure, still kept", 5)
}
