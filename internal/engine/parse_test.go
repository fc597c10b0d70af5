package engine_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// The recorded output of each real CLI (testdata, captured against the
// fake model server: one shell call, then "Done.") parses into the same
// transcript: the call, its result, the answer, and the run's usage.
func TestParseRecordedOutput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		e        engine.Engine
		file     string
		call     string
		in, out  int64
		wantText string
	}{
		{engine.Claude{}, "claude-stream.jsonl", "Bash", 200, 15, "Done."},
		{engine.OpenCode{}, "opencode-run.jsonl", "bash", 200, 15, "Done."},
		{engine.Codex{}, "codex-exec.jsonl", "shell", 200, 15, "Done."},
	} {
		t.Run(c.e.Name(), func(t *testing.T) {
			f, err := os.Open("testdata/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := c.e.NewParser()
			var (
				summary []string
				session string
				done    *engine.Done
				usage   llm.Usage
			)
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				evs, err := p.Line(sc.Bytes())
				if err != nil {
					t.Fatalf("%v: %s", err, sc.Text())
				}
				for _, ev := range evs {
					if ev.Session != "" {
						session = ev.Session
					}
					if ev.Done != nil {
						done = ev.Done
					}
					m := ev.Message
					if m == nil {
						continue
					}
					if m.Usage != nil {
						usage = usage.Add(*m.Usage)
					}
					switch {
					case m.Role == llm.RoleToolResult:
						summary = append(summary, "result:"+strings.TrimSpace(m.Text()))
					case len(m.ToolCalls()) > 0:
						summary = append(summary, "call:"+m.ToolCalls()[0].Name)
					case m.Text() != "":
						summary = append(summary, "text:"+m.Text())
					}
				}
			}
			want := "call:" + c.call + " result:hi text:" + c.wantText
			if got := strings.Join(summary, " "); !strings.HasSuffix(got, want) {
				t.Errorf("transcript %q, want it to end with %q", got, want)
			}
			if session == "" {
				t.Error("no session id")
			}
			if done == nil || done.Error != "" || done.Text != c.wantText {
				t.Fatalf("done %+v", done)
			}
			if done.Usage.Input+done.Usage.CacheRead != c.in || done.Usage.Output != c.out {
				t.Errorf("done usage %+v, want %d in, %d out", done.Usage, c.in, c.out)
			}
			if !done.Cumulative && (usage.Input != done.Usage.Input || usage.Output != done.Usage.Output) {
				t.Errorf("the messages' usage %+v differs from the result's %+v", usage, done.Usage)
			}
		})
	}
}

// In the recorded output of Claude Code and Codex every tool call is
// shown running (a live Tool step) before its result; OpenCode prints a
// call only once it finished, so its calls show with their results.
func TestParseRecordedToolStarts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		e    engine.Engine
		file string
		live int // calls shown running
	}{
		{engine.Claude{}, "claude-stream.jsonl", 1},
		{engine.Codex{}, "codex-exec.jsonl", 1},
		{engine.OpenCode{}, "opencode-run.jsonl", 0},
	} {
		t.Run(c.e.Name(), func(t *testing.T) {
			f, err := os.Open("testdata/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := c.e.NewParser()
			running := map[string]string{}
			shown, results := 0, 0
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				evs, err := p.Line(sc.Bytes())
				if err != nil {
					continue
				}
				for _, ev := range evs {
					if l := ev.Live; l != nil && l.Tool != nil {
						running[l.Tool.ID] = l.Tool.Name
						shown++
						if len(l.Tool.Arguments) == 0 {
							t.Errorf("call %s shown without its arguments", l.Tool.Name)
						}
					}
					if m := ev.Message; m != nil && m.Role == llm.RoleToolResult {
						results++
						if _, ok := running[m.ToolCallID]; !ok && c.live > 0 {
							t.Errorf("result of %s (%s) came before its call was shown running", m.ToolName, m.ToolCallID)
						}
						delete(running, m.ToolCallID)
					}
				}
			}
			if shown != c.live || results == 0 || len(running) != 0 {
				t.Errorf("shown %d calls running (want %d), %d results, %v still running", shown, c.live, results, running)
			}
		})
	}
}
