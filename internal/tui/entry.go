package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// kind is what an entry of the transcript shows.
type kind int

const (
	kindUser     kind = iota // a prompt the user sent
	kindText                 // the assistant's answer, Markdown
	kindThinking             // the assistant's thinking, dimmed
	kindTool                 // one tool call and its result
	kindNotice               // a line of the interface's own
	kindError                // an error, red
)

// maxOutput is how much of a tool's output an entry keeps: its tail. A
// 10 MB output is cut to this before anything renders it.
const maxOutput = 64 << 10

// entry is one block of the transcript. Its rendered lines are cached
// for one width and one pair of view flags, so that a keystroke renders
// only what changed.
type entry struct {
	kind kind
	text string // user, text, thinking, notice, error: the raw text
	call *toolCall

	cache     []string
	cacheW    int
	cacheFlag viewFlags
	valid     bool
}

// viewFlags are the transcript-wide display toggles.
type viewFlags struct {
	expand   bool // tool calls show their arguments and output
	thinking bool // thinking shows in full, not as one line
}

// toolCall is a tool call's entry.
type toolCall struct {
	id, name string
	summary  string // the arguments on one line
	diff     string // a unified diff of an edit or the content of a write
	output   string // the tail of the output, at most maxOutput bytes
	dropped  int    // bytes of output before the tail
	done     bool
	isError  bool
}

// touch drops the entry's cached lines.
func (e *entry) touch() { e.valid = false }

// lines returns the entry's lines at width w.
func (e *entry) lines(w int, f viewFlags) []string {
	if e.valid && e.cacheW == w && e.cacheFlag == f {
		return e.cache
	}
	e.cache, e.cacheW, e.cacheFlag, e.valid = e.render(w, f), w, f, true
	return e.cache
}

func (e *entry) render(w int, f viewFlags) []string {
	switch e.kind {
	case kindUser:
		return wrapLines(styleUser.Render("› ")+safe(e.text), w)
	case kindText:
		return wrapLines(renderMarkdown(safe(e.text)), w)
	case kindThinking:
		if !f.thinking {
			return []string{styleDim.Render(clipWidth("✻ thinking: "+oneLine(e.text), w))}
		}
		return wrapLines(styleDim.Render(safe(e.text)), w)
	case kindTool:
		return e.call.render(w, f.expand)
	case kindError:
		return wrapLines(styleError.Render(safe(e.text)), w)
	}
	return wrapLines(styleDim.Render(safe(e.text)), w)
}

// render draws a tool call: one line, and its result's first line; when
// expanded, its diff and the tail of its output.
func (c *toolCall) render(w int, expand bool) []string {
	mark := "●"
	if !c.done {
		mark = "○"
	}
	out := []string{clipWidth(styleTool.Render(mark+" "+termsafe.Line(c.name))+" "+styleDim.Render(c.summary), w)}
	if expand && c.diff != "" {
		out = append(out, wrapLines(renderDiff(safe(c.diff)), w)...)
	}
	if !c.done {
		return out
	}
	text := strings.TrimRight(c.output, "\n")
	n := strings.Count(text, "\n") + 1
	style := styleDim
	if c.isError {
		style = styleError
	}
	if !expand || text == "" {
		first, _, _ := strings.Cut(text, "\n")
		line := "  ⎿ " + termsafe.Line(first)
		if n > 1 || c.dropped > 0 {
			line += fmt.Sprintf(" … (%d lines, ctrl-o shows)", n)
		}
		return append(out, style.Render(clipWidth(line, w)))
	}
	if c.dropped > 0 {
		out = append(out, styleDim.Render(fmt.Sprintf("  … %d bytes before", c.dropped)))
	}
	return append(out, wrapLines(style.Render(safe(text)), w)...)
}

// safe makes text fit for the terminal: control characters show as
// escapes, tabs become spaces.
func safe(s string) string {
	return termsafe.Text(strings.ReplaceAll(s, "\t", "    "))
}

// oneLine is the text on one line, sanitised.
func oneLine(s string) string {
	return termsafe.Line(strings.Join(strings.Fields(s), " "))
}

// wrapLines wraps styled text at w columns and splits it into lines.
func wrapLines(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, max(w, 1), ""), "\n")
}

// clipWidth cuts a styled line to w columns.
func clipWidth(s string, w int) string {
	return ansi.Truncate(s, max(w, 1), "…")
}
