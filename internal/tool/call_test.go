package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// echo is a tool that answers its arguments, or does what run says.
type echo struct {
	schema string
	run    func(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error)
}

func (e *echo) Name() string        { return "echo" }
func (e *echo) Description() string { return "Echoes its arguments." }
func (e *echo) Schema() json.RawMessage {
	if e.schema != "" {
		return json.RawMessage(e.schema)
	}
	return json.RawMessage(`{"type":"object","properties":{"say":{"type":"string"}},"required":["say"],"additionalProperties":false}`)
}
func (e *echo) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	if e.run != nil {
		return e.run(ctx, args, update)
	}
	return tool.Text(string(args)), nil
}

// strict validates its own arguments.
type strict struct{ echo }

func (s *strict) Validate(json.RawMessage) error {
	return errors.New("invalid arguments for echo: always")
}
func (s *strict) ReadOnly() bool { return true }

func check(t *testing.T, tl tool.Tool) *tool.Checked {
	t.Helper()
	c, err := tool.Check(tl)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCall_ValidatesBySchemaOrByTheTool(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		tool tool.Tool
		args string
		want string
		err  bool
	}{
		{"valid", &echo{}, `{"say":"hi"}`, `{"say":"hi"}`, false},
		{"schema", &echo{}, `{"say":3}`, "Invalid arguments for echo: say: must be a string, got a number (3)", true},
		{"missing", &echo{}, ``, "Invalid arguments for echo: missing required argument", true},
		{"not an object", &echo{}, `"say hi"`, "Invalid arguments for echo: not a JSON object: say hi", true},
		{"own validator", &strict{}, `{"say":"hi"}`, "invalid arguments for echo: always", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, tc.tool).Call(ctx, json.RawMessage(tc.args), nil)
			if r.IsError != tc.err || !strings.HasPrefix(r.Text(), tc.want) {
				t.Errorf("Call(%s) = %+v, want %q (error %v)", tc.args, r, tc.want, tc.err)
			}
		})
	}
}

func TestCall_PanicsAndErrorsBecomeResults(t *testing.T) {
	panics := &echo{run: func(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
		var m map[string]int
		m["x"] = 1
		return tool.Result{}, nil
	}}
	r := tool.Call(context.Background(), panics, json.RawMessage(`{"say":"hi"}`), nil)
	if !r.IsError || !strings.HasPrefix(r.Text(), "Tool echo failed: internal error: assignment to entry in nil map") {
		t.Errorf("panic: %+v", r)
	}

	fails := &echo{run: func(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
		return tool.Result{}, errors.New("disk gone")
	}}
	c := check(t, fails)
	if _, err := c.Run(context.Background(), json.RawMessage(`{"say":"hi"}`), nil); err == nil || err.Error() != "disk gone" {
		t.Errorf("Run error = %v, want the tool's", err)
	}
	if r := c.Call(context.Background(), json.RawMessage(`{"say":"hi"}`), nil); !r.IsError || r.Text() != "Tool echo failed: disk gone" {
		t.Errorf("Call = %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := c.Call(ctx, json.RawMessage(`{"say":"hi"}`), nil); !r.IsError || r.Text() != "Tool echo was aborted: disk gone" {
		t.Errorf("Call after cancel = %+v", r)
	}
}

func TestCall_UpdatesReachTheHost(t *testing.T) {
	streams := &echo{run: func(_ context.Context, _ json.RawMessage, update func(tool.Result)) (tool.Result, error) {
		update(tool.Text("half"))
		return tool.Text("done"), nil
	}}
	// A nil update is replaced, so tools may always call it.
	if r := tool.Call(context.Background(), streams, json.RawMessage(`{"say":"x"}`), nil); r.Text() != "done" {
		t.Fatalf("nil update: %+v", r)
	}
	var got []string
	tool.Call(context.Background(), streams, json.RawMessage(`{"say":"x"}`), func(p tool.Result) { got = append(got, p.Text()) })
	if strings.Join(got, ",") != "half" {
		t.Errorf("updates = %q", got)
	}
}

func TestCheck(t *testing.T) {
	if _, err := tool.Check(&echo{schema: `{"type":"object","minLength":"x"}`}); err == nil || !strings.Contains(err.Error(), "schema of tool echo") {
		t.Errorf("bad schema: %v", err)
	}
	if r := tool.Call(context.Background(), &echo{schema: `{"type":"object","minLength":"x"}`}, nil, nil); !r.IsError {
		t.Errorf("Call with a bad schema = %+v", r)
	}
	if c := check(t, &strict{}); !c.ReadOnly() || c.Tool().Name() != "echo" {
		t.Errorf("strict: read-only %v", c.ReadOnly())
	}
	if check(t, &echo{}).ReadOnly() {
		t.Error("echo is read-only")
	}
}

// TestResult_JSON keeps the shape events carry and sessions store.
func TestResult_JSON(t *testing.T) {
	for _, tc := range []struct {
		r    tool.Result
		want string
	}{
		{tool.Text("ok"), `{"content":[{"type":"text","text":"ok"}]}`},
		{tool.Errorf("no %s", "file"), `{"content":[{"type":"text","text":"no file"}],"isError":true}`},
		{tool.Result{Content: []llm.Part{llm.Image("image/png", "AAAA")}, Details: map[string]int{"bytes": 3}, Terminate: true},
			`{"content":[{"type":"image","mimeType":"image/png","data":"AAAA"}],"details":{"bytes":3}}`},
	} {
		b, err := json.Marshal(tc.r)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal = %s, %v; want %s", b, err, tc.want)
		}
	}
	if d := tool.Text("x").DetailsJSON(); d != nil {
		t.Errorf("no details = %s", d)
	}
	if d := (tool.Result{Details: struct{ A string }{"<b>"}}).DetailsJSON(); string(d) != `{"A":"\u003cb\u003e"}` {
		t.Errorf("details = %s", d)
	}
	if d := (tool.Result{Details: func() {}}).DetailsJSON(); !strings.Contains(string(d), "unsupported type") {
		t.Errorf("unencodable details = %s", d)
	}
}
