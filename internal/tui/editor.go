package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// pasteInline is the largest paste the editor shows as text; a larger
// one is held as an attachment and shown as one placeholder line.
const pasteInline = 4 << 10

// editor is the prompt: a multi-line text area with history. Enter
// sends; Alt-Enter, Shift-Enter and Ctrl-J insert a newline.
type editor struct {
	ta      textarea.Model
	history []string
	at      int                 // index in history while browsing; len when not
	draft   string              // the text before browsing began
	pastes  map[string]string   // placeholder → pasted text
	images  map[string]llm.Part // placeholder → attached image
}

func newEditor() editor {
	ta := textarea.New()
	ta.Prompt = "› "
	ta.Placeholder = "Ask anything · /help for commands"
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 8
	ta.MaxContentHeight = 0
	ta.CharLimit = 0
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))
	ta.Focus()
	return editor{ta: ta}
}

// setWidth sets the editor's width in columns.
func (e *editor) setWidth(w int) { e.ta.SetWidth(w) }

// value returns the text to send, pasted attachments put back in.
func (e *editor) value() string {
	v := e.ta.Value()
	for ph, text := range e.pastes {
		v = strings.ReplaceAll(v, ph, text)
	}
	return v
}

// take returns the text to send, records it in the history and empties
// the editor.
func (e *editor) take() string {
	v := e.value()
	if shown := e.ta.Value(); strings.TrimSpace(shown) != "" {
		e.history = append(e.history, shown)
	}
	e.at, e.draft = len(e.history), ""
	e.ta.Reset()
	e.pastes = nil
	return v
}

// takeImages returns the images attached to the text sent (those whose
// placeholder is still in it) and forgets them all.
func (e *editor) takeImages(text string) []llm.Part {
	var parts []llm.Part
	for ph, p := range e.images {
		if strings.Contains(text, ph) {
			parts = append(parts, p)
		}
	}
	e.images = nil
	return parts
}

// attach holds an image for the next prompt, shown as a placeholder.
func (e *editor) attach(p llm.Part, name string) {
	if e.images == nil {
		e.images = map[string]llm.Part{}
	}
	ph := fmt.Sprintf("[image #%d: %s]", len(e.images)+1, name)
	e.images[ph] = p
	e.ta.InsertString(ph)
}

// paste inserts pasted text: a large paste as a placeholder.
func (e *editor) paste(text string) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if len(text) <= pasteInline {
		e.ta.InsertString(text)
		return
	}
	if e.pastes == nil {
		e.pastes = map[string]string{}
	}
	ph := fmt.Sprintf("[pasted #%d: %d lines, %d bytes]", len(e.pastes)+1, strings.Count(text, "\n")+1, len(text))
	e.pastes[ph] = text
	e.ta.InsertString(ph)
}

// browse moves through the history: -1 older, +1 newer. It reports
// whether it moved (false leaves the key to the text area).
func (e *editor) browse(dir int) bool {
	if dir < 0 && e.ta.Line() > 0 || dir > 0 && e.ta.Line() < e.ta.LineCount()-1 {
		return false
	}
	if e.at > len(e.history) {
		e.at = len(e.history)
	}
	next := e.at + dir
	if next < 0 || next > len(e.history) {
		return false
	}
	if e.at == len(e.history) {
		e.draft = e.ta.Value()
	}
	e.at = next
	if next == len(e.history) {
		e.ta.SetValue(e.draft)
	} else {
		e.ta.SetValue(e.history[next])
	}
	return true
}

// update passes a message to the text area.
func (e *editor) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return cmd
}
