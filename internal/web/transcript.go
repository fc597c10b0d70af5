package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// longOutput is the size past which tool arguments and results are shown
// collapsed.
const (
	longLines = 12
	longBytes = 1500
)

// entryView is one transcript entry as the pages show it.
type entryView struct {
	ID       string
	Kind     string // user, assistant, tool, compaction, model
	Time     time.Time
	Text     string // Markdown of user and assistant text, compaction summaries
	Thinking []string
	Calls    []callView
	Tool     string // tool results: the tool's name
	Result   string
	IsError  bool
	Long     bool // the result is long: show it collapsed
	Usage    *llm.Usage
	Model    string
	Stop     string // why an assistant message ended, when not a normal stop
	// Oversized entries: the line's size and offset in the transcript,
	// and what it holds as far as its start tells.
	Size   int64
	Offset int64
	What   string
}

type callView struct {
	Name string
	Args []argView
	Long bool
}

func isLong(s string) bool {
	return len(s) > longBytes || strings.Count(s, "\n") >= longLines
}

// transcriptFile returns the file a ticket's transcript is read from, ""
// for IDs that could escape its directory: the heartbeat's session file on
// one machine's board; on a shared board, this server's copy of the
// store's, brought up to date first (transcript_cache.go). The live file
// is beside it.
func (s *Server) transcriptFile(ctx context.Context, projectID, ticketID string) string {
	if s.opts.SharedBoard {
		return s.transcripts.sync(ctx, projectID, ticketID)
	}
	path, err := session.Layout{Root: s.opts.Dir.Sessions()}.Transcript(projectID, ticketID)
	if err != nil {
		return ""
	}
	return path
}

// transcriptRefresh returns what an activity hub calls before each poll
// of a ticket's transcript: on a shared board, a sync of the copy; nil on
// one machine's board.
func (s *Server) transcriptRefresh(projectID, ticketID string) func(context.Context) {
	if !s.opts.SharedBoard {
		return nil
	}
	return func(ctx context.Context) { s.transcripts.sync(ctx, projectID, ticketID) }
}

// readTranscript reads the entries of a transcript written between from
// and to (to zero: up to now) and the offset after its last complete line.
// A missing file is an empty transcript. It holds at most one line of
// session.MaxLineBytes at a time; a longer line is an oversized entry.
func readTranscript(path string, from, to time.Time) ([]entryView, int64, error) {
	if path == "" {
		return nil, 0, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	var out []entryView
	// Only complete lines: the writer may be in the middle of one.
	lr := session.NewLineReader(0, session.MaxLineBytes)
	err = session.ReadLines(f, lr, fi.Size(), func(l session.Line) {
		v, ok := lineEntry(l)
		if !ok || v.Time.Before(from) || !to.IsZero() && v.Time.After(to) {
			return
		}
		out = append(out, v)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read transcript: %w", err)
	}
	return out, lr.Complete(), nil
}

// lineEntry reads one complete line of a transcript: the entry, or a
// placeholder when the line is too large to show.
func lineEntry(l session.Line) (entryView, bool) {
	if !l.Over {
		return parseLine(l.Data)
	}
	h := parseHead(l.Head)
	if h.Type == string(session.TypeSession) {
		return entryView{}, false
	}
	v := entryView{ID: h.ID, Kind: "oversized", Size: l.Size(), Offset: l.Start, Time: parseTime(h.Timestamp)}
	switch {
	case h.Role == string(llm.RoleToolResult):
		v.What = "tool result"
	case h.Role == string(llm.RoleAssistant):
		v.What = "agent"
	case h.Role == string(llm.RoleUser):
		v.What = "prompt"
	case h.Type != "":
		v.What = h.Type
	default:
		v.What = "entry"
	}
	return v, true
}

func parseTime(s string) time.Time {
	if t, err := time.Parse(session.TimeFormat, s); err == nil {
		return t
	}
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// parseLine reads one line of a transcript; ok is false for the header and
// for lines that are not entries.
func parseLine(line []byte) (entryView, bool) {
	var e session.Entry
	if err := json.Unmarshal(line, &e); err != nil || e.Type == session.TypeSession {
		return entryView{}, false
	}
	return viewEntry(e)
}

// viewEntry turns an entry into what the page shows; labels and custom
// entries are not shown.
func viewEntry(e session.Entry) (entryView, bool) {
	v := entryView{ID: e.ID, Time: parseTime(e.Timestamp)}
	switch e.Type {
	case session.TypeModelChange:
		v.Kind, v.Model = "model", e.Model
		return v, true
	case session.TypeCompaction:
		if e.Compaction == nil {
			return v, false
		}
		v.Kind, v.Text = "compaction", e.Compaction.Summary
		return v, true
	case session.TypeMessage:
	default:
		return v, false
	}
	m := e.Message
	if m == nil {
		return v, false
	}
	switch m.Role {
	case llm.RoleUser:
		v.Kind, v.Text = "user", m.Text()
	case llm.RoleToolResult:
		v.Kind, v.Tool, v.IsError = "tool", m.ToolName, m.IsError
		v.Result = m.Text()
		v.Long = isLong(v.Result)
	case llm.RoleAssistant:
		v.Kind, v.Usage, v.Model = "assistant", m.Usage, m.Model
		if m.StopReason != "" && m.StopReason != llm.StopEnd && m.StopReason != llm.StopToolUse {
			v.Stop = string(m.StopReason)
		}
		if m.ErrorMessage != "" {
			v.Stop = strings.TrimSpace(v.Stop + " " + m.ErrorMessage)
		}
		var text []string
		for _, p := range m.Content {
			switch p.Type {
			case llm.PartText:
				text = append(text, p.Text)
			case llm.PartThinking:
				if p.Thinking != "" {
					v.Thinking = append(v.Thinking, p.Thinking)
				}
			case llm.PartToolCall:
				args := viewArgs(p.Name, p.Arguments)
				v.Calls = append(v.Calls, callView{Name: p.Name, Args: args, Long: argsLong(args)})
			}
		}
		v.Text = strings.Join(text, "\n\n")
	default:
		return v, false
	}
	return v, true
}
