package runui

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// termView renders agent events for a person at a terminal. Every text
// the model, a tool or a server wrote goes through termsafe: only the
// view's own styles and spinner reach the terminal as escape sequences.
type termView struct {
	mu      sync.Mutex
	w       io.Writer
	color   bool
	midLine bool // the cursor is not at the start of a line
	inThink bool
	// spinner shows a spinner while a turn waits for the model's first
	// token; only on a terminal that takes ANSI codes. spinStop ends the
	// one that spins, nil when none does.
	spinner  bool
	spinStop chan struct{}
}

// newTermView returns a view writing to w; color also enables the
// spinner, as both need a terminal.
func newTermView(w io.Writer, color bool) *termView {
	return &termView{w: w, color: color, spinner: color}
}

// spinFrames are the spinner's frames.
var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spin draws the spinner's first frame and keeps it turning until
// unspin. v.mu is held.
func (v *termView) spin() {
	if !v.spinner || v.spinStop != nil {
		return
	}
	v.newline()
	stop := make(chan struct{})
	v.spinStop = stop
	frame := func(i int) {
		io.WriteString(v.w, "\r"+v.style(styleDim, spinFrames[i%len(spinFrames)]+" waiting for the model…"))
	}
	frame(0)
	go func() {
		t := time.NewTicker(120 * time.Millisecond)
		defer t.Stop()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			v.mu.Lock()
			if v.spinStop == stop {
				frame(i)
			}
			v.mu.Unlock()
		}
	}()
}

// unspin erases the spinner, if one spins. v.mu is held.
func (v *termView) unspin() {
	if v.spinStop == nil {
		return
	}
	close(v.spinStop)
	v.spinStop = nil
	io.WriteString(v.w, "\r\x1b[2K")
}

// ANSI styles.
const (
	styleDim   = "\x1b[2m"
	styleBold  = "\x1b[1m"
	styleCyan  = "\x1b[36m"
	styleRed   = "\x1b[31m"
	styleReset = "\x1b[0m"
)

func (v *termView) style(s, text string) string {
	if !v.color {
		return text
	}
	return s + text + styleReset
}

// write writes s, erasing the spinner first. v.mu is held.
func (v *termView) write(s string) {
	if s == "" {
		return
	}
	v.unspin()
	io.WriteString(v.w, s)
	v.midLine = !strings.HasSuffix(s, "\n")
}

func (v *termView) newline() {
	if v.midLine {
		v.write("\n")
	}
}

func (v *termView) banner(model, sessionFile string, messages int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := "bonsai · " + termsafe.Line(model)
	if sessionFile != "" {
		s += " · " + termsafe.Line(sessionFile)
	}
	if messages > 0 {
		s += fmt.Sprintf(" · resumed %d messages", messages)
	}
	v.write(v.style(styleDim, s) + "\n" + v.style(styleDim, "Ctrl-C aborts the turn, twice exits; /exit quits.") + "\n")
}

func (v *termView) prompt() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.newline()
	v.write(v.style(styleBold, "> "))
}

func (v *termView) notice(s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.newline()
	v.write(v.style(styleDim, "("+termsafe.Text(s)+")") + "\n")
}

// event renders one agent event.
func (v *termView) event(e agent.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e.Type == agent.EventTurnStart {
		v.spin()
		return
	}
	switch e.Type {
	case agent.EventMessageUpdate:
		switch e.Delta.Type {
		case llm.EventTextDelta:
			if v.inThink {
				v.inThink = false
				v.newline()
			}
			v.write(termsafe.Text(e.Delta.Delta))
		case llm.EventThinkingDelta:
			v.inThink = true
			v.write(v.style(styleDim, termsafe.Text(e.Delta.Delta)))
		}
	case agent.EventMessageEnd:
		if e.Message.Role == llm.RoleAssistant {
			v.inThink = false
			v.newline()
			if e.Message.StopReason == llm.StopError {
				v.write(v.style(styleRed, "error: "+termsafe.Text(e.Message.ErrorMessage)) + "\n")
			}
		}
	case agent.EventToolExecutionStart:
		v.newline()
		v.write(v.style(styleCyan, "● "+termsafe.Line(e.ToolName)) + " " + v.style(styleDim, argsSummary(e.Args)) + "\n")
	case agent.EventToolExecutionEnd:
		v.write(resultSummary(v, e.ToolResult) + "\n")
	case agent.EventRetry:
		v.newline()
		v.write(v.style(styleDim, fmt.Sprintf("(retry %d in %s: %s)", e.Delta.Retry.Attempt, e.Delta.Retry.Delay, termsafe.Line(e.Delta.Retry.Err))) + "\n")
	case agent.EventCompactionStart:
		v.newline()
		v.write(v.style(styleDim, "(compacting the conversation…)") + "\n")
	}
}

// summary prints the tokens and cost of the session at exit.
func (v *termView) summary(u llm.Usage) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.newline()
	s := fmt.Sprintf("(%d input, %d output tokens", u.Input+u.CacheRead+u.CacheWrite, u.Output)
	if u.CacheRead > 0 {
		s += fmt.Sprintf(", %d from cache", u.CacheRead)
	}
	if u.Cost > 0 {
		s += ", " + board.USD(u.Cost)
	}
	v.write(v.style(styleDim, s+")") + "\n")
}

// result reports how a run ended when it did not simply stop.
func (v *termView) result(r agent.Result) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch r.Reason {
	case agent.EndStop:
	case agent.EndAborted:
		v.newline()
		v.write(v.style(styleDim, "(aborted)") + "\n")
	default:
		v.newline()
		v.write(v.style(styleRed, fmt.Sprintf("(run ended: %s: %s)", r.Reason, termsafe.Text(r.Detail))) + "\n")
	}
}

// argsSummary shows a tool call's arguments on one short line.
func argsSummary(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return clipLine(string(args), 100)
	}
	for _, k := range []string{"command", "path", "pattern"} {
		if s, ok := m[k].(string); ok {
			return clipLine(s, 100)
		}
	}
	return clipLine(string(args), 100)
}

func resultSummary(v *termView, r *tool.Result) string {
	if r == nil {
		return ""
	}
	text := ""
	for _, p := range r.Content {
		if p.Type == llm.PartText {
			text += p.Text
		}
	}
	text = strings.TrimRight(text, "\n")
	n := strings.Count(text, "\n") + 1
	first, _, _ := strings.Cut(text, "\n")
	s := "  ⎿ " + clipLine(first, 100)
	if n > 1 {
		s += fmt.Sprintf(" … (%d lines)", n)
	}
	if r.IsError {
		return v.style(styleRed, s)
	}
	return v.style(styleDim, s)
}

// clipLine is the first line of s, cut to about n bytes at a character's
// start, for a terminal: its control characters show as escapes.
func clipLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return termsafe.Line(s[:n]) + "…"
	}
	return termsafe.Line(s)
}
