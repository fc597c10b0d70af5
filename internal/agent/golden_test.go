package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden_Transcripts runs representative sessions and compares the
// session file and the event trace with testdata/golden.
func TestGolden_Transcripts(t *testing.T) {
	t.Parallel()
	files := map[string]string{"main.go": "package main\n\nfunc main() { println(\"hi\") }\n"}
	read := &fakeTool{name: "read", readOnly: true, run: func(_ context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
		var a struct{ Path string }
		json.Unmarshal(args, &a)
		if c, ok := files[a.Path]; ok {
			return tool.Text(c), nil
		}
		return tool.Error(a.Path + ": no such file"), nil
	}}
	edit := &fakeTool{name: "edit", schema: `{"type":"object","properties":{"path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"}},"required":["path","old_string","new_string"]}`,
		run: func(_ context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
			r := tool.Text("Edited main.go")
			r.Details = json.RawMessage(`{"diff":"-hi\n+hello"}`)
			return r, nil
		}}
	var a *agent.Agent
	tests := []struct {
		name   string
		turns  []llmtest.Turn
		during func() // called while the first tool runs
	}{
		{name: "edit", turns: []llmtest.Turn{
			turn("I'll read it first.", call("t1", "read", `{"path":"main.go"}`), call("t2", "read", `{"path":"nope.go"}`)),
			turn("", call("t3", "edit", `{"path":"main.go","old_string":"hi","new_string":"hello"}`)),
			turn("Changed the greeting to hello."),
		}},
		{name: "bad_call", turns: []llmtest.Turn{
			turn("", call("t1", "edit", `{"path":"main.go"}`), call("t2", "shell", `{}`)),
			turn("Sorry, giving up."),
		}},
		{name: "steer", turns: []llmtest.Turn{
			turn("", call("t1", "edit", `{"path":"main.go","old_string":"a","new_string":"b"}`), call("t2", "read", `{"path":"main.go"}`)),
			turn("Stopped as asked."),
		}, during: func() { a.Steer(llm.UserText("Wait, don't edit anything.")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			s, err := session.Create(path, "project", fixedOptions())
			if err != nil {
				t.Fatal(err)
			}
			e := edit
			if tt.during != nil {
				e = &fakeTool{name: "edit", schema: edit.schema, run: func(ctx context.Context, args json.RawMessage, u func(tool.Result)) (tool.Result, error) {
					tt.during()
					return edit.run(ctx, args, u)
				}}
			}
			var rec *recorder
			a, rec = newAgent(t, llmtest.NewModel(tt.turns...), agent.Config{Session: s}, read, e)
			a.Prompt(context.Background(), llm.UserText("Say hello instead of hi in main.go."))
			s.Close()
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name+".jsonl", got)
			checkGolden(t, tt.name+".events", []byte(rec.trace()+"\n"))
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
