package web

import (
	"time"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/session"
)

// The heartbeat writes the assistant message being streamed to the live
// file beside a ticket's transcript; session.LiveReader follows it, and
// the page shows what it holds (format in docs/web.md).

// partialShow is how much of each part of a message being streamed the
// page shows: the end of it, so a huge tool call costs the browser little.
// The reader keeps at most twice as much of each part.
const partialShow = 16 << 10

// newLiveReader follows the live file beside the transcript at path.
func newLiveReader(transcript string) *session.LiveReader {
	return session.NewLiveReader(session.LivePath(transcript), partialShow)
}

// partialView is what the page shows of a message being streamed.
type partialView struct {
	Parts []partialPartView
	// Calls are the tool calls being run, when the live file holds them
	// rather than a message.
	Calls []runningView
}

type partialPartView struct {
	Kind, Name, Text string
	Cut              int
}

// runningView is a tool call being run: its name, when it started, its
// arguments as the page shows them, and the end of what it printed so
// far (Cut bytes before it are not shown).
type runningView struct {
	Name   string
	Since  time.Time
	Args   []argView
	Output string
	Cut    int
}

// livePartial returns the message being streamed if it belongs at
// transcript offset at (the end of the complete entries the stream has
// sent), or an empty view: the message is complete (the transcript has
// moved past it), or the stream has not caught up with the entries before
// it.
func livePartial(r *session.LiveReader, at int64) partialView {
	start, parts, ok := r.Streaming()
	if !ok || start != at {
		return partialView{}
	}
	var v partialView
	for _, p := range parts {
		if p.Kind == "" || len(p.Text) == 0 && p.Name == "" {
			continue
		}
		text := p.Text
		cut := p.Cut
		if len(text) > partialShow {
			n := len(text) - partialShow
			for n < len(text) && !utf8.RuneStart(text[n]) {
				n++
			}
			cut += n
			text = text[n:]
		}
		switch {
		case p.Kind == session.LiveRun:
			v.Calls = append(v.Calls, runningView{Name: p.Name, Since: time.UnixMilli(p.Since), Args: viewArgs(p.Name, text)})
		case p.Kind == session.LiveOutput:
			if n := len(v.Calls); n > 0 {
				v.Calls[n-1].Output, v.Calls[n-1].Cut = string(text), cut
			}
		default:
			v.Parts = append(v.Parts, partialPartView{Kind: p.Kind, Name: p.Name, Text: string(text), Cut: cut})
		}
	}
	return v
}
