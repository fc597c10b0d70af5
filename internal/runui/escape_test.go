package runui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// hostile is what a model, a tool's output or a server can send to take
// over the terminal: erase the line and go up, OSC 52 and OSC 8, a bell,
// a C1 CSI, a right-to-left override and a byte that is not UTF-8.
const hostile = "x\x1b[2K\x1b[1A\r\x1b]52;c;cm0=\x07\x1b]8;;https://e.example/\x07y\u009b2J\u202ez\xff"

// rawControl returns the first character of s a terminal would act on,
// but a newline or a tab, or "".
func rawControl(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return s[i : i+size]
		}
		i += size
	}
	return ""
}

// TestTermView_Escapes: the model's text and thinking, a tool's name,
// arguments and output, an error, a retry, a run's end and a held command
// reach the terminal with their control characters as escapes; the
// view's own styles are the only escape sequences it sends.
func TestTermView_Escapes(t *testing.T) {
	t.Parallel()
	args, _ := json.Marshal(map[string]string{"command": "echo " + hostile})
	events := []agent.Event{
		{Type: agent.EventMessageUpdate, Delta: &llm.Event{Type: llm.EventThinkingDelta, Delta: hostile}},
		{Type: agent.EventMessageUpdate, Delta: &llm.Event{Type: llm.EventTextDelta, Delta: hostile + "\n\tindented\n"}},
		{Type: agent.EventToolExecutionStart, ToolName: "bash" + hostile, Args: args},
		{Type: agent.EventToolExecutionEnd, ToolResult: &tool.Result{Content: []llm.Part{llm.Part{Type: llm.PartText, Text: hostile + "\nsecond line"}}}},
		{Type: agent.EventToolExecutionEnd, ToolResult: &tool.Result{Content: []llm.Part{llm.Part{Type: llm.PartText, Text: hostile}}, IsError: true}},
		{Type: agent.EventRetry, Delta: &llm.Event{Retry: &llm.RetryInfo{Attempt: 1, Err: hostile}}},
		{Type: agent.EventMessageEnd, Message: &llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: hostile}},
	}
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		v := newTermView(&b, color)
		v.spinner = false // its frames are written by a goroutine; TestTermView_Spinner covers it
		for _, e := range events {
			v.event(e)
		}
		v.banner("anthropic/"+hostile, "/s/"+hostile, 0)
		v.notice(hostile)
		v.result(agent.Result{Reason: agent.EndError, Detail: hostile})
		v.ask(&question{command: "touch ok\u202etxt.exe\rrm -rf ~\n" + hostile, d: policy.Decision{Rule: hostile, Reason: hostile}})
		out := b.String()
		if color {
			for _, s := range []string{styleDim, styleBold, styleCyan, styleRed, styleReset} {
				out = strings.ReplaceAll(out, s, "")
			}
		}
		if c := rawControl(out); c != "" {
			t.Errorf("color %v: %q reaches the terminal raw:\n%s", color, c, out)
		}
		for _, want := range []string{`x\x1b[2K\x1b[1A\r\x1b]52;c;cm0=\x07`, `\u009b2J\u202ez\xff`, "\n\tindented\n",
			"  $ touch ok\\u202etxt.exe\\rrm -rf ~\n  $ x\\x1b[2K"} {
			if !strings.Contains(out, want) {
				t.Errorf("color %v: output lacks %q:\n%s", color, want, out)
			}
		}
	}
}

// TestClip_AtCharacter: a clipped line is cut at a character's start,
// never inside one.
func TestClip_AtCharacter(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 80) // 160 bytes
	for _, got := range []string{clipLine(s, 99), clip(s, 99)} {
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || strings.Contains(got, `\x`) {
			t.Errorf("clip = %q", got)
		}
	}
}
