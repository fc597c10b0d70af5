package tui

import "strings"

// transcript is the conversation as the screen shows it: entries, the
// one streaming, and how far the view is scrolled up.
type transcript struct {
	entries []*entry
	flags   viewFlags
	scroll  int               // lines scrolled up from the bottom
	stream  *entry            // the text or thinking entry being streamed
	calls   map[string]*entry // tool call entries by call id
}

// add appends an entry and returns it; the view follows the bottom.
func (t *transcript) add(k kind, text string) *entry {
	e := &entry{kind: k, text: text}
	t.entries = append(t.entries, e)
	t.scroll = 0
	return e
}

// notice adds a line of the interface's own.
func (t *transcript) notice(s string) { t.add(kindNotice, s) }

// streamDelta appends a streamed delta to the entry of kind k, starting
// one when the stream changes kind.
func (t *transcript) streamDelta(k kind, delta string) {
	if t.stream == nil || t.stream.kind != k {
		t.stream = t.add(k, "")
	}
	t.stream.text += delta
	t.stream.touch()
}

// clear drops every entry.
func (t *transcript) clear() {
	t.entries, t.stream, t.calls, t.scroll = nil, nil, nil, 0
}

// setFlags changes the display toggles.
func (t *transcript) setFlags(f viewFlags) { t.flags = f }

// view returns the h lines at the bottom of the transcript, w columns
// wide, scrolled up by t.scroll. It renders only the entries it shows,
// from the last one up, so its cost does not grow with the session.
func (t *transcript) view(w, h int) []string {
	need := h + t.scroll
	var rev [][]string
	n := 0
	for i := len(t.entries) - 1; i >= 0 && n < need; i-- {
		ls := t.entries[i].lines(w, t.flags)
		if i > 0 && t.entries[i].spaced(t.entries[i-1]) {
			ls = append([]string{""}, ls...)
		}
		rev = append(rev, ls)
		n += len(ls)
	}
	all := make([]string, 0, n)
	for i := len(rev) - 1; i >= 0; i-- {
		all = append(all, rev[i]...)
	}
	if t.scroll > max(len(all)-h, 0) {
		t.scroll = max(len(all)-h, 0)
	}
	end := len(all) - t.scroll
	start := max(end-h, 0)
	out := all[start:end]
	for len(out) < h {
		out = append(out, "")
	}
	return out
}

// spaced reports whether a blank line separates e from the entry
// before it: before a prompt, and around the interface's own lines.
func (e *entry) spaced(prev *entry) bool {
	own := func(k kind) bool { return k == kindNotice || k == kindError }
	return e.kind == kindUser || own(e.kind) != own(prev.kind)
}

// text returns the transcript as plain lines (tests).
func (t *transcript) text(w int) string {
	var b strings.Builder
	for _, e := range t.entries {
		for _, l := range e.lines(w, t.flags) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
